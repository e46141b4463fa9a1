"""The lab window's menu bar: File, Run, View, Language and Help, wired to its commands.

The words keep the window's ``tr`` context ("MainWindow"), where their translations live.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence

from jitlab.gui import i18n
from jitlab.gui.i18n import translate

if TYPE_CHECKING:
    from jitlab.gui.lesson.window import MainWindow


def build_menus(window: MainWindow) -> None:
    """Sets the window's ``*_menu`` and ``act_*`` attributes (titled by :func:`retranslate`)."""
    bar = window.menuBar()
    window.file_menu = bar.addMenu("")
    window.act_open = QAction(window)
    window.act_open.setShortcut(QKeySequence.StandardKey.Open)
    window.act_open.triggered.connect(window.open_recording)
    window.file_menu.addAction(window.act_open)
    window.file_menu.addSeparator()
    window.act_png = QAction(window)
    window.act_png.triggered.connect(lambda: window.export_png())
    window.act_csv = QAction(window)
    window.act_csv.triggered.connect(lambda: window.export_csv())
    window.act_json = QAction(window)
    window.act_json.setShortcut(QKeySequence("Ctrl+E"))
    window.act_json.triggered.connect(lambda: window.export_json())
    window.act_quit = QAction(window)
    window.act_quit.setShortcut(QKeySequence.StandardKey.Quit)
    window.act_quit.triggered.connect(window.close)
    for act in (window.act_png, window.act_csv, window.act_json):
        window.file_menu.addAction(act)
    window.file_menu.addSeparator()
    window.file_menu.addAction(window.act_quit)
    window.run_menu = bar.addMenu("")
    window.act_autoplay = QAction(window)
    window.act_autoplay.setShortcut(QKeySequence("Ctrl+P"))
    window.act_autoplay.triggered.connect(window.start_autoplay)
    window.run_menu.addAction(window.act_autoplay)
    window.act_quiz = QAction(window)
    window.act_quiz.setShortcut(QKeySequence("Ctrl+T"))
    window.act_quiz.triggered.connect(lambda: window.show_quiz())
    window.run_menu.addAction(window.act_quiz)
    window.act_interview = QAction(window)
    window.act_interview.triggered.connect(lambda: window.show_quiz(interview=True))
    window.run_menu.addAction(window.act_interview)
    window.view_menu = bar.addMenu("")
    window.act_scenarios = QAction(window)
    window.act_scenarios.setCheckable(True)
    window.act_scenarios.setChecked(True)
    window.act_scenarios.setShortcut(QKeySequence("Ctrl+B"))
    window.act_scenarios.toggled.connect(window.set_scenario_list_visible)
    window.view_menu.addAction(window.act_scenarios)
    i18n.add_language_menu(window, window.set_language)
    window.help_menu = bar.addMenu("")
    window.act_about = QAction(window)
    window.act_about.triggered.connect(window.about)
    window.help_menu.addAction(window.act_about)


def retranslate(window: MainWindow) -> None:
    """The menus' titles, actions and tips in the interface language."""
    window.file_menu.setTitle(translate("MainWindow", "&File"))
    window.act_open.setText(translate("MainWindow", "Open recording…"))
    window.act_open.setToolTip(
        translate("MainWindow", "Open a recording made by `jitlab watch` (Ctrl+O).")
    )
    window.act_quiz.setText(translate("MainWindow", "Test yourself: predict, then run"))
    window.act_interview.setText(translate("MainWindow", "Interview round (timed)"))
    window.act_png.setText(translate("MainWindow", "Export chart as PNG…"))
    window.act_csv.setText(translate("MainWindow", "Export call log as CSV…"))
    window.act_json.setText(translate("MainWindow", "Export call log as JSON…"))
    window.act_quit.setText(translate("MainWindow", "Quit"))
    window.run_menu.setTitle(translate("MainWindow", "&Run"))
    window.act_autoplay.setText(translate("MainWindow", "Play the demo hands-free"))
    window.lang_menu.setTitle(translate("MainWindow", "&Language"))
    window.help_menu.setTitle(translate("MainWindow", "&Help"))
    window.view_menu.setTitle(translate("MainWindow", "&View"))
    window.act_scenarios.setText(translate("MainWindow", "Scenario list"))
    tip = translate("MainWindow", "Show or fold away the list of scenarios (Ctrl+B).")
    window.act_scenarios.setToolTip(tip)
    window.list_button.setToolTip(tip)
    window.act_about.setText(translate("MainWindow", "About jitlab"))
