"""Where a window opens: ``JITLAB_GEOMETRY``, else the size the user left it at, else what
fits the screen. Shared by the main window and the recording window."""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QApplication, QWidget

ENV = "JITLAB_GEOMETRY"  # WIDTHxHEIGHT, e.g. 1280x800: screenshots and small-screen checks
_warned: set[str] = set()


def parse_size(text: str) -> tuple[int, int] | None:
    """``"1280x800"`` → (1280, 800); None for anything else."""
    w, sep, h = text.strip().lower().partition("x")
    if not sep or not w.isdigit() or not h.isdigit() or int(w) < 1 or int(h) < 1:
        return None
    return int(w), int(h)


def forced_size() -> tuple[int, int] | None:
    """The size ``JITLAB_GEOMETRY`` asks for (a malformed value is reported once, ignored)."""
    forced = os.environ.get(ENV, "")
    if not forced:
        return None
    size = parse_size(forced)
    if size is None and forced not in _warned:
        _warned.add(forced)
        print(
            f"jitlab: warning: ignoring {ENV}={forced!r}: expected WIDTHxHEIGHT, e.g. 1280x800",
            file=sys.stderr,
        )
    return size


def place(
    window: QWidget, settings: QSettings | None, key: str, preferred: tuple[int, int]
) -> None:
    """Size ``window``: the forced size, the saved geometry under ``key``, or ``preferred``
    shrunk to the screen's free area."""
    size = forced_size()
    if size is not None:
        window.resize(*size)
        return
    saved = settings.value(key) if settings is not None else None
    if isinstance(saved, QByteArray) and not saved.isEmpty() and window.restoreGeometry(saved):
        return
    screen = QApplication.primaryScreen()
    if screen is None:
        window.resize(*preferred)
        return
    free = screen.availableGeometry()
    window.resize(min(preferred[0], free.width() - 40), min(preferred[1], free.height() - 40))


def remember(window: QWidget, settings: QSettings | None, key: str) -> None:
    """Save the window's geometry for :func:`place`."""
    if settings is not None:
        settings.setValue(key, window.saveGeometry())
