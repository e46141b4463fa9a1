"""jitlab's version: a leaf module, so that a package that names the version (a recording's
``start`` line, ``jitlab doctor``, a report) imports nothing above it. The wheel's version is
read from here too (``[tool.hatch.version]`` in ``pyproject.toml``)."""

__version__ = "0.1.0"
