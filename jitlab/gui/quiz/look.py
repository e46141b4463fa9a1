"""The quiz's look: its colours, the scenarios' icons, faded and wrapping labels, the busy bar."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon, QPalette
from PySide6.QtWidgets import QLabel, QProgressBar, QSizePolicy, QWidget

from jitlab.gui.style import icon
from jitlab.records.paths import resource

RIGHT_COLOR = "#2f9e4f"
WRONG_COLOR = "#e0323f"
LATE_COLOR = "#e3a21a"
TRACE_COLOR = "#e3a21a"  # printed while tracing: the rehearsal
RUNTIME_COLOR = "#1f9bbf"  # printed while the program runs: the service


def scenario_icon(exercise: Any) -> QIcon:
    """The icon of the scenario an exercise belongs to (the catalogue gives its file)."""
    return icon(getattr(exercise, "icon", "") or resource("icons", "pot.svg"))


def dim(label: QLabel) -> QLabel:
    """Secondary text: the palette's text colour, faded (light and dark schemes alike)."""
    label.setProperty("dim", True)
    color = label.palette().color(QPalette.ColorRole.WindowText)
    label.setStyleSheet(f"color: rgba({color.red()}, {color.green()}, {color.blue()}, 165);")
    return label


def wrapping(label: QLabel) -> QLabel:
    """A label that wraps, can be selected, and grows downwards only."""
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    return label


def busy_bar(parent: QWidget) -> QProgressBar:
    """An indeterminate bar shown while a check runs: the run takes what it takes."""
    bar = QProgressBar(parent)
    bar.setRange(0, 0)
    bar.setTextVisible(False)
    bar.setMaximumWidth(160)
    return bar
