"""The main window: layout, the four modes, the worker's commands, and the frame loop.

Everything the worker reports arrives through one queue, drained by a timer at most 60 times
a second into the run-state model (:mod:`jitlab.gui.views.model`), which then tells the views that
subscribed to it what changed; each view decides how often it paints. The demo lives in
:mod:`jitlab.gui.lesson.autoplay`, the exports in :mod:`jitlab.gui.views.export`, the menus in
:mod:`jitlab.gui.lesson.menus`, the scenario list in :mod:`jitlab.gui.lesson.scenario_list`.

Over 500 lines: one window's wiring that shares its state (mode, worker, stuck-call watch);
the stuck-call limits stay module constants here, where the fault tests tune them.
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path
from typing import Any, assert_never

from PySide6.QtCore import QByteArray, QEventLoop, QSettings, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)
from superqt.utils import signals_blocked

from jitlab.gui import geometry, i18n
from jitlab.gui.executor import Discovered, Executor, Idle, RunReady, WorkerFailed
from jitlab.gui.i18n import Retranslating
from jitlab.gui.lesson import menus, scenario_list
from jitlab.gui.lesson.autoplay import Autoplay
from jitlab.gui.lesson.code_view import CodeView
from jitlab.gui.lesson.controls import ParamControls, RunControls
from jitlab.gui.lesson.error_view import ErrorView
from jitlab.gui.lesson.lesson_panel import LessonPanel
from jitlab.gui.lesson.monitor_view import MonitorView
from jitlab.gui.lesson.output_view import OutputView
from jitlab.gui.lesson.summary_page import SummaryPage
from jitlab.gui.scripts.book import ScriptBook
from jitlab.gui.scripts.lessons import LessonScripts
from jitlab.gui.views import export
from jitlab.gui.views.chart import ChartView
from jitlab.gui.views.kitchen import KitchenPanel
from jitlab.gui.views.log_view import LogView
from jitlab.gui.views.model import Change, Phase, RunState
from jitlab.lab import manifest
from jitlab.lab.events import CallFinished, CallStarted, PhaseEnded
from jitlab.lab.manifest import is_stand_in
from jitlab.lab.spec import Scenario

DEFAULT_SCENARIO = "dynamic-shapes"
FRAME_MS = 16  # ≤ 60 Hz
MODES = ("start", "execute", "monitor", "complete")
STUCK_S = 1.0  # a call this old does not hold up Pause, Reset or a switch: it is abandoned
SLOW_CALL_S = 2.0  # from here on the status bar counts the seconds of the call in flight
CLOSE_GRACE_S = 3.0  # closing: how long a call in flight is waited for before it is left
COMPILE_GRACE_S = 10.0  # …and while XLA compiles (real work that ends: a clean exit is better)
JOB_STUCK_S = 3.0  # a job (a quiz check) that made no progress this long is abandoned too…
JOB_COMPILE_S = 30.0  # …and one inside a compile this long (a check compiles for seconds)
# Widths that let the window work at 1024×640 (tests/gui/test_small_screens.py).
SCENARIO_LIST_MIN_W = 150
LEFT_MIN_W = 250
LEFT_MAX_W = 380
CHART_MIN_PLOT = 160  # the chart's plot keeps this many px, an error's pane beside it


class MainWindow(Retranslating, QMainWindow):
    """jitlab's window. Owns the worker thread and stops it (waiting) when it closes."""

    scenarios_loaded = Signal()
    frame_rendered = Signal()
    # The menus and their actions (built by jitlab.gui.lesson.menus).
    file_menu: QMenu
    run_menu: QMenu
    view_menu: QMenu
    help_menu: QMenu
    lang_menu: QMenu
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

    def __init__(
        self,
        settings: QSettings,
        scenario: str | None = None,
        variant: str | None = None,
        autoplay: bool = False,
        scenarios_dir: Path | None = None,
        entry_points: bool = True,
    ) -> None:
        super().__init__()
        self.setObjectName("jitlabMain")
        self.settings = settings
        self.requested = scenario
        self.requested_variant = variant
        self.autoplay_requested = autoplay
        self.entries: list[Any] = []  # jitlab.lab.discovery.PluginEntry
        # Listed at once from the built-ins' manifest; replaced when discovery (JAX) ends.
        self.listed = manifest.listed(scenarios_dir)
        self.scenario: type[Scenario] | None = None
        self.mode = "start"
        self.state = RunState()
        self._closing = False
        self._quiz: Any = None  # the exercises view, built on first use
        self._shown_output = False
        self._room_given = False  # the bottom pane took room for an error (or the diff)
        # What Pause, Reset or a switch waits on: (("call", start) or ("job", token), pause)
        self._unstick: tuple[tuple[str, float], bool] | None = None
        self._job_progress = 0.0  # a watched job was last seen compiling (or began) then
        self._slow_shown = 0
        self.close_grace_s = CLOSE_GRACE_S
        self.compile_grace_s = COMPILE_GRACE_S

        # JAX and the scenarios load on the executor, started by the first frame: importing
        # JAX holds the GIL for long stretches, so the window is built and shown first.
        self.worker = Executor(scenarios_dir, entry_points)
        self._build()
        self.timer = QTimer(self)
        self.timer.setInterval(FRAME_MS)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(self.drain)
        self._restore_geometry()
        self._show_early_question()
        self.retranslate()
        self.timer.start()
        hints = QApplication.styleHints()
        if hints is not None:
            hints.colorSchemeChanged.connect(self._scheme_changed)

    # -- construction ---------------------------------------------------------------------
    def _build(self) -> None:
        self.scenario_list = QTreeWidget(self)
        self.scenario_list.setObjectName("scenarioList")
        self.scenario_list.setHeaderHidden(True)
        self.scenario_list.setIconSize(QSize(24, 24))
        self.scenario_list.setMinimumWidth(SCENARIO_LIST_MIN_W)  # titles elide; it can fold away
        self.scenario_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.scenario_list.itemActivated.connect(self._picked)
        self.scenario_list.itemClicked.connect(self._picked)

        # mode bar
        self.mode_buttons: dict[str, QPushButton] = {}
        self.mode_group = QButtonGroup(self)
        mode_bar = QHBoxLayout()
        self.list_button = QToolButton(self)  # folds the scenario list away (Ctrl+B)
        self.list_button.setObjectName("scenarioListToggle")
        self.list_button.setCheckable(True)
        self.list_button.setChecked(True)
        self.list_button.setText("☰")
        self.list_button.toggled.connect(self.set_scenario_list_visible)
        mode_bar.addWidget(self.list_button)
        for i, mode in enumerate(MODES):
            button = QPushButton(self)
            button.setObjectName(f"mode_{mode}")
            button.setCheckable(True)
            button.setShortcut(QKeySequence(f"Alt+{i + 1}"))
            button.clicked.connect(lambda _=False, m=mode: self.go_to(m))
            self.mode_group.addButton(button)
            self.mode_buttons[mode] = button
            mode_bar.addWidget(button)
        self.autoplay_note = QLabel(self)
        self.autoplay_note.setObjectName("autoplayNote")
        self.autoplay_note.setWordWrap(True)
        # Long demo notes wrap and never widen the window.
        self.autoplay_note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        mode_bar.addWidget(self.autoplay_note, 1)

        # pages: one lab screen for Start, Execute and Monitor, then the summary
        self.briefing = LessonPanel(self.state, self)  # the question, story and answer
        self.briefing.start_clicked.connect(self._start_cooking)
        self.briefing.answer_toggled.connect(self._answer_toggled)
        self.briefing.fix_code_clicked.connect(self.show_fix_code)
        self.params = ParamControls(self)
        self.params.changed.connect(self._params_changed)
        self.run_controls = RunControls(self)
        self.run_controls.variant_changed.connect(self._variant_changed)
        self.run_controls.play_toggled.connect(self._play)
        self.run_controls.step_clicked.connect(self.step)
        self.run_controls.reset_clicked.connect(self.reset)
        self.run_controls.rate_changed.connect(self.worker_rate)
        self.run_controls.bind(self.state)  # variant names stay neutral until they have run
        # The views: each subscribes to the run model and paints at its own pace.
        self.kitchen = KitchenPanel(self.state, self)
        # Each card opens the program JAX compiled for it, made on the executor (issue 13).
        self.scripts = ScriptBook(self.state, self.worker, self)
        self.kitchen.canvas.card_clicked.connect(self.scripts.open)
        self.kitchen.canvas.card_menu.connect(self.scripts.card_menu)
        # The lesson's scripts (its ScriptLesson's cards), kept across variant switches.
        self.lesson_scripts = LessonScripts(self.state, self.scripts, self)
        self.lesson_scripts.changed.connect(self.briefing.refresh_scripts)
        self.briefing.scripts_status_of = self.lesson_scripts.status
        self.briefing.scripts_clicked.connect(self.lesson_scripts.open)
        self.chart = ChartView(self)
        self.chart.bind(self.state)
        self.chart.script_requested.connect(self.scripts.open_record)
        self.chart.name_of = self.run_controls.variant_name  # a run's line names its variant
        self.chart.next_step.connect(self._next_step)
        # A row or a button appeared above the plot: the plot keeps its height (once laid out).
        # (self as the timer's context: no call once the window is gone)
        self.chart.chrome_changed.connect(lambda: QTimer.singleShot(0, self, self._guard_chart))
        # Its legend row wraps on a narrow screen instead of widening the window.
        self.chart.legend.setWordWrap(True)
        self.run_controls.overlay_toggled.connect(self.chart.set_overlay)
        self.log = LogView(self)
        self.log.bind(self.state)
        self.log.script_requested.connect(self.scripts.open_record)
        self.output = OutputView(self)
        self.output.bind(self.state)
        self.error_view = ErrorView(self)
        self.error_view.bind(self.state)
        self.code = CodeView(self)
        self.bottom = QTabWidget(self)
        self.bottom.setObjectName("bottomTabs")
        for widget in (self.log, self.output, self.error_view, self.code):
            self.bottom.addTab(widget, "")
        self._answer_toggled(False)  # the fix's diff is part of the answer
        self.monitor = MonitorView(self.state, self)  # Monitor mode's own job
        self.monitor.name_of = self.run_controls.variant_name  # its runs, named as the picker

        # The left column, in the order a learner thinks: question, sliders, run, story, answer.
        self.briefing.controls.addWidget(self.params)
        self.briefing.controls.addWidget(self.run_controls)
        self.briefing.setMinimumWidth(LEFT_MIN_W)
        self.briefing.setMaximumWidth(LEFT_MAX_W)
        self.right_split = QSplitter(Qt.Orientation.Vertical, self)
        self.right_split.addWidget(self.monitor)
        self.right_split.addWidget(self.kitchen)
        self.right_split.addWidget(self.chart)
        self.right_split.addWidget(self.bottom)
        self.right_split.setChildrenCollapsible(False)
        self.monitor.hide()
        lab = QWidget(self)
        lab_layout = QHBoxLayout(lab)
        lab_layout.setContentsMargins(0, 0, 0, 0)
        lab_layout.addWidget(self.briefing)
        lab_layout.addWidget(self.right_split, 1)
        self.summary = SummaryPage(self.state, self)
        self.summary.measure_clicked.connect(self.measure_both)
        self.summary.back_clicked.connect(lambda: self.set_mode("execute"))
        self.summary.quiz_clicked.connect(
            lambda: self.show_quiz(self.scenario.id if self.scenario else None)
        )
        self.summary.export_png.connect(lambda: self.export_png())
        self.summary.export_csv.connect(lambda: self.export_csv())
        self.summary.export_json.connect(lambda: self.export_json())
        self.pages = QStackedWidget(self)
        self.pages.addWidget(lab)
        self.pages.addWidget(self.summary)
        self.lab_page = lab

        center = QWidget(self)
        center_layout = QVBoxLayout(center)
        center_layout.setContentsMargins(6, 6, 6, 6)
        center_layout.addLayout(mode_bar)
        center_layout.addWidget(self.pages, 1)
        self.main_split = QSplitter(Qt.Orientation.Horizontal, self)
        self.main_split.setObjectName("mainSplit")
        self.main_split.addWidget(self.scenario_list)
        self.main_split.addWidget(center)
        self.main_split.setStretchFactor(1, 1)
        self.main_split.setCollapsible(0, True)  # the list folds away while cooking
        self.main_split.setCollapsible(1, False)
        self.main_split.setSizes([260, 1200])
        self.main_split.splitterMoved.connect(self._split_moved)
        self.setCentralWidget(self.main_split)
        self.status_label = QLabel(self)
        self.status_label.setObjectName("workerStatus")
        self.statusBar().addWidget(self.status_label, 1)
        self.state.subscribe(self._follow_panes)
        self.state.subscribe(lambda _change: self._update_status())
        self.autoplay = Autoplay(self, self.state, self)
        self.autoplay.note_changed.connect(self.autoplay_note.setText)
        menus.build_menus(self)
        self.set_mode("start")

    # -- language -------------------------------------------------------------------------
    def set_language(self, lang: str) -> None:
        """Switch the interface at runtime; every widget re-labels on LanguageChange."""
        i18n.set_language(lang)
        self.settings.setValue("language", i18n.language())
        self.lang_actions[i18n.language()].setChecked(True)

    def retranslate(self) -> None:
        names = {
            "start": self.tr("① Start"),
            "execute": self.tr("② Execute"),
            "monitor": self.tr("③ Monitor"),
            "complete": self.tr("④ Complete"),
        }
        tips = {
            "start": self.tr("The question: predict what jit will do, then start cooking (Alt+1)."),
            "execute": self.tr("Make calls and watch the kitchen work (Alt+2)."),
            "monitor": self.tr(
                "Study what compiled: the signature ledger and where the compile time went (Alt+3)."
            ),
            "complete": self.tr("Summary: fix vs pitfall side by side, and export (Alt+4)."),
        }
        for mode, button in self.mode_buttons.items():
            button.setText(names[mode])
            button.setToolTip(tips[mode])
        for i, text in enumerate(
            (self.tr("Call log"), self.tr("Output"), self.tr("Error"), self.tr("Code"))
        ):
            self.bottom.setTabText(i, text)
        self.bottom.setTabToolTip(0, self.tr("One row per call, filterable by kind."))
        self.bottom.setTabToolTip(1, self.tr("What the calls printed, trace time vs runtime."))
        self.bottom.setTabToolTip(2, self.tr("The last error a call raised."))
        self.bottom.setTabToolTip(3, self.tr("The code that runs, and the fix as a diff."))
        self.scenario_list.setToolTip(
            self.tr("Scenarios, grouped by pitfall. Greyed ones failed to load: hover for why.")
        )
        menus.retranslate(self)
        self._fill_scenarios()
        self._update_title()
        self._update_status()
        self.briefing.fit_width(LEFT_MIN_W, LEFT_MAX_W)  # the labels' widths change too

    def _update_title(self) -> None:
        name = self.scenario.title.get(i18n.language()) if self.scenario else ""
        self.setWindowTitle(f"jitlab — {name}" if name else "jitlab")

    def about(self) -> None:
        """Help > About: what jitlab is for."""
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.about(
            self,
            self.tr("About jitlab"),
            self.tr(
                "jitlab shows, call by call, what jax.jit really does: trace, compile, cache "
                "hit, recompile, why, and what it costs."
            ),
        )

    # -- scenarios ------------------------------------------------------------------------
    def _fill_scenarios(self) -> None:
        current = self.scenario.id if self.scenario is not None else None
        scenario_list.fill(
            self.scenario_list, self.entries or self.listed, current, i18n.language()
        )

    def _picked(self, item: QTreeWidgetItem, column: int = 0) -> None:
        sid = item.data(0, Qt.ItemDataRole.UserRole)
        if sid == scenario_list.QUIZ:
            self.show_quiz()
        elif sid and (self.scenario is None or sid != self.scenario.id):
            self.select_scenario(sid)
        elif sid and self.pages.currentWidget() is self._quiz:
            self.set_mode("start")

    # -- exercises and recordings ---------------------------------------------------------
    def show_quiz(self, scenario: str | None = None, interview: bool = False) -> None:
        """The predict-then-run exercises, in the central area (created on first use)."""
        if self._quiz is None:
            from jitlab.gui.quiz.view import QuizView

            self._quiz = QuizView(executor=self.worker, parent=self)
            self._quiz.scenario_requested.connect(self._quiz_opens_scenario)
            self.pages.addWidget(self._quiz)
        self.stop_autoplay()
        self.run_controls.set_playing(False)  # a check pauses the scenario's worker
        # …and must not wait behind a call that never returns (its own jobs it waits for)
        self._unstick_later(pause=True, jobs=False)
        self.mode_group.setExclusive(False)  # no mode is current while practising
        for button in self.mode_buttons.values():
            button.setChecked(False)
        self.mode_group.setExclusive(True)
        self.pages.setCurrentWidget(self._quiz)
        if interview:
            self._quiz.show_interview()
        else:
            self._quiz.show_exercises(scenario)

    def _quiz_opens_scenario(self, sid: str, variant: str) -> None:
        self.select_scenario(sid, variant or None)
        self.set_mode("start")

    def open_recording(self) -> None:
        from jitlab.gui.recording.window import choose_recording

        choose_recording(self)

    def scenario_ids(self) -> list[str]:
        return [e.scenario.id for e in self.entries if e.scenario is not None]

    def select_scenario(self, sid: str, variant: str | None = None) -> None:
        """Open a scenario: new run on the worker, controls and texts rebuilt, Start mode."""
        cls = next((e.scenario for e in self.entries if e.scenario and e.scenario.id == sid), None)
        if cls is None:
            if not self.entries:  # picked from the early list: opens when discovery ends
                self.requested, self.requested_variant = sid, variant
                self._show_early_question()  # its lesson (or question) meanwhile
            return
        if is_stand_in(self.scenario) and self.scenario.id == sid:
            self._adopt(cls)  # shown early: keep what the learner set and asked for
            return
        self._open(cls, variant)

    def _open(self, cls: type[Scenario], variant: str | None) -> None:
        """Build the lesson screen of ``cls`` (a discovered class, or the manifest's stand-in
        before JAX has loaded) and give the worker its new run."""
        self.stop_autoplay()
        self.run_controls.set_playing(False)
        self.scenario = cls
        chosen = variant if variant is not None and variant in cls.variant_ids() else "pitfall"
        self.state.clear(cls.id, chosen)  # the views forget the old run when notified below
        self._shown_output = False
        self.bottom.setCurrentWidget(self.log)
        self.params.build(cls.params, cls.defaults())
        self.params.show_for(chosen)
        self.params.setVisible(True)
        self.run_controls.setVisible(True)
        self.run_controls.set_variants(cls.variants, chosen)
        self.code.show_scenario(cls, chosen)
        self.lesson_scripts.show_scenario(cls)
        self.briefing.show_scenario(cls)
        self.briefing.fit_width(LEFT_MIN_W, LEFT_MAX_W)  # its sliders and buttons, uncut
        self.summary.show_scenario(cls)
        self.worker.select(cls, chosen, self.params.values())
        self._unstick_later()
        self.settings.setValue("last_scenario", cls.id)
        self._fill_scenarios()
        self._update_title()
        self.set_mode("start")
        self.state.notify()

    def _adopt(self, cls: type[Scenario]) -> None:
        """Discovery found the class of the lesson built early from the manifest: it takes
        the stand-in's place. The sliders' values, the variant, the prediction and the calls
        asked for meanwhile are kept (the worker swapped the stand-in for it too, and makes
        those calls after the JAX contract check)."""
        self.scenario = cls
        self.code.show_scenario(cls, self.run_controls.current_variant())
        self.lesson_scripts.show_scenario(cls)
        self.briefing.show_scenario(cls)
        self.summary.show_scenario(cls)
        self._update_title()
        if self.pages.currentWidget() is self.lab_page and not self._room_given:
            self._lay_out()  # the first layout ran before the window had its size

    # -- commands to the worker -----------------------------------------------------------
    def _params_changed(self, values: dict[str, Any]) -> None:
        if self.mode == "start":
            self.set_mode("execute")  # the first slider move starts the cooking
        self.worker.set_params(values, call=True)
        self._update_status()  # before JAX: "preparing JAX…"

    def _variant_changed(self, variant: str) -> None:
        self.params.show_for(variant)
        if self.scenario is not None:
            self.code.show_scenario(self.scenario, variant)
        self.worker.set_variant(variant)

    def set_variant(self, variant: str) -> None:
        self.run_controls.select_variant(variant)
        self._variant_changed(variant)

    def _play(self, playing: bool) -> None:
        if playing and self.mode in ("start", "complete"):
            self.set_mode("execute")
        self.worker.play(playing, self.run_controls.rate_value())
        self._update_status()
        if not playing:
            self._unstick_later(pause=True)

    def worker_rate(self, rate: float) -> None:
        self.worker.set_rate(rate)

    def step(self) -> None:
        if self.mode in ("start", "complete"):
            self.set_mode("execute")
        self.worker.step()
        self._update_status()

    def reset(self) -> None:
        self.worker.reset()
        self._unstick_later()

    def _unstick_later(self, pause: bool = False, jobs: bool = True) -> None:
        """Pause, Reset, another scenario or leaving the exercises: a call or a job (a quiz
        check) that does not return must not hold them up. Checked every frame
        (:meth:`_check_stuck`); what returns in time is kept."""
        worker = self.worker
        token = worker.job_in_flight
        if worker.busy:
            key = ("call", worker.call_started)
        elif token is not None and jobs:
            key = ("job", float(token))
            if self._unstick is None or self._unstick[0] != key:
                self._job_progress = worker.job_started
        else:
            return
        pause = pause and (self._unstick is None or self._unstick[1])
        self._unstick = (key, pause)

    def _check_stuck(self) -> None:
        if self._unstick is None:
            return
        (what, started), pause = self._unstick
        worker = self.worker
        now = time.perf_counter()
        if what == "job":
            if worker.job_in_flight is None or float(worker.job_in_flight) != started:
                self._unstick = None  # it returned
            elif worker.job_compiling():  # real work that ends: a longer limit
                self._job_progress = now
                if now - worker.job_started >= JOB_COMPILE_S:
                    self.abandon_job()
            elif now - max(self._job_progress, worker.job_started) >= JOB_STUCK_S:
                self.abandon_job()
            return
        if not worker.busy or worker.call_started != started:
            self._unstick = None  # it returned
            return
        age = now - started
        if age < STUCK_S or (pause and self.state.phase is Phase.WRITING):
            return  # young, or a compile that Pause does not need to stop (it will end)
        self.abandon_call(age)

    def abandon_call(self, seconds: float) -> None:
        """Leave the call in flight behind (a thread cannot be killed) with its thread; a
        fresh worker takes the commands and starts a new run."""
        self._take_over()
        self.state.call_abandoned(seconds)

    def abandon_job(self) -> None:
        """Leave the job in flight behind with its thread (it reads ``ABANDONED``); a fresh
        worker takes the queue and the scenario's commands and starts a new run."""
        self._take_over()

    def _take_over(self) -> None:
        self._unstick = None
        self.worker = self.worker.successor()
        self.worker.start()
        if self._quiz is not None:  # the quiz submits to *this* worker (it follows anyway)
            self._quiz.runner.scenario_worker = self.worker

    # -- modes ----------------------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        """Start, Execute, Monitor and Complete; the user can always jump back."""
        if self._quiz is not None and self.pages.currentWidget() is self._quiz:
            self._unstick_later()  # leaving the exercises: a stuck check must not hold on
        self.mode = mode
        self.mode_buttons[mode].setChecked(True)
        if mode == "complete":
            self.summary.prediction_text = self.briefing.prediction.text().strip()
            self.summary.refresh()
            self.pages.setCurrentWidget(self.summary)
            return
        # Start, Execute and Monitor are one screen: the question, the sliders, the kitchen
        # and the chart together. Start puts the question forward; Monitor swaps the
        # kitchen for the signature ledger and the phase timeline.
        self.briefing.set_stage(mode)
        monitoring = mode == "monitor"
        self.monitor.setVisible(monitoring)
        self.kitchen.setVisible(not monitoring)
        self.pages.setCurrentWidget(self.lab_page)
        if monitoring:
            self.monitor.refresh()
        self._lay_out()

    def _lay_out(self) -> None:
        """The lab column's usual shares for this mode (the room an error took, given back);
        the chart's plot never under ``CHART_MIN_PLOT`` pixels."""
        self._room_given = False
        total = max(self.right_split.height(), 400)
        if self.mode == "monitor":
            sizes = [int(total * 0.45), 0, int(total * 0.3), int(total * 0.25)]
        else:
            # The kitchen gets what its picture needs at this width, no band of empty wall.
            kitchen = self.kitchen.canvas.heightForWidth(max(self.right_split.width(), 400) - 8)
            kitchen = min(kitchen + 85, int(total * 0.5))
            rest = total - kitchen
            sizes = [0, kitchen, int(rest * 0.6), int(rest * 0.4)]
        self.right_split.setSizes(self._keep_chart(sizes, (3, 1, 0)))

    def _guard_chart(self) -> None:
        """The chart's pane grew taller above its plot: take what the plot lost from the
        kitchen and the bottom pane (down to their minimums)."""
        if self.pages.currentWidget() is not self.lab_page or self._closing:
            return
        sizes = self.right_split.sizes()
        if sum(sizes) <= 0:
            return
        order = (1, 0, 3) if self._room_given else (3, 1, 0)  # an error's pane gives last
        kept = self._keep_chart(list(sizes), order)
        if kept != sizes:
            self.right_split.setSizes(kept)

    def _keep_chart(self, sizes: list[int], order: tuple[int, ...]) -> list[int]:
        """``sizes`` with the chart's pane tall enough for a plot of ``CHART_MIN_PLOT`` px,
        taken from the panes in ``order`` down to their own minimums."""
        need = self.chart.pane_height_for(CHART_MIN_PLOT) - sizes[2]
        panes = (self.monitor, self.kitchen, self.chart, self.bottom)
        for i in order:
            if need <= 0:
                break
            if sizes[i] == 0:
                continue
            give = max(0, min(need, sizes[i] - panes[i].minimumSizeHint().height()))
            sizes[i] -= give
            sizes[2] += give
            need -= give
        return sizes

    def _next_step(self, step: str) -> None:
        """The chart's "Now try the fix →" (then "Compare →"): the lesson's next step."""
        if step == "fix":
            self.run_controls.choose_variant("fix")
            self.run_controls.step.setFocus()
        elif step == "complete":  # Complete as its mode button goes there (when it can)
            self.go_to("complete")

    def _start_cooking(self) -> None:
        """The question is answered (or skipped): on to the kitchen, slider in hand."""
        self.set_mode("execute")
        first = next((w for w in self.params.widgets.values() if not w.isHidden()), None)
        (first or self.run_controls.step).setFocus()

    def _answer_toggled(self, shown: bool) -> None:
        """The fix's diff belongs to the answer: its tab shows only while the answer is open."""
        tabs = self.code.tabs
        tabs.setTabVisible(tabs.indexOf(self.code.diff), shown)
        if not shown and tabs.currentWidget() is self.code.diff:
            tabs.setCurrentWidget(self.code.code)

    def show_fix_code(self) -> None:
        """The answer's "see the fix as code": the diff, in the bottom pane."""
        if self.briefing.answer_shown:
            self.bottom.setCurrentWidget(self.code)
            self.code.tabs.setCurrentWidget(self.code.diff)
            self.give_bottom_room(0.55)

    # -- the scenario list ------------------------------------------------------------------
    def set_scenario_list_visible(self, visible: bool) -> None:
        """Fold the scenario list away (more room for the lab) or bring it back; saved."""
        for control in (self.act_scenarios, self.list_button):
            if control.isChecked() != visible:
                with signals_blocked(control):
                    control.setChecked(visible)
        self.scenario_list.setHidden(not visible)
        if visible and self.main_split.sizes()[0] == 0:  # dragged shut before: open it again
            width = max(SCENARIO_LIST_MIN_W, 240)
            self.main_split.setSizes([width, max(1, self.main_split.width() - width)])
        self.settings.setValue("scenario_list", visible)

    def _first_split(self) -> None:
        width = self.main_split.width()
        if width > 0 and not self.scenario_list.isHidden():
            side = min(240, max(SCENARIO_LIST_MIN_W, width // 5))
            self.main_split.setSizes([side, width - side])

    def _split_moved(self, *_: Any) -> None:
        if self.main_split.sizes()[0] == 0 and not self.scenario_list.isHidden():
            self.set_scenario_list_visible(False)  # dragged shut: the toggle says so

    # -- the frame loop -------------------------------------------------------------------
    def drain(self) -> None:
        """Take everything the worker queued since the last frame into the model, then tell
        the views once (each decides how often it paints: see their ``bind``)."""
        if not self.worker.isRunning() and not self.worker.isFinished() and not self._closing:
            self.worker.start()  # the first frame: the window is up
        events = self.worker.events
        while events:
            match events.popleft():
                case CallStarted() | PhaseEnded() as event:
                    self.state.apply(event)
                case CallFinished() as event:
                    self.state.apply(event)
                    if len(self.state.records) % 5000 == 0:
                        gc.freeze()  # records are kept for good: keep collections short
                case RunReady(scenario=sid, reason=reason, variant=variant) if (
                    reason != "scenario"
                    or (sid == self.state.scenario != "" and variant != self.state.variant)
                ):  # (a new run in a variant switched to before it began: that variant's)
                    self.state.new_segment(variant)
                    self.run_controls.select_variant(variant)
                case Discovered(entries=entries):
                    self._discovered(entries)
                case WorkerFailed(text=text):
                    self.state.failed(text)
                case RunReady() | Idle():
                    pass
                case unhandled:  # mypy proves this unreachable: every Message kind is above
                    assert_never(unhandled)
        self._check_stuck()
        if self.state.in_flight is not None:
            elapsed = time.perf_counter() - self.state.started_at
            self.state.tick(elapsed)
            if elapsed >= SLOW_CALL_S and int(elapsed) != self._slow_shown:
                self._slow_shown = int(elapsed)  # the status bar counts the seconds
                self.state.touch()
        if self.state.dirty:
            if self.worker.playing:
                # Keep a fast worker off the GIL until this frame is painted (see Executor).
                self.worker.hold(0.03)
                QTimer.singleShot(0, self.worker.release)
            self.state.notify()
            self.frame_rendered.emit()

    def _follow_panes(self, change: Change) -> None:
        """Bring forward the pane that has news: the first print, then any error."""
        if (
            not self._shown_output
            and self.output.entries > 0  # an empty pane is never brought forward
            and any(s.record.error is None for s in change.served)
        ):
            self._shown_output = True  # the first print: show where it went
            self.bottom.setCurrentWidget(self.output)
        failed = change.failure or any(s.record.error is not None for s in change.served)
        if failed:
            self.bottom.setCurrentWidget(self.error_view)
            self.give_bottom_room()
        elif change.new_segment and self.bottom.currentWidget() is self.error_view:
            # A new run (the fix, a reset): the error shown is no longer this run's. Its
            # room goes back to the kitchen and the chart, the call log comes forward.
            self.bottom.setCurrentWidget(self.log)
            if self._room_given and self.pages.currentWidget() is self.lab_page:
                self._lay_out()

    def give_bottom_room(self, share: float = 0.5) -> None:
        """The error's anatomy or the fix's diff is the point now: the bottom pane gets
        ``share`` of the column (taken from the kitchen first), not a 140 px strip; the
        chart keeps a plot of ``CHART_MIN_PLOT`` px (it gives last)."""
        if self.mode not in ("start", "execute", "monitor"):
            return
        sizes = self.right_split.sizes()
        total = sum(sizes)
        want = int(total * share)
        if total <= 0 or sizes[3] >= want:
            return
        self._room_given = True
        need = want - sizes[3]
        sizes[3] = want
        # What each keeps: its own minimum (the splitter would not go lower), and the chart
        # a plot that is still read (the legend and the failed calls' row above it).
        floors = (
            self.monitor.minimumSizeHint().height(),
            self.kitchen.minimumSizeHint().height(),
            self.chart.pane_height_for(CHART_MIN_PLOT),
        )
        for i in (1, 0, 2):  # the kitchen's picture gives first, the chart last
            if sizes[i] == 0 and i != 2:
                continue
            give = max(0, min(need, sizes[i] - floors[i]))
            sizes[i] -= give
            need -= give
        sizes[3] -= need  # what none could give stays with the others
        self.right_split.setSizes(sizes)

    def _update_status(self) -> None:
        if not self.entries:
            if self.worker.waiting_calls():
                self.status_label.setText(
                    self.tr("Preparing JAX… your call runs as soon as it is ready.")
                )
            else:
                self.status_label.setText(self.tr("Starting JAX on the worker thread…"))
            return
        s = self.state.segment_summary()
        state = self.kitchen.canvas.status()
        n = s.calls
        text = (
            self.tr("%1 · %n call this run · %3 in total", "", n)
            if n == 1
            else self.tr("%1 · %n calls this run · %3 in total", "", n)
        )
        text = text.replace("%1", state).replace("%3", str(len(self.state.records)))
        elapsed = time.perf_counter() - self.state.started_at
        if self.state.in_flight is not None and elapsed >= SLOW_CALL_S:
            text += " · " + self.tr(
                "still running after %1 s (Pause, Reset or another scenario abandons it)"
            ).replace("%1", f"{elapsed:.0f}")
        self.status_label.setText(text)

    def _show_early_question(self) -> None:
        """The first screen before JAX has started: the lesson of the scenario that will open,
        built from the manifest's spec (its question, sliders, Step, code), while discovery
        imports JAX on the worker. A prediction typed, a slider moved or Step pressed
        meanwhile is kept: the calls wait in the worker's queue behind the JAX contract check
        (the status bar says so). A listing without a spec shows its question alone."""
        listed = {listing.id: listing for listing in self.listed}
        last = str(self.settings.value("last_scenario", "") or "")
        for candidate in (self.requested, last, DEFAULT_SCENARIO):
            if candidate and candidate in listed:
                stand_in = listed[candidate].lesson()
                if stand_in is not None:  # the whole lesson screen, from the manifest's spec
                    variant = self.requested_variant if candidate == self.requested else None
                    self._open(stand_in, variant)
                    return
                for controls in (self.params, self.run_controls):  # nothing to drive yet
                    controls.setVisible(False)
                self.briefing.show_listing(listed[candidate])
                self.briefing.fit_width(LEFT_MIN_W, LEFT_MAX_W)
                return
        for controls in (self.params, self.run_controls):
            controls.setVisible(False)

    def _discovered(self, entries: list[Any]) -> None:
        # JAX, Qt and the scenarios are loaded and live for good: move them out of the
        # garbage collector's way. A full collection over them holds the GIL for ~100 ms,
        # and tracing a big function on the worker triggers several (a visible freeze).
        gc.freeze()
        self.entries = entries
        ids = self.scenario_ids()
        last = str(self.settings.value("last_scenario", "") or "")
        for candidate in (self.requested, last, DEFAULT_SCENARIO, *ids):
            if candidate and candidate in ids:
                self.select_scenario(candidate, self.requested_variant)
                break
        else:
            self._fill_scenarios()
        if self.requested and self.requested not in ids:
            self.error_view.show_text(
                self.tr("Unknown scenario"),
                self.tr("No scenario %1; choose one from the list.").replace("%1", self.requested),
            )
        self.scenarios_loaded.emit()
        if self.autoplay_requested and self.scenario is not None:
            self.start_autoplay()

    # -- autoplay and export -------------------------------------------------------------
    def start_autoplay(self) -> None:
        """Play the scenario's demo: its beats on the pitfall, then on the fix, then the summary."""
        if self.scenario is not None:
            self.autoplay.start(self.scenario)

    def go_to(self, mode: str) -> None:
        """A mode button: Complete first runs what its comparison is missing (issue 21)."""
        scenario = self.scenario
        missing = self.summary.missing() if mode == "complete" and scenario else ()
        if scenario is not None and missing and not self.autoplay.beats:
            self.autoplay.measure(scenario, missing)  # ends on Complete
        else:
            self.set_mode(mode)

    def measure_both(self) -> None:
        """The pitfall and the fix on the same call sequence, then the summary."""
        if self.scenario is not None:
            self.autoplay.measure(self.scenario)

    def stop_autoplay(self) -> None:
        self.autoplay.stop()

    @property
    def autoplay_delay_ms(self) -> int:
        return self.autoplay.delay_ms

    @autoplay_delay_ms.setter
    def autoplay_delay_ms(self, ms: int) -> None:
        self.autoplay.delay_ms = ms

    def export_png(self, path: Path | None = None) -> Path | None:
        path = path or export.ask(self, "png")
        if path is not None:
            export.chart_png(self.chart, path)
        return path

    def export_csv(self, path: Path | None = None) -> Path | None:
        path = path or export.ask(self, "csv")
        if path is not None:
            export.calls_csv(list(self.state.records), path)
        return path

    def export_json(self, path: Path | None = None) -> Path | None:
        """The same objects as ``jitlab run --json``, then the summary."""
        path = path or export.ask(self, "json")
        if path is not None:
            export.calls_json(self.scenario.id if self.scenario else None, self.state, path)
        return path

    # -- look, geometry, shutdown ---------------------------------------------------------
    def _scheme_changed(self, *_: Any) -> None:
        self.chart.apply_theme()
        self.code.apply_theme()
        self.briefing.set_stage(self.briefing.stage)  # the question's frame takes the accent

    def _restore_geometry(self) -> None:
        split = self.settings.value("main_split")
        if isinstance(split, QByteArray) and not split.isEmpty():
            self.main_split.restoreState(split)
        else:  # the list takes a fifth of a small window, no more than it needs
            QTimer.singleShot(0, self, self._first_split)
        shown = self.settings.value("scenario_list", True)
        self.set_scenario_list_visible(str(shown).lower() not in ("false", "0"))
        geometry.place(self, self.settings, "geometry", (1440, 920))

    def shutdown(self) -> None:
        """Stop the worker; a call in flight gets a grace period, then is left behind.

        Idempotent. Whoever runs the event loop ends the process with ``os._exit`` if a
        thread was left behind (:func:`jitlab.gui.executor.left_behind`)."""
        self.stop_autoplay()
        self.timer.stop()
        self._unstick = None
        if self._quiz is not None:
            self._quiz.shutdown(int(self.close_grace_s * 1000))
        worker = self.worker
        worker.stop()
        if worker.abandoned or worker.wait(200):
            return  # the usual case: idle, or a quick call
        start = time.perf_counter()
        while worker.isRunning():
            waited = time.perf_counter() - start
            compiling = self.state.phase is Phase.WRITING or worker.job_compiling()
            limit = self.compile_grace_s if compiling else self.close_grace_s
            if waited >= limit:
                print(
                    f"jitlab: a call was still running after {waited:.0f} s — abandoned",
                    file=sys.stderr,
                    flush=True,
                )
                worker.abandon()
                break
            self.drain()  # the kitchen keeps showing what the call is doing
            self.status_label.setText(
                self.tr("Closing: waiting for the call in flight to finish… %1 s (at most %2 s)")
                .replace("%1", f"{waited:.0f}")
                .replace("%2", f"{limit:.0f}")
            )
            # Paint and take signals (a second Ctrl+C quits at once), but no clicks.
            QApplication.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents, 50)
            worker.wait(50)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._closing:
            self._closing = True
            geometry.remember(self, self.settings, "geometry")
            self.settings.setValue("main_split", self.main_split.saveState())
            self.settings.setValue("scenario_list", not self.scenario_list.isHidden())
            self.settings.setValue("language", i18n.language())
            if self.scenario is not None:
                self.settings.setValue("last_scenario", self.scenario.id)
            self.settings.sync()
            self.shutdown()  # shows the wait while a call in flight may still finish
            self.hide()
        event.accept()
