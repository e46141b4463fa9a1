"""Tests that need Qt with no ``qtbot`` to say so: they start a process that opens (or looks
for) a Qt window. Where PySide6 or pytest-qt is absent (a TPU VM, nox's JAX sessions) they
skip (``tests/conftest.py``), with every test that asks for ``qtbot``; nox's ``newest-full``
runs them. No imports: ``noxfile.py`` reads this file too.
"""

NEEDS_QT = (
    "tests/cli/test_cli_zh_watch.py::test_the_recording_window_says_a_recording_has_no_end_line",
    "tests/cli/test_cli.py::test_no_display_is_a_clear_error_not_a_crash",
)
