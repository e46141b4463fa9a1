"""The Quiz view: predict what jax.jit will do, then let a real run settle it.

Two tabs: *Exercises* (a list grouped by pitfall; pick one, predict, "Run it") and
*Interview* (a timed round drawn at random, a score, what to review). The answer always comes
from running the snippet under jitlab's probe, a job on the one JAX executor (see
:mod:`jitlab.gui.quiz.runner`), never from a stored key.

In the main window::

    quiz = QuizView(executor=window.worker)             # once, e.g. a page of a stack
    quiz.scenario_requested.connect(lambda sid, variant: ...)  # "Open the scenario"
    quiz.show_exercises("static-args")                   # from a scenario's Complete mode
    quiz.shutdown()                                      # when the window closes

Alone (screenshots, ``jitlab quiz --gui``): :func:`jitlab.gui.app.open_quiz`, with an
executor of its own.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from jitlab.gui import i18n
from jitlab.gui.executor import Executor, QuizKit, load_kit
from jitlab.gui.i18n import Retranslating
from jitlab.gui.quiz.card import ExerciseCard
from jitlab.gui.quiz.interview import InterviewView
from jitlab.gui.quiz.look import busy_bar, scenario_icon
from jitlab.gui.quiz.runner import OneCheck, QuizRunner
from jitlab.gui.quiz.verdict import VerdictPanel
from jitlab.gui.quiz.words import learn_variants, list_title, text
from jitlab.gui.settings import make_settings

ROLE_ID = Qt.ItemDataRole.UserRole


class ExercisesPage(Retranslating, OneCheck, QWidget):
    """The exercise list on the left; the chosen exercise, its run and its verdict on the right."""

    verdict_ready = Signal(object)  # the Verdict, once shown
    open_scenario = Signal(str, str)

    def __init__(self, runner: QuizRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.catalogue: QuizKit | None = None
        self.exercise: Any = None
        self.last_verdict: Any = None
        self.runs = 0  # checks started (tests: bad input runs nothing)
        self.done: dict[str, bool] = {}  # exercises run to a verdict: id → predicted right
        self._running: Any = None

        self.tree = QTreeWidget(self)
        self.tree.setObjectName("quizList")
        self.tree.setHeaderHidden(True)
        self.tree.setIconSize(QSize(22, 22))
        self.tree.setMinimumWidth(330)
        self.tree.currentItemChanged.connect(self._picked)

        self.card = ExerciseCard(self)
        self.card.submitted.connect(self.run_check)
        self.run_button = QPushButton(self)
        self.run_button.setObjectName("quizRun")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.run_check)
        self.busy = busy_bar(self)
        self.busy_label = QLabel(self)
        self.verdict = VerdictPanel(self)
        self.verdict.open_scenario.connect(self.open_scenario)
        self.placeholder = QLabel(self)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)

        body = QWidget(self)
        column = QVBoxLayout(body)
        column.addWidget(self.placeholder)
        column.addWidget(self.card)
        row = QHBoxLayout()
        row.addWidget(self.run_button)
        row.addWidget(self.busy)
        row.addWidget(self.busy_label)
        row.addStretch(1)
        column.addLayout(row)
        column.addWidget(self.verdict)
        column.addStretch(1)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setWidget(body)

        splitter = QSplitter(self)
        splitter.addWidget(self.tree)
        splitter.addWidget(self.scroll_area)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([340, 900])
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        self.card.hide()
        self.run_button.hide()
        self._set_busy(False)
        self.runner.finished.connect(self._finished)
        self.retranslate()

    # -- the list -------------------------------------------------------------------------
    def set_catalogue(self, catalogue: QuizKit) -> None:
        self.catalogue = catalogue
        learn_variants(catalogue.variants)
        self.fill()
        if self.exercise is None and catalogue.exercises:
            self.select(catalogue.exercises[0].id)

    def fill(self) -> None:
        catalogue = self.catalogue
        if catalogue is None:
            return
        current = self.exercise.id if self.exercise is not None else None
        tree = self.tree
        tree.blockSignals(True)
        tree.clear()
        groups: dict[Any, QTreeWidgetItem] = {}
        for exercise in catalogue.exercises:
            chapter = exercise.chapter
            assert chapter is not None  # the catalogue gives each its scenario's chapter
            if chapter not in groups:
                group = QTreeWidgetItem(tree, [text(chapter.title)])
                group.setFlags(Qt.ItemFlag.ItemIsEnabled)
                group.setIcon(0, scenario_icon(exercise))
                font = group.font(0)
                font.setBold(True)
                group.setFont(0, font)
                group.setToolTip(0, text(chapter.title))
                groups[chapter] = group
            item = QTreeWidgetItem(groups[chapter])
            item.setText(0, self._marked(exercise))
            item.setData(0, ROLE_ID, exercise.id)
            tip = text(exercise.question)
            if exercise.misconception:
                tip = (
                    text(exercise.title)
                    + "\n"
                    + self.tr("Misconception to test: %1").replace("%1", text(exercise.claim))
                )
            if exercise.id not in catalogue.available:
                item.setFlags(Qt.ItemFlag.ItemIsSelectable)  # shown, greyed
                tip += "\n" + self.tr(
                    "Needs %1 devices; JAX sees %2 here. Start jitlab from the command line "
                    "(it asks for 8 simulated CPU devices) to run it."
                ).replace("%1", str(exercise.min_devices)).replace("%2", str(catalogue.devices))
            item.setToolTip(0, tip)
            if exercise.id == current:
                tree.setCurrentItem(item)
        tree.expandAll()
        tree.blockSignals(False)

    def _marked(self, exercise: Any) -> str:
        """The list title, with ✓ once a run has settled it (right) or ✗ (not right)."""
        if exercise.id not in self.done:
            return list_title(exercise)
        return ("✓ " if self.done[exercise.id] else "✗ ") + list_title(exercise)

    def item_for(self, exercise_id: str) -> QTreeWidgetItem | None:
        for g in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(g)
            for i in range(group.childCount() if group is not None else 0):
                item = group.child(i) if group is not None else None
                if item is not None and item.data(0, ROLE_ID) == exercise_id:
                    return item
        return None

    def _picked(self, item: QTreeWidgetItem | None, _previous: Any = None) -> None:
        if item is not None and item.data(0, ROLE_ID):
            self.select(str(item.data(0, ROLE_ID)))

    def select(self, exercise_id: str) -> None:
        """Show an exercise (its verdict is cleared; a run in flight still reports)."""
        if self.catalogue is None:
            return
        exercise = next((e for e in self.catalogue.exercises if e.id == exercise_id), None)
        if exercise is None:
            raise KeyError(exercise_id)
        if self.exercise is not None and exercise.id == self.exercise.id:
            return
        self.exercise = exercise
        self.last_verdict = None
        self.card.set_exercise(exercise)
        self.verdict.clear()
        self.placeholder.hide()
        self.card.show()
        self.run_button.show()
        available = exercise.id in self.catalogue.available
        self.run_button.setEnabled(available and self.token is None)
        if not available:
            self.card.show_problem(
                self.tr("This exercise needs %1 devices and JAX sees %2 here.")
                .replace("%1", str(exercise.min_devices))
                .replace("%2", str(self.catalogue.devices))
            )
        item = self.item_for(exercise.id)
        if item is not None and self.tree.currentItem() is not item:
            self.tree.blockSignals(True)
            self.tree.setCurrentItem(item)
            self.tree.blockSignals(False)
        self.scroll_area.verticalScrollBar().setValue(0)

    # -- the run --------------------------------------------------------------------------
    def run_check(self) -> bool:
        """Parse the prediction; if it fits, run the snippet for real on the quiz thread."""
        exercise = self.exercise
        if exercise is None or self.token is not None or self.catalogue is None:
            return False
        if exercise.id not in self.catalogue.available:
            return False
        ok, prediction = self.card.read_prediction()
        if not ok:
            return False
        self.verdict.clear()
        self.runs += 1
        self._running = exercise
        self.start_check(lambda: exercise.check(prediction))
        return True

    def _finished(self, token: int, result: Any, error: str) -> None:
        if not self.check_done(token):
            return
        exercise = self._running
        if error:
            self.card.show_problem(self.tr("The check itself failed:") + "\n" + error.strip())
            return
        if self.exercise is None or exercise.id != self.exercise.id:
            return  # the user moved on; the verdict belongs to another exercise
        self.last_verdict = result
        if not getattr(result, "timed_out", False):
            self.done[exercise.id] = bool(getattr(result, "correct", False))
            item = self.item_for(exercise.id)
            if item is not None:
                item.setText(0, self._marked(exercise))
        self.verdict.show_verdict(exercise, result)
        # Bring the verdict into view once the layout has placed it.
        QTimer.singleShot(0, self, lambda: self.scroll_area.ensureWidgetVisible(self.verdict, 0, 8))
        self.verdict_ready.emit(result)

    def _set_busy(self, busy: bool) -> None:
        self.busy.setVisible(busy)
        self.busy_label.setVisible(busy)
        self.card.set_input_enabled(not busy)
        available = (
            self.exercise is not None
            and self.catalogue is not None
            and self.exercise.id in self.catalogue.available
        )
        self.run_button.setEnabled(not busy and available)

    # -- language -------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.run_button.setText(self.tr("▶ Run it"))
        self.run_button.setToolTip(
            self.tr(
                "Run the code for real, with empty JAX caches, and compare what happens "
                "with your prediction."
            )
        )
        self.busy_label.setText(self.tr("Running the real code under the probe…"))
        self.busy.setToolTip(self.tr("JAX is tracing, compiling and running the snippet."))
        self.tree.setToolTip(
            self.tr("Exercises grouped by pitfall. ⚖ marks a common belief to test.")
        )
        self.placeholder.setText(self.tr("Loading the exercises (this imports JAX)…"))
        self.fill()


class QuizView(Retranslating, QWidget):
    """Exercises and interview rounds, checked against real JAX.

    ``scenario_requested(scenario_id, variant)`` asks the host to open a scenario (the
    verdict's and the review list's "Open the scenario" buttons). ``executor`` is the
    host's :class:`~jitlab.gui.executor.Executor` (None: the view starts one of its own).
    Call :meth:`shutdown` before the view goes away: it drops its queued checks and, with an
    executor of its own, waits for a check in flight and stops the thread.
    """

    scenario_requested = Signal(str, str)
    loaded = Signal()

    def __init__(
        self,
        executor: Executor | None = None,
        parent: QWidget | None = None,
        runner: QuizRunner | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("quizView")
        self.runner = runner if runner is not None else QuizRunner(executor, self)
        self.catalogue: QuizKit | None = None
        self._pending_scenario: str | None = None
        self.tabs = QTabWidget(self)
        self.exercises = ExercisesPage(self.runner, self)
        self.interview = InterviewView(self.runner, self)
        self.tabs.addTab(self.exercises, "")
        self.tabs.addTab(self.interview, "")
        self.exercises.open_scenario.connect(self.scenario_requested)
        self.interview.open_scenario.connect(self.scenario_requested)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.tabs)
        self.runner.finished.connect(self._loaded)
        self._load_token = self.runner.submit(load_kit)
        self.retranslate()

    def _loaded(self, token: int, result: Any, error: str) -> None:
        if token != self._load_token:
            return
        if error:
            self.exercises.placeholder.setText(
                self.tr("The exercises could not be loaded:") + "\n" + error.strip()
            )
            return
        self.catalogue = result
        self.exercises.set_catalogue(result)
        self.interview.set_catalogue(result)
        if self._pending_scenario is not None:
            self.show_exercises(self._pending_scenario)
        self.loaded.emit()

    def show_exercises(self, scenario: str | None = None) -> None:
        """The Exercises tab, on the first exercise of ``scenario`` (all when None)."""
        self.tabs.setCurrentWidget(self.exercises)
        if scenario is None:
            return
        if self.catalogue is None:
            self._pending_scenario = scenario
            return
        self._pending_scenario = None
        for exercise in self.catalogue.exercises:
            if exercise.scenario == scenario:
                self.exercises.select(exercise.id)
                return

    def show_interview(self) -> None:
        self.tabs.setCurrentWidget(self.interview)

    def shutdown(self, timeout_ms: int = -1) -> bool:
        """Stop the countdown, drop queued checks; an executor of its own is stopped once the
        check in flight ends (idempotent)."""
        self.interview.stop_clock()
        return self.runner.shutdown(timeout_ms)

    def retranslate(self) -> None:
        self.tabs.setTabText(0, self.tr("Exercises"))
        self.tabs.setTabText(1, self.tr("Interview"))
        self.tabs.setTabToolTip(
            0, self.tr("Pick an exercise, predict, and let a real run of JAX settle it.")
        )
        self.tabs.setTabToolTip(
            1, self.tr("A timed round of questions drawn at random; a score and what to review.")
        )

    def closeEvent(self, event: QCloseEvent) -> None:
        self.hide()  # the window goes at once; a compile in flight may still need a moment
        self.shutdown()
        event.accept()


class QuizWindow(Retranslating, QWidget):
    """The quiz alone in a window, with a language switch (``open_quiz``)."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("quizWindow")
        self.view = QuizView(parent=self)
        self.language = QPushButton(self)
        self.language.setObjectName("quizLanguage")
        self.language.clicked.connect(self._switch_language)
        self.scenario_note = QLabel(self)
        self.scenario_note.setEnabled(False)
        self.view.scenario_requested.connect(self._scenario_requested)
        top = QHBoxLayout()
        top.addWidget(self.scenario_note, 1)
        top.addWidget(self.language)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        self.resize(1280, 800)
        self.retranslate()

    def _switch_language(self) -> None:
        i18n.set_language("en" if i18n.language() == "zh" else "zh")

    def _scenario_requested(self, scenario: str, variant: str) -> None:
        # Alone there is no lab to open: say how to get there.
        command = f"jitlab --scenario {scenario}" + (
            f" --variant {variant}" if variant != "pitfall" else ""
        )
        self.scenario_note.setEnabled(True)
        self.scenario_note.setText(self.tr("Open the lab with: %1").replace("%1", command))

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Quiz"))  # the platform appends " — jitlab"
        self.language.setText("中文" if i18n.language() == "en" else "English")
        self.language.setToolTip(self.tr("Switch the interface language."))

    def closeEvent(self, event: QCloseEvent) -> None:
        self.hide()
        settings = make_settings()
        settings.setValue("language", i18n.language())  # the language switch is remembered
        settings.sync()
        self.view.shutdown(CLOSE_GRACE_MS)  # a check in flight gets a moment, not forever
        event.accept()


CLOSE_GRACE_MS = 3000
