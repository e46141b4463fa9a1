"""The main window: it builds the lab's views, composes the objects that own the rest of its
state, and wires their commands together.

Each part owns its own state: the executor, its frame loop and the stuck-call watch
(:mod:`jitlab.gui.lesson.worker_link`), the right column's panes and their room
(:mod:`jitlab.gui.lesson.panes`), the mode buttons (:mod:`jitlab.gui.lesson.mode_bar`), the
scenario list's fold and the saved split (:mod:`jitlab.gui.lesson.main_split`), the menus
(:mod:`jitlab.gui.lesson.menus`), the demo (:mod:`jitlab.gui.lesson.autoplay`), the exports
(:mod:`jitlab.gui.views.export`). The window keeps which scenario is open (early from the
manifest, then discovered), the mode, the exercises' page, and the status line.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QMainWindow,
    QStackedWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from jitlab.gui import geometry, i18n
from jitlab.gui.executor import Executor
from jitlab.gui.i18n import Retranslating
from jitlab.gui.lesson import menus, scenario_list
from jitlab.gui.lesson.autoplay import Autoplay
from jitlab.gui.lesson.code_view import CodeView
from jitlab.gui.lesson.controls import ParamControls, RunControls
from jitlab.gui.lesson.error_view import ErrorView
from jitlab.gui.lesson.lesson_panel import LessonPanel
from jitlab.gui.lesson.main_split import MainSplit
from jitlab.gui.lesson.mode_bar import ModeBar
from jitlab.gui.lesson.monitor_view import MonitorView
from jitlab.gui.lesson.output_view import OutputView
from jitlab.gui.lesson.panes import LabPanes
from jitlab.gui.lesson.scenario_list import Catalogue
from jitlab.gui.lesson.status_line import StatusLine
from jitlab.gui.lesson.summary_page import SummaryPage
from jitlab.gui.lesson.worker_link import WorkerLink
from jitlab.gui.scripts.book import ScriptBook
from jitlab.gui.scripts.lessons import LessonScripts
from jitlab.gui.views import export
from jitlab.gui.views.chart import ChartView
from jitlab.gui.views.kitchen import KitchenPanel
from jitlab.gui.views.log_view import LogView
from jitlab.gui.views.model import RunState
from jitlab.lab import manifest
from jitlab.lab.manifest import is_stand_in
from jitlab.lab.spec import ParamValue, Scenario

# Widths that let the window work at 1024×640 (tests/gui/test_small_screens.py).
LEFT_MIN_W = 250
LEFT_MAX_W = 380


class MainWindow(Retranslating, QMainWindow):
    """jitlab's window. Owns the worker thread (through its :class:`WorkerLink`) and stops it
    (waiting) when it closes."""

    scenarios_loaded = Signal()

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
        self.autoplay_requested = autoplay
        # Listed at once from the built-ins' manifest; replaced when discovery (JAX) ends.
        self.catalogue = Catalogue(manifest.listed(scenarios_dir), scenario, variant)
        self.scenario: type[Scenario] | None = None
        self.mode = "start"
        self.state = RunState()
        self._quiz: Any = None  # the exercises view, built on first use
        # The executor, its frame loop (started last: the window is built and shown first).
        self.link = WorkerLink(self.state, scenarios_dir, entry_points, self)
        self.link.discovered.connect(self._discovered)
        self.link.replaced.connect(self._worker_replaced)
        self._build()
        geometry.place(self, self.settings, "geometry", (1440, 920))
        self._show_early_question()
        self.retranslate()
        self.link.start_frames()
        hints = QApplication.styleHints()
        if hints is not None:
            hints.colorSchemeChanged.connect(self._scheme_changed)

    @property
    def worker(self) -> Executor:
        """The executor now in use (a fresh one replaces a stuck one: :class:`WorkerLink`)."""
        return self.link.executor

    # -- construction ---------------------------------------------------------------------
    def _build(self) -> None:
        self.mode_bar = ModeBar(self)
        self.mode_bar.mode_clicked.connect(self.go_to)
        self.mode_bar.list_toggled.connect(self.set_scenario_list_visible)

        # pages: one lab screen for Start, Execute and Monitor, then the summary
        self.briefing = LessonPanel(self.state, self)  # the question, story and answer
        self.briefing.start_clicked.connect(self._start_cooking)
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
        self.link.variant_began.connect(self.run_controls.select_variant)
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
        self.run_controls.overlay_toggled.connect(self.chart.set_overlay)
        self.log = LogView(self)
        self.log.bind(self.state)
        self.log.script_requested.connect(self.scripts.open_record)
        self.output = OutputView(self)
        self.output.bind(self.state)
        self.error_view = ErrorView(self)
        self.error_view.bind(self.state)
        self.code = CodeView(self)
        self.monitor = MonitorView(self.state, self)  # Monitor mode's own job
        self.monitor.name_of = self.run_controls.variant_name  # its runs, named as the picker
        # The right column: its panes' heights and which bottom tab is forward.
        self.panes = LabPanes(
            self.monitor,
            self.kitchen,
            self.chart,
            (self.log, self.output, self.error_view, self.code),
            mode=lambda: self.mode,
            on_lab=lambda: self.pages.currentWidget() is self.lab_page and not self.link.closing,
            parent=self,
        )
        self.briefing.answer_toggled.connect(self.panes.answer_toggled)

        # The left column, in the order a learner thinks: question, sliders, run, story, answer.
        self.briefing.controls.addWidget(self.params)
        self.briefing.controls.addWidget(self.run_controls)
        self.briefing.setMinimumWidth(LEFT_MIN_W)
        self.briefing.setMaximumWidth(LEFT_MAX_W)
        lab = QWidget(self)
        lab_layout = QHBoxLayout(lab)
        lab_layout.setContentsMargins(0, 0, 0, 0)
        lab_layout.addWidget(self.briefing)
        lab_layout.addWidget(self.panes, 1)
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
        center_layout.addWidget(self.mode_bar)
        center_layout.addWidget(self.pages, 1)
        self.main_split = MainSplit(self.settings, center, self)
        self.scenario_list = self.main_split.scenario_list
        self.scenario_list.itemActivated.connect(self._picked)
        self.scenario_list.itemClicked.connect(self._picked)
        self.setCentralWidget(self.main_split)
        self.status_label = StatusLine(self.state, self.link, self.kitchen, self)
        self.statusBar().addWidget(self.status_label, 1)
        self.state.subscribe(self.panes.follow)
        self.state.subscribe(lambda _change: self._update_status())
        self.autoplay = Autoplay(self, self.state, self)
        self.autoplay.note_changed.connect(self.mode_bar.note.setText)
        self.menus = menus.build_menus(self, self)
        self.main_split.toggles = (self.menus.act_scenarios, self.mode_bar.list_button)
        self.set_mode("start")
        self.main_split.restore()

    # -- language -------------------------------------------------------------------------
    def set_language(self, lang: str) -> None:
        """Switch the interface at runtime; every widget re-labels on LanguageChange."""
        i18n.set_language(lang)
        self.settings.setValue("language", i18n.language())
        self.menus.lang_actions[i18n.language()].setChecked(True)

    def retranslate(self) -> None:
        self.mode_bar.retranslate()
        self.panes.retranslate()
        self.scenario_list.setToolTip(
            self.tr("Scenarios, grouped by pitfall. Greyed ones failed to load: hover for why.")
        )
        self.menus.retranslate()
        self._fill_scenarios()
        self._update_title()
        self._update_status()
        self.briefing.fit_width(LEFT_MIN_W, LEFT_MAX_W)  # the labels' widths change too

    def _update_title(self) -> None:
        # The scenario alone: the platform appends the application's name (" — jitlab").
        self.setWindowTitle(self.scenario.title.get(i18n.language()) if self.scenario else "")

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
        self.catalogue.fill(self.scenario_list, current, i18n.language())

    def _picked(self, item: QTreeWidgetItem, column: int = 0) -> None:
        sid = item.data(0, Qt.ItemDataRole.UserRole)
        if sid == scenario_list.QUIZ:
            self.show_quiz()
        elif sid and (self.scenario is None or sid != self.scenario.id):
            self.select_scenario(sid)
        elif sid and self.pages.currentWidget() is self._quiz:
            self.set_mode("start")

    def _show_early_question(self) -> None:
        """The first screen before JAX has started: the lesson of the scenario that will open,
        built from the manifest's spec (its question, sliders, Step, code), while discovery
        imports JAX on the worker. A prediction typed, a slider moved or Step pressed
        meanwhile is kept: the calls wait in the worker's queue behind the JAX contract check
        (the status bar says so). A listing without a spec shows its question alone."""
        early = self.catalogue.early(self._last())
        stand_in = early[0].lesson() if early is not None else None
        if early is not None and stand_in is not None:  # the whole lesson screen, from its spec
            self._open(stand_in, early[1])
            return
        for controls in (self.params, self.run_controls):  # nothing to drive yet
            controls.setVisible(False)
        if early is not None:
            self.briefing.show_listing(early[0])
            self.briefing.fit_width(LEFT_MIN_W, LEFT_MAX_W)

    def _last(self) -> str:
        """The scenario opened last time (saved in the settings)."""
        return str(self.settings.value("last_scenario", "") or "")

    def _discovered(self, entries: list[Any]) -> None:
        # JAX, Qt and the scenarios are loaded and live for good: move them out of the
        # garbage collector's way. A full collection over them holds the GIL for ~100 ms,
        # and tracing a big function on the worker triggers several (a visible freeze).
        gc.freeze()
        chosen = self.catalogue.land(entries, self._last())
        if chosen is not None:
            self.select_scenario(chosen, self.catalogue.requested_variant)
        else:
            self._fill_scenarios()
        unknown = self.catalogue.unknown()
        if unknown is not None:
            self.error_view.show_text(
                self.tr("Unknown scenario"),
                self.tr("No scenario %1; choose one from the list.").replace("%1", unknown),
            )
        self._update_status()  # JAX is ready: no more "Starting JAX…" (the lesson may be adopted)
        self.scenarios_loaded.emit()
        if self.autoplay_requested and self.scenario is not None:
            self.start_autoplay()

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
        self.link.unstick_later(pause=True, jobs=False)
        self.mode_bar.check_none()  # no mode is current while practising
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

    def select_scenario(self, sid: str, variant: str | None = None) -> None:
        """Open a scenario: new run on the worker, controls and texts rebuilt, Start mode."""
        cls = self.catalogue.class_of(sid)
        if cls is None:
            if not self.catalogue.entries:  # picked from the early list: opens with discovery
                self.catalogue.ask(sid, variant)
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
        self.state.clear(cls.id, chosen, cls.params)  # the views forget the old run (below)
        self.panes.new_scenario()
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
        self.link.unstick_later()
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
        self._fill_scenarios()  # discovery's list now: the installed plugins join the built-ins
        if self.pages.currentWidget() is self.lab_page and not self.panes.room_given:
            self.panes.lay_out()  # the first layout ran before the window had its size

    # -- commands to the worker -----------------------------------------------------------
    def _params_changed(self, values: dict[str, ParamValue]) -> None:
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
            self.link.unstick_later(pause=True)

    def worker_rate(self, rate: float) -> None:
        self.worker.set_rate(rate)

    def step(self) -> None:
        if self.mode in ("start", "complete"):
            self.set_mode("execute")
        self.worker.step()
        self._update_status()

    def reset(self) -> None:
        self.worker.reset()
        self.link.unstick_later()

    def _worker_replaced(self) -> None:
        if self._quiz is not None:  # the quiz submits to *this* worker (it follows anyway)
            self._quiz.runner.scenario_worker = self.worker

    # -- modes ----------------------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        """Start, Execute, Monitor and Complete; the user can always jump back."""
        if self._quiz is not None and self.pages.currentWidget() is self._quiz:
            self.link.unstick_later()  # leaving the exercises: a stuck check must not hold on
        self.mode = mode
        self.mode_bar.check(mode)
        if mode == "complete":
            self.summary.prediction_text = self.briefing.prediction.text().strip()
            self.summary.refresh()
            self.pages.setCurrentWidget(self.summary)
            return
        # Start, Execute and Monitor are one screen: the question, the sliders, the kitchen
        # and the chart together. Start puts the question forward; Monitor swaps the
        # kitchen for the signature ledger and the phase timeline.
        self.briefing.set_stage(mode)
        self.panes.show_mode(mode)
        self.pages.setCurrentWidget(self.lab_page)
        if mode == "monitor":
            self.monitor.refresh()
        self.panes.lay_out()

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

    def show_fix_code(self) -> None:
        """The answer's "see the fix as code": the diff, in the bottom pane."""
        if self.briefing.answer_shown:
            self.panes.show_fix_code()

    def set_scenario_list_visible(self, visible: bool) -> None:
        """Fold the scenario list away (more room for the lab) or bring it back; saved."""
        self.main_split.set_list_visible(visible)

    def _update_status(self) -> None:
        self.status_label.refresh(loaded=bool(self.catalogue.entries))

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

    def shutdown(self) -> None:
        """Stop the worker; a call in flight gets a grace period, then is left behind.

        Idempotent. Whoever runs the event loop ends the process with ``os._exit`` if a
        thread was left behind (:func:`jitlab.gui.executor.left_behind`)."""
        self.stop_autoplay()
        self.link.stop_frames()
        if self._quiz is not None:
            self._quiz.shutdown(int(self.link.close_grace_s * 1000))
        self.link.finish(self.status_label.closing)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.link.closing:
            self.link.closing = True
            geometry.remember(self, self.settings, "geometry")
            self.main_split.remember()
            self.settings.setValue("language", i18n.language())
            if self.scenario is not None:
                self.settings.setValue("last_scenario", self.scenario.id)
            self.settings.sync()
            self.shutdown()  # shows the wait while a call in flight may still finish
            self.hide()
        event.accept()
