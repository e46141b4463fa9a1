"""Every event-loop entry point: the lesson window (``jitlab``), the quiz alone (``jitlab quiz
--gui``) and the recording window (``jitlab open``). The window shows first; JAX loads on the
worker thread."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from jitlab.gui.settings import APPLICATION, ORGANIZATION, make_settings, start_language


def _require_display() -> None:
    """Say plainly when there is no screen, instead of letting Qt abort the process."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return
    raise SystemExit(
        "jitlab: error: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are "
        "unset); run it on a desktop, or use `jitlab run`, `jitlab watch` or `jitlab quiz` "
        "in this terminal"
    )


def application() -> QApplication:
    # The GUI thread gives the GIL away inside many Qt calls and must win it back from a
    # busy worker; a short switch interval bounds each wait (default 5 ms) to 0.2 ms.
    sys.setswitchinterval(0.0002)
    running = QApplication.instance()
    if running is None:
        _require_display()
        running = QApplication(sys.argv[:1])
    app = cast(QApplication, running)  # the GUI's own, or the one a test or notebook made
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setApplicationDisplayName("jitlab")
    app.setStyle("Fusion")  # one look on every platform; Fusion follows the light/dark scheme
    hints = app.styleHints()
    if hints is not None and not getattr(app, "_jitlab_scheme", False):
        app._jitlab_scheme = True  # type: ignore[attr-defined]
        hints.colorSchemeChanged.connect(lambda *_: match_scheme(app))
    match_scheme(app)
    return app


def match_scheme(app: QApplication) -> None:
    """Make the palette agree with the light/dark scheme: the system's, or ``JITLAB_SCHEME``.

    Qt's own colour-scheme API does it where the platform offers it: a forced scheme is
    asked for with ``QStyleHints.setColorScheme`` (Qt 6.8+), and the platform theme hands
    Fusion the matching palette. Only where the platform ignores the request, or reports
    dark but keeps a light palette (no platform theme, e.g. a bare X server or offscreen),
    is a palette built by hand; it is dropped again before each check, so a platform that
    answers late (its ``colorSchemeChanged`` calls this again) gets its own palette back.
    """
    hints = app.styleHints()
    forced = os.environ.get("JITLAB_SCHEME", "").lower()  # "dark"/"light": overrides
    if forced in ("dark", "light"):
        hints.setColorScheme(Qt.ColorScheme.Dark if forced == "dark" else Qt.ColorScheme.Light)
    elif getattr(app, "_jitlab_forced", False):
        hints.unsetColorScheme()  # follow the system again
    app._jitlab_forced = forced in ("dark", "light")  # type: ignore[attr-defined]
    if getattr(app, "_jitlab_fallback", False):
        app._jitlab_fallback = False  # type: ignore[attr-defined]
        app.setPalette(QPalette())  # back to the platform's own palette
    scheme = hints.colorScheme()
    if forced in ("dark", "light"):
        scheme = Qt.ColorScheme.Dark if forced == "dark" else Qt.ColorScheme.Light
    light = app.palette().color(QPalette.ColorRole.Window).lightness() >= 128
    if scheme == Qt.ColorScheme.Dark and light:
        app._jitlab_fallback = True  # type: ignore[attr-defined]
        app.setPalette(_dark_palette())
    elif scheme == Qt.ColorScheme.Light and not light:
        app._jitlab_fallback = True  # type: ignore[attr-defined]
        app.setPalette(app.style().standardPalette())


def _dark_palette() -> QPalette:
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#2b2d31",
        QPalette.ColorRole.WindowText: "#e6e6e6",
        QPalette.ColorRole.Base: "#1f2023",
        QPalette.ColorRole.AlternateBase: "#2a2c30",
        QPalette.ColorRole.ToolTipBase: "#3a3c41",
        QPalette.ColorRole.ToolTipText: "#f0f0f0",
        QPalette.ColorRole.Text: "#e6e6e6",
        QPalette.ColorRole.Button: "#33363b",
        QPalette.ColorRole.ButtonText: "#e6e6e6",
        QPalette.ColorRole.BrightText: "#ff6b6b",
        QPalette.ColorRole.Link: "#6cb6ff",
        QPalette.ColorRole.Highlight: "#3d7bd9",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.PlaceholderText: "#8a8d93",
    }
    for role, color in roles.items():
        palette.setColor(role, QColor(color))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.WindowText,
    ):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7d83"))
    return palette


def close_on_signals(window: QWidget) -> None:
    """Ctrl+C or a polite kill closes the window as the close button would (clean exit 0);
    a second one, while the close waits for a call in flight, ends the process at once.

    Python runs signal handlers only between bytecodes, and Qt's event loop waits in C++:
    a timer that runs a little Python five times a second gives the handler its chance
    (the main window's frame timer alone would not do for the quiz or a recording).
    """
    asked = []

    def close(signum: int, frame: object) -> None:
        asked.append(signum)
        if len(asked) > 1:  # the first one already saved the settings
            sys.stderr.flush()
            os._exit(128 + signum)
        QTimer.singleShot(0, window.close)

    for name in ("SIGINT", "SIGTERM"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), close)
    wake = QTimer(window)
    wake.setObjectName("signalWake")
    wake.timeout.connect(lambda: None)
    wake.start(200)


def exit_status(status: int) -> int:
    """Return ``status``, or end the process now when a thread had to be left behind.

    A call that never returned holds a thread that can be neither killed nor joined, and Qt
    aborts when a running ``QThread`` is destroyed at exit. Settings were saved on close.
    """
    from jitlab.gui.executor import left_behind

    if left_behind():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


def launch(
    scenario: str | None = None,
    variant: str | None = None,
    autoplay: bool = False,
    language: str | None = None,
    scenarios_dir: Path | None = None,
) -> int:
    """Open the main window and run the event loop; returns the exit status."""
    app = application()
    settings = make_settings()
    start_language(settings, language)

    from jitlab.gui.lesson.window import MainWindow

    window = MainWindow(settings, scenario, variant, autoplay, scenarios_dir)
    close_on_signals(window)
    window.show()
    status = app.exec()
    window.shutdown()  # idempotent: the worker has ended (or was left behind) by now
    return exit_status(int(status))


def open_quiz(
    language: str | None = None, exercise: str | None = None, interview: bool = False
) -> int:
    """Run the quiz alone in its own window and event loop; returns the exit status."""
    from jitlab.gui.executor import simulate_cpu_devices
    from jitlab.gui.quiz.view import CLOSE_GRACE_MS, QuizWindow

    simulate_cpu_devices(8)  # the sharding exercises; XLA reads this only before it starts
    app = application()
    start_language(make_settings(), language)
    window = QuizWindow()
    if interview:
        window.view.show_interview()
    if exercise is not None:
        window.view.loaded.connect(lambda: window.view.exercises.select(exercise))
    close_on_signals(window)  # Ctrl+C and SIGTERM close it like the close button
    window.show()
    status = app.exec()
    window.view.shutdown(CLOSE_GRACE_MS)
    return exit_status(int(status))


def open_recording(
    path: str | Sequence[str], follow: bool = True, language: str | None = None
) -> int:
    """``jitlab open FILE…``: the recording window and its event loop; returns the exit
    status. Several files: the processes of one job, side by side."""
    from jitlab.gui.recording.window import open_recording_window

    app = application()
    settings = make_settings()
    start_language(settings, language)
    window = open_recording_window(path, follow, None, settings)  # kept alive by _windows
    close_on_signals(window)  # Ctrl+C and SIGTERM close it like the close button
    status = int(app.exec())
    settings.sync()
    return status
