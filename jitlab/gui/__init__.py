"""The desktop app: Qt views over the headless core, with all JAX work on one worker thread."""
