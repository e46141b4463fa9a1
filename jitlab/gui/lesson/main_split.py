"""The window's left/right split: the scenario list beside everything else.

:class:`MainSplit` owns the scenario list's fold (shown, or folded away for more room) and
its width, keeps every toggle of it checked alike (the View menu's, the mode bar's ☰), and
saves both in the settings and restores them.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QAbstractButton, QSplitter, QTreeWidget, QWidget
from superqt.utils import signals_blocked

SCENARIO_LIST_MIN_W = 150  # titles elide below; it can fold away (tests/gui/test_small_screens.py)


class MainSplit(QSplitter):
    """The scenario list (:attr:`scenario_list`) and ``center`` (see the module's doc)."""

    def __init__(self, settings: QSettings, center: QWidget, parent: QWidget | None = None):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setObjectName("mainSplit")
        self.settings = settings
        self.toggles: tuple[QAction | QAbstractButton, ...] = ()  # checked while it shows
        self.scenario_list = QTreeWidget(self)
        self.scenario_list.setObjectName("scenarioList")
        self.scenario_list.setHeaderHidden(True)
        self.scenario_list.setIconSize(QSize(24, 24))
        self.scenario_list.setMinimumWidth(SCENARIO_LIST_MIN_W)
        self.scenario_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.addWidget(self.scenario_list)
        self.addWidget(center)
        self.setStretchFactor(1, 1)
        self.setCollapsible(0, True)  # the list folds away while cooking
        self.setCollapsible(1, False)
        self.setSizes([260, 1200])
        self.splitterMoved.connect(self._moved)

    def set_list_visible(self, visible: bool) -> None:
        """Fold the scenario list away (more room for the lab) or bring it back; saved."""
        for control in self.toggles:
            if control.isChecked() != visible:
                with signals_blocked(control):
                    control.setChecked(visible)
        self.scenario_list.setHidden(not visible)
        if visible and self.sizes()[0] == 0:  # dragged shut before: open it again
            width = max(SCENARIO_LIST_MIN_W, 240)
            self.setSizes([width, max(1, self.width() - width)])
        self.settings.setValue("scenario_list", visible)

    def restore(self) -> None:
        """The split and the list's fold as saved (a first start: the list takes a fifth)."""
        split = self.settings.value("main_split")
        if isinstance(split, QByteArray) and not split.isEmpty():
            self.restoreState(split)
        else:  # the list takes a fifth of a small window, no more than it needs
            QTimer.singleShot(0, self, self._first_split)
        shown = self.settings.value("scenario_list", True)
        self.set_list_visible(str(shown).lower() not in ("false", "0"))

    def remember(self) -> None:
        self.settings.setValue("main_split", self.saveState())
        self.settings.setValue("scenario_list", not self.scenario_list.isHidden())

    def _first_split(self) -> None:
        width = self.width()
        if width > 0 and not self.scenario_list.isHidden():
            side = min(240, max(SCENARIO_LIST_MIN_W, width // 5))
            self.setSizes([side, width - side])

    def _moved(self, *_: Any) -> None:
        if self.sizes()[0] == 0 and not self.scenario_list.isHidden():
            self.set_list_visible(False)  # dragged shut: the toggle says so
