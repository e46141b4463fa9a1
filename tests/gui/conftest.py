"""GUI fixtures: a real main window on a real worker thread, with throwaway settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("PySide6", reason="a Qt window: PySide6 is not installed")
from PySide6.QtCore import QSettings

from jitlab.gui import i18n

LOAD_TIMEOUT_MS = 60_000  # discovery imports JAX and every scenario on the worker
CALL_TIMEOUT_MS = 60_000


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    """Settings in a temp ini file, never the user's own."""
    return QSettings(str(tmp_path / "jitlab.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def make_window(qtbot, settings: QSettings) -> Iterator:
    """Build windows; afterwards stop every worker and check its thread really ended."""
    from jitlab.gui.app import application
    from jitlab.gui.lesson.window import MainWindow

    application()
    windows = []

    def make(**kwargs: object) -> MainWindow:
        kwargs.setdefault("entry_points", False)
        window = MainWindow(settings, **kwargs)  # type: ignore[arg-type]
        window.autoplay_delay_ms = 0
        windows.append(window)
        window.show()
        qtbot.waitUntil(lambda: bool(window.catalogue.entries), timeout=LOAD_TIMEOUT_MS)
        return window

    yield make
    for window in windows:
        window.close()
        window.shutdown()
        assert window.worker.isFinished(), "the worker thread is still running"
        assert not window.worker.isRunning()
        window.deleteLater()
    if i18n.language() != "en":
        i18n.set_language("en")


@pytest.fixture
def window(make_window):
    """The app on dynamic-shapes, as `jitlab` opens it."""
    return make_window(scenario="dynamic-shapes")
