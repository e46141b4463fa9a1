"""The lab window's menu bar: File, Run, View, Language and Help, wired to its commands.

:func:`build_menus` returns the menus and their actions as one :class:`Menus`, which the
window keeps (its ``menus``); nothing here sets attributes on the window. The words keep the
window's ``tr`` context ("MainWindow"), where their translations live.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from jitlab.gui import i18n
from jitlab.gui.i18n import translate


class Commands(Protocol):
    """What the menus ask of the window (the window is one; this module never imports it)."""

    def open_recording(self) -> None: ...
    def export_png(self, path: Path | None = None) -> Path | None: ...
    def export_csv(self, path: Path | None = None) -> Path | None: ...
    def export_json(self, path: Path | None = None) -> Path | None: ...
    def start_autoplay(self) -> None: ...
    def show_quiz(self, scenario: str | None = None, interview: bool = False) -> None: ...
    def set_scenario_list_visible(self, visible: bool) -> None: ...
    def set_language(self, lang: str) -> None: ...
    def about(self) -> None: ...


@dataclass(frozen=True)
class Menus:
    """The menu bar's menus and actions (titled by :meth:`retranslate`)."""

    file_menu: QMenu
    run_menu: QMenu
    view_menu: QMenu
    lang_menu: QMenu
    help_menu: QMenu
    lang_actions: dict[str, QAction]
    act_open: QAction
    act_png: QAction
    act_csv: QAction
    act_json: QAction
    act_quit: QAction
    act_autoplay: QAction
    act_quiz: QAction
    act_interview: QAction
    act_scenarios: QAction
    act_about: QAction

    def retranslate(self) -> None:
        """The menus' titles, actions and tips in the interface language."""
        self.file_menu.setTitle(translate("MainWindow", "&File"))
        self.act_open.setText(translate("MainWindow", "Open recording…"))
        self.act_open.setToolTip(
            translate("MainWindow", "Open a recording made by `jitlab watch` (Ctrl+O).")
        )
        self.act_quiz.setText(translate("MainWindow", "Test yourself: predict, then run"))
        self.act_interview.setText(translate("MainWindow", "Interview round (timed)"))
        self.act_png.setText(translate("MainWindow", "Export chart as PNG…"))
        self.act_csv.setText(translate("MainWindow", "Export call log as CSV…"))
        self.act_json.setText(translate("MainWindow", "Export call log as JSON…"))
        self.act_quit.setText(translate("MainWindow", "Quit"))
        self.run_menu.setTitle(translate("MainWindow", "&Run"))
        self.act_autoplay.setText(translate("MainWindow", "Play the demo hands-free"))
        self.lang_menu.setTitle(translate("MainWindow", "&Language"))
        self.help_menu.setTitle(translate("MainWindow", "&Help"))
        self.view_menu.setTitle(translate("MainWindow", "&View"))
        self.act_scenarios.setText(translate("MainWindow", "Scenario list"))
        self.act_scenarios.setToolTip(scenario_list_tip())
        self.act_about.setText(translate("MainWindow", "About jitlab"))


def scenario_list_tip() -> str:
    """The tip of both scenario-list toggles (the View menu's and the mode bar's ☰)."""
    return translate("MainWindow", "Show or fold away the list of scenarios (Ctrl+B).")


def _action(window: QMainWindow, menu: QMenu, shortcut: QKeySequence | None = None) -> QAction:
    act = QAction(window)
    if shortcut is not None:
        act.setShortcut(shortcut)
    menu.addAction(act)
    return act


def build_menus(window: QMainWindow, commands: Commands) -> Menus:
    """``window``'s menu bar, each action wired to its command in ``commands`` (the window
    itself, passed twice: as the Qt window that holds the bar, and as what the actions do)."""
    bar = window.menuBar()
    file_menu = bar.addMenu("")
    act_open = _action(window, file_menu, QKeySequence(QKeySequence.StandardKey.Open))
    act_open.triggered.connect(commands.open_recording)
    file_menu.addSeparator()
    act_png = _action(window, file_menu)
    act_png.triggered.connect(lambda: commands.export_png())
    act_csv = _action(window, file_menu)
    act_csv.triggered.connect(lambda: commands.export_csv())
    act_json = _action(window, file_menu, QKeySequence("Ctrl+E"))
    act_json.triggered.connect(lambda: commands.export_json())
    file_menu.addSeparator()
    act_quit = _action(window, file_menu, QKeySequence(QKeySequence.StandardKey.Quit))
    act_quit.triggered.connect(window.close)
    run_menu = bar.addMenu("")
    act_autoplay = _action(window, run_menu, QKeySequence("Ctrl+P"))
    act_autoplay.triggered.connect(commands.start_autoplay)
    act_quiz = _action(window, run_menu, QKeySequence("Ctrl+T"))
    act_quiz.triggered.connect(lambda: commands.show_quiz())
    act_interview = _action(window, run_menu)
    act_interview.triggered.connect(lambda: commands.show_quiz(interview=True))
    view_menu = bar.addMenu("")
    act_scenarios = _action(window, view_menu, QKeySequence("Ctrl+B"))
    act_scenarios.setCheckable(True)
    act_scenarios.setChecked(True)
    act_scenarios.toggled.connect(commands.set_scenario_list_visible)
    lang_menu, lang_actions = i18n.language_menu(window, commands.set_language)
    help_menu = bar.addMenu("")
    act_about = _action(window, help_menu)
    act_about.triggered.connect(commands.about)
    return Menus(
        file_menu=file_menu,
        run_menu=run_menu,
        view_menu=view_menu,
        lang_menu=lang_menu,
        help_menu=help_menu,
        lang_actions=lang_actions,
        act_open=act_open,
        act_png=act_png,
        act_csv=act_csv,
        act_json=act_json,
        act_quit=act_quit,
        act_autoplay=act_autoplay,
        act_quiz=act_quiz,
        act_interview=act_interview,
        act_scenarios=act_scenarios,
        act_about=act_about,
    )
