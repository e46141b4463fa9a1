"""The row above the lab: the scenario list's toggle (☰), the four mode buttons, and the
demo's note.

:class:`ModeBar` owns those buttons and which one is checked; the window decides what a
click does (``mode_clicked``, ``list_toggled``). The words keep the window's ``tr`` context
("MainWindow"), where their translations live.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from jitlab.gui.i18n import translate
from jitlab.gui.lesson.menus import scenario_list_tip

MODES = ("start", "execute", "monitor", "complete")


class ModeBar(QWidget):
    """☰, ① Start … ④ Complete (Alt+1…4), then the demo's note (see the module's doc)."""

    mode_clicked = Signal(str)
    list_toggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.list_button = QToolButton(self)  # folds the scenario list away (Ctrl+B)
        self.list_button.setObjectName("scenarioListToggle")
        self.list_button.setCheckable(True)
        self.list_button.setChecked(True)
        self.list_button.setText("☰")
        self.list_button.toggled.connect(self.list_toggled)
        layout.addWidget(self.list_button)
        self.buttons: dict[str, QPushButton] = {}
        self.group = QButtonGroup(self)
        for i, mode in enumerate(MODES):
            button = QPushButton(self)
            button.setObjectName(f"mode_{mode}")
            button.setCheckable(True)
            button.setShortcut(QKeySequence(f"Alt+{i + 1}"))
            button.clicked.connect(lambda _=False, m=mode: self.mode_clicked.emit(m))
            self.group.addButton(button)
            self.buttons[mode] = button
            layout.addWidget(button)
        self.note = QLabel(self)
        self.note.setObjectName("autoplayNote")
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)  # labels and values are data, not markup
        # Long demo notes wrap and never widen the window.
        self.note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.note, 1)

    def check(self, mode: str) -> None:
        self.buttons[mode].setChecked(True)

    def check_none(self) -> None:
        """No mode is current (the exercises are shown)."""
        self.group.setExclusive(False)
        for button in self.buttons.values():
            button.setChecked(False)
        self.group.setExclusive(True)

    def retranslate(self) -> None:
        names = {
            "start": translate("MainWindow", "① Start"),
            "execute": translate("MainWindow", "② Execute"),
            "monitor": translate("MainWindow", "③ Monitor"),
            "complete": translate("MainWindow", "④ Complete"),
        }
        tips = {
            "start": translate(
                "MainWindow",
                "The question: predict what jit will do, then start cooking (Alt+1).",
            ),
            "execute": translate("MainWindow", "Make calls and watch the kitchen work (Alt+2)."),
            "monitor": translate(
                "MainWindow",
                "Study what compiled: the signature ledger and where the compile time went (Alt+3).",  # noqa: E501
            ),
            "complete": translate(
                "MainWindow", "Summary: fix vs pitfall side by side, and export (Alt+4)."
            ),
        }
        for mode, button in self.buttons.items():
            button.setText(names[mode])
            button.setToolTip(tips[mode])
        self.list_button.setToolTip(scenario_list_tip())
