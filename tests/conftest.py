"""Shared test setup: headless Qt before anything imports it."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

pytest_plugins = ["pytester"]  # the compile_budget plugin is tested in process
