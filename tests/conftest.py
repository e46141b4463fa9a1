"""Shared test setup: headless Qt before anything imports it."""

import os

from hypothesis import settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# On a GPU machine each process would take 75% of the GPU's memory at start: parallel workers
# and the subprocesses the tests start (they inherit this) would not fit side by side.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

# No per-example time limit: a busy CI machine must not turn a slow example into a failure.
settings.register_profile("jitlab", deadline=None)
settings.load_profile("jitlab")

pytest_plugins = ["pytester"]  # the compile_budget plugin is tested in process
