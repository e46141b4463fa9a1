"""jitlab in Jupyter, VS Code and Colab notebooks: no Qt (an import contract says so)."""
