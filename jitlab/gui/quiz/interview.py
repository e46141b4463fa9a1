"""Interview mode: a timed round of exercises drawn at random, a score, and what to review.

Drives :class:`jitlab.quiz.Interview` exactly as the CLI does; the real run of each answer
is a job on the JAX executor, with the question's clock stopped while it runs (the user's
time is the time to answer, not JAX's time to compile).

A little over 500 lines: one round's screens (question, verdict, score) share its clock
and its one check in flight.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from jitlab.gui.executor import QuizKit
from jitlab.gui.i18n import Retranslating
from jitlab.gui.quiz.card import ExerciseCard
from jitlab.gui.quiz.look import LATE_COLOR, RIGHT_COLOR, WRONG_COLOR, busy_bar, scenario_icon
from jitlab.gui.quiz.runner import OneCheck, QuizRunner
from jitlab.gui.quiz.verdict import VerdictPanel
from jitlab.gui.quiz.words import learn_variants, option_words, text, variant_name

DEFAULT_COUNT = 5
DEFAULT_SECONDS = 60
TICK_MS = 200
RANDOM_SEED = -1  # the seed spin box's "random" value


class InterviewView(Retranslating, OneCheck, QWidget):
    """Set up a round, answer its questions against the clock, then see the score and review."""

    open_scenario = Signal(str, str)  # scenario id, variant
    verdict_ready = Signal(object)  # each answer's Verdict, once shown
    finished = Signal()  # the round is over and the score is shown

    def __init__(self, runner: QuizRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.catalogue: QuizKit | None = None
        self.interview: Any = None
        self._prediction: Any = None
        self._frozen: float | None = None  # the clock stands still while a check runs
        self.pages = QStackedWidget(self)
        self._build_setup()
        self._build_question()
        self._build_end()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages)
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.runner.finished.connect(self._finished)
        self.retranslate()

    # -- construction ---------------------------------------------------------------------
    def _build_setup(self) -> None:
        page = QWidget(self)
        self.intro = QLabel(page)
        self.intro.setWordWrap(True)
        self.count = QSpinBox(page)
        self.count.setObjectName("interviewCount")
        self.count.setRange(1, 1)
        self.seconds = QSpinBox(page)
        self.seconds.setObjectName("interviewSeconds")
        self.seconds.setRange(5, 600)
        self.seconds.setSingleStep(5)
        self.seconds.setValue(DEFAULT_SECONDS)
        self.seed = QSpinBox(page)
        self.seed.setObjectName("interviewSeed")
        self.seed.setRange(RANDOM_SEED, 2**31 - 1)
        self.seed.setValue(RANDOM_SEED)
        self.start_button = QPushButton(page)
        self.start_button.setObjectName("interviewStart")
        self.start_button.setEnabled(False)
        self.start_button.clicked.connect(lambda: self.start_round())
        self.count_label, self.seconds_label, self.seed_label = QLabel(), QLabel(), QLabel()
        for spin in (self.count, self.seconds, self.seed):
            spin.setMinimumWidth(140)
            spin.setMaximumWidth(200)
        self.pool_note = QLabel(page)
        self.pool_note.setWordWrap(True)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        form.addRow(self.count_label, self.count)
        form.addRow(self.seconds_label, self.seconds)
        form.addRow(self.seed_label, self.seed)
        column = QVBoxLayout(page)
        column.addWidget(self.intro)
        column.addWidget(self.pool_note)
        column.addLayout(form)
        row = QHBoxLayout()
        row.addWidget(self.start_button)
        row.addStretch(1)
        column.addLayout(row)
        column.addStretch(1)
        self.setup_page = page
        self.pages.addWidget(page)

    def _build_question(self) -> None:
        page = QWidget(self)
        self.progress = QLabel(page)
        self.progress.setObjectName("interviewProgress")
        bold = self.progress.font()
        bold.setBold(True)
        self.progress.setFont(bold)
        self.clock = QProgressBar(page)
        self.clock.setObjectName("interviewClock")
        self.clock.setMaximumWidth(260)
        self.card = ExerciseCard(page)
        self.card.submitted.connect(self.submit)
        self.submit_button = QPushButton(page)
        self.submit_button.setObjectName("interviewSubmit")
        self.submit_button.setDefault(True)
        self.submit_button.clicked.connect(lambda: self.submit())
        self.pass_button = QPushButton(page)
        self.pass_button.setObjectName("interviewPass")
        self.pass_button.clicked.connect(lambda: self.submit(passing=True))
        self.busy = busy_bar(page)
        self.busy_label = QLabel(page)
        self.verdict = VerdictPanel(page)
        self.verdict.open_scenario.connect(self.open_scenario)
        self.next_button = QPushButton(page)
        self.next_button.setObjectName("interviewNext")
        self.next_button.clicked.connect(self.next_question)
        self.quit_button = QPushButton(page)
        self.quit_button.setObjectName("interviewQuit")
        self.quit_button.clicked.connect(self.end_round)

        body = QWidget(page)
        column = QVBoxLayout(body)
        column.addWidget(self.card)
        row = QHBoxLayout()
        for widget in (self.submit_button, self.pass_button, self.busy, self.busy_label):
            row.addWidget(widget)
        row.addStretch(1)
        column.addLayout(row)
        column.addWidget(self.verdict)
        row = QHBoxLayout()
        row.addWidget(self.next_button)
        row.addStretch(1)
        column.addLayout(row)
        column.addStretch(1)
        self.question_scroll = QScrollArea(page)
        self.question_scroll.setWidgetResizable(True)
        self.question_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.question_scroll.setWidget(body)
        top = QHBoxLayout()
        top.addWidget(self.progress, 1)
        top.addWidget(self.clock)
        top.addWidget(self.quit_button)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.question_scroll, 1)
        self.question_page = page
        self.pages.addWidget(page)

    def _build_end(self) -> None:
        page = QWidget(self)
        self.score = QLabel(page)
        self.score.setObjectName("interviewScore")
        font = self.score.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.score.setFont(font)
        self.score_note = QLabel(page)
        self.score_note.setWordWrap(True)
        self.review_title = QLabel(page)
        bold = self.review_title.font()
        bold.setBold(True)
        self.review_title.setFont(bold)
        self.review = QTreeWidget(page)
        self.review.setObjectName("interviewReview")
        self.review.setRootIsDecorated(False)
        self.review.setColumnCount(4)
        self.review.setIconSize(QSize(20, 20))
        self.review.setWordWrap(True)
        self.review.itemActivated.connect(self._review_activated)
        self.review.itemDoubleClicked.connect(self._review_activated)
        self.scenarios_title = QLabel(page)
        self.scenarios_title.setFont(bold)
        self.scenario_box = QWidget(page)
        self.scenario_row = QHBoxLayout(self.scenario_box)
        self.scenario_row.setContentsMargins(0, 0, 0, 0)
        self.scenario_row.addStretch(1)
        self.scenario_buttons: list[QPushButton] = []
        self.again_button = QPushButton(page)
        self.again_button.setObjectName("interviewAgain")
        self.again_button.clicked.connect(self.back_to_setup)
        column = QVBoxLayout(page)
        column.addWidget(self.score)
        column.addWidget(self.score_note)
        column.addWidget(self.review_title)
        column.addWidget(self.review, 1)
        column.addWidget(self.scenarios_title)
        column.addWidget(self.scenario_box)
        row = QHBoxLayout()
        row.addWidget(self.again_button)
        row.addStretch(1)
        column.addLayout(row)
        self.end_page = page
        self.pages.addWidget(page)

    # -- the round ------------------------------------------------------------------------
    def set_catalogue(self, catalogue: QuizKit) -> None:
        self.catalogue = catalogue
        learn_variants(catalogue.variants)
        pool = len(catalogue.available)
        self.count.setRange(1, max(1, pool))
        self.count.setValue(min(DEFAULT_COUNT, max(1, pool)))
        self.start_button.setEnabled(pool > 0)
        self.retranslate()

    def _clock_now(self) -> float:
        return self._frozen if self._frozen is not None else time.monotonic()

    def start_round(
        self, count: int | None = None, seed: int | None = None, seconds: float | None = None
    ) -> Any:
        """Draw a round (the setup's values unless given) and show its first question."""
        if self.catalogue is None or self.catalogue.interview is None:
            return None
        interview_cls = self.catalogue.interview  # loaded on the executor (it imports JAX)
        pool = [e for e in self.catalogue.exercises if e.id in self.catalogue.available]
        if seed is None and self.seed.value() != RANDOM_SEED:
            seed = self.seed.value()
        self.interview = interview_cls(
            count if count is not None else self.count.value(),
            seed=seed,
            seconds=float(seconds if seconds is not None else self.seconds.value()),
            pool=pool,
            clock=self._clock_now,
        )
        self.pages.setCurrentWidget(self.question_page)
        self._show_question()
        return self.interview

    def _show_question(self) -> None:
        interview = self.interview
        exercise = interview.start()
        self.card.set_exercise(exercise)
        self.verdict.clear()
        self.next_button.hide()
        self.submit_button.show()
        self.pass_button.show()
        self.submit_button.setEnabled(True)
        self.pass_button.setEnabled(True)
        self.card.set_input_enabled(True)
        self._set_busy(False)
        self.clock.setRange(0, int(interview.seconds * 1000))
        self._relabel_progress()
        self._tick()
        self.timer.start()
        self.question_scroll.verticalScrollBar().setValue(0)
        self.card.setFocus()

    def _tick(self) -> None:
        interview = self.interview
        if interview is None:
            return
        left = interview.remaining()
        self.clock.setValue(max(0, int(left * 1000)))
        if left > 0:
            self.clock.setFormat(self.tr("%1 s left").replace("%1", str(int(left + 0.999))))
            self.clock.setStyleSheet("")
        else:
            self.clock.setFormat(self.tr("Time is up: the answer scores nothing"))
            self.clock.setStyleSheet(f"QProgressBar {{ color: {LATE_COLOR}; }}")
            self.timer.stop()

    def stop_clock(self) -> None:
        self.timer.stop()

    def submit(self, passing: bool = False) -> bool:
        """Answer the current question (or pass); the real run happens on the quiz thread."""
        interview = self.interview
        if interview is None or interview.done or self.token is not None:
            return False
        exercise = interview.current
        prediction = None
        if not passing:
            ok, prediction = self.card.read_prediction()
            if not ok:
                return False
        self.card.show_problem("")
        self._frozen = time.monotonic()  # the user's time ends at the click
        self.timer.stop()
        self._prediction = prediction
        self.start_check(exercise.run)
        return True

    def _finished(self, token: int, result: Any, error: str) -> None:
        if not self.check_done(token):
            return
        interview = self.interview
        exercise = interview.current
        if error:
            outcome = self.catalogue.outcome if self.catalogue is not None else None
            assert outcome is not None  # a round is drawn from a loaded catalogue
            result = outcome(exercise.id, None, None, failure=error.strip().splitlines()[-1])
        verdict = interview.submit(self._prediction, result)
        self._frozen = None
        elapsed = interview.results[-1].elapsed_s
        self.verdict.show_verdict(exercise, verdict, elapsed)
        QTimer.singleShot(
            0, self, lambda: self.question_scroll.ensureWidgetVisible(self.verdict, 0, 8)
        )
        self.submit_button.hide()
        self.pass_button.hide()
        self.card.set_input_enabled(False)
        self.next_button.show()
        self._relabel_next()
        self._relabel_progress()
        self.next_button.setFocus()
        self.verdict_ready.emit(verdict)

    def next_question(self) -> None:
        if self.interview is None:
            return
        if self.interview.done:
            self.show_score()
        else:
            self._show_question()

    def end_round(self) -> None:
        """Stop early: the questions left count as not answered."""
        if self.interview is None or self.token is not None:
            return
        self.timer.stop()
        self.show_score()

    def back_to_setup(self) -> None:
        self.timer.stop()
        self.interview = None
        self.pages.setCurrentWidget(self.setup_page)

    def _set_busy(self, busy: bool) -> None:
        self.busy.setVisible(busy)
        self.busy_label.setVisible(busy)
        self.submit_button.setEnabled(not busy)
        self.pass_button.setEnabled(not busy)
        self.quit_button.setEnabled(not busy)
        if busy:
            self.card.set_input_enabled(False)

    # -- the end --------------------------------------------------------------------------
    def show_score(self) -> None:
        self.timer.stop()
        self.pages.setCurrentWidget(self.end_page)
        self.render_score()
        self.finished.emit()

    def render_score(self) -> None:
        interview = self.interview
        if interview is None:
            return
        answered = len(interview.results)
        self.score.setText(
            self.tr("Score: %1 / %2")
            .replace("%1", str(interview.score))
            .replace("%2", str(interview.total))
        )
        ratio = interview.score / interview.total if interview.total else 0.0
        self.score.setStyleSheet(f"color: {RIGHT_COLOR if ratio >= 0.5 else WRONG_COLOR};")
        note = self.tr("Seed %1 (enter it to replay this round), %2 s per question.")
        note = note.replace("%1", str(interview.seed)).replace("%2", f"{interview.seconds:g}")
        if answered < interview.total:
            note += " " + self.tr("Stopped after %1 of %2 questions.").replace(
                "%1", str(answered)
            ).replace("%2", str(interview.total))
        self.score_note.setText(note)
        review = interview.review()
        self.review.clear()
        self.review.setHeaderLabels(
            [self.tr("To review"), self.tr("You"), self.tr("The real run"), self.tr("Scenario")]
        )
        for result in review:
            exercise, verdict = result.exercise, result.verdict
            you = (
                option_words(exercise, verdict.prediction)
                if verdict.prediction is not None
                else self.tr("passed")
            )
            if verdict.timed_out:
                you += " " + self.tr("(late)")
            real = option_words(exercise, verdict.answer.value) if verdict.answer else "—"
            scenario = f"{text(exercise.chapter.title)} ({variant_name(exercise)})"
            item = QTreeWidgetItem(self.review, [text(exercise.title), you, real, scenario])
            item.setIcon(0, scenario_icon(exercise))
            item.setData(0, Qt.ItemDataRole.UserRole, (exercise.scenario, exercise.variant))
            item.setData(1, Qt.ItemDataRole.UserRole, exercise.id)
            item.setToolTip(0, text(exercise.explanation))
            item.setToolTip(3, self.tr("Double-click to open this scenario and play with it."))
        for column in range(4):
            self.review.resizeColumnToContents(column)
        self.review.setColumnWidth(0, min(self.review.columnWidth(0), 320))
        self.review.setVisible(bool(review))
        self.review_title.setText(
            self.tr("What to review (double-click a row to open its scenario):")
            if review
            else self.tr("Nothing to review: every answer was right and in time.")
        )
        self.review_title.setStyleSheet("" if review else f"color: {RIGHT_COLOR};")
        for button in self.scenario_buttons:
            self.scenario_row.removeWidget(button)
            button.deleteLater()
        self.scenario_buttons = []
        firsts: dict[str, Any] = {}
        for result in review:
            firsts.setdefault(result.exercise.scenario, result.exercise)
        for scenario in interview.review_scenarios():
            exercise = firsts[scenario]
            button = QPushButton(scenario_icon(exercise), text(exercise.chapter.title), self)
            button.setObjectName(f"interviewScenario_{scenario}")
            button.setToolTip(self.tr("Open the scenario that teaches the points you missed."))
            button.clicked.connect(
                lambda _=False, s=scenario, v=exercise.variant: self.open_scenario.emit(s, v)
            )
            self.scenario_row.insertWidget(len(self.scenario_buttons), button)
            self.scenario_buttons.append(button)
        self.scenarios_title.setVisible(bool(review))
        self.scenarios_title.setText(self.tr("Scenarios that teach them:"))

    def review_rows(self) -> list[str]:
        """The exercise ids in the review list, top to bottom (tests)."""
        items = (self.review.topLevelItem(i) for i in range(self.review.topLevelItemCount()))
        return [str(item.data(1, Qt.ItemDataRole.UserRole)) for item in items if item is not None]

    def _review_activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        scenario, variant = item.data(0, Qt.ItemDataRole.UserRole)
        self.open_scenario.emit(scenario, variant)

    # -- language -------------------------------------------------------------------------
    def _relabel_progress(self) -> None:
        interview = self.interview
        if interview is None:
            return
        position = min(interview.position, interview.total - 1)
        self.progress.setText(
            self.tr("Question %1 of %2 · score so far %3")
            .replace("%1", str(position + 1))
            .replace("%2", str(interview.total))
            .replace("%3", str(interview.score))
        )

    def _relabel_next(self) -> None:
        if self.interview is not None and self.interview.done:
            self.next_button.setText(self.tr("See the score ▶"))
        else:
            self.next_button.setText(self.tr("Next question ▶"))

    def retranslate(self) -> None:
        self.intro.setText(
            self.tr(
                "An interview round: questions drawn at random from the exercises, each "
                "against the clock. Predict, and the real run of JAX settles it. An answer "
                "after the time is up is still checked, but scores nothing. At the end: "
                "your score and what to review, with the scenarios that teach it."
            )
        )
        self.count_label.setText(self.tr("Questions:"))
        if self.catalogue is not None:
            self.pool_note.setText(
                self.tr("Questions are drawn from the %1 exercises that can run here.").replace(
                    "%1", str(len(self.catalogue.available))
                )
            )
        self.seconds_label.setText(self.tr("Seconds per question:"))
        self.seed_label.setText(self.tr("Seed:"))
        self.seed.setSpecialValueText(self.tr("random"))
        self.count.setToolTip(self.tr("How many questions to draw for this round."))
        self.seconds.setToolTip(
            self.tr("Time to answer each question; the clock stops while JAX runs the code.")
        )
        self.seed.setToolTip(
            self.tr("The same seed draws the same questions in the same order: replay a round.")
        )
        self.start_button.setText(self.tr("Start the round ▶"))
        self.start_button.setToolTip(self.tr("Draw the questions and start the first clock."))
        self.submit_button.setText(self.tr("Submit and run ▶"))
        self.submit_button.setToolTip(
            self.tr("Lock in your prediction; the code runs for real and settles it.")
        )
        self.pass_button.setText(self.tr("Pass"))
        self.pass_button.setToolTip(
            self.tr(
                "Skip this question (it goes on the review list); the run still shows the answer."
            )
        )
        self.quit_button.setText(self.tr("End the round"))
        self.quit_button.setToolTip(
            self.tr("Stop now and see the score for the questions answered.")
        )
        self.busy_label.setText(self.tr("Running the real code… (the clock is stopped)"))
        self.busy.setToolTip(self.tr("JAX is tracing, compiling and running the snippet."))
        self.clock.setToolTip(self.tr("Time left for this question."))
        self.again_button.setText(self.tr("New round"))
        self.again_button.setToolTip(self.tr("Back to the round's settings."))
        self.review.setToolTip(
            self.tr("Wrong, passed or late answers. Double-click one to open its scenario.")
        )
        self.score.setToolTip(self.tr("Right answers in time, out of the questions drawn."))
        self._relabel_progress()
        self._relabel_next()
        if self.interview is not None:
            if self.timer.isActive():
                self._tick()
            if self.pages.currentWidget() is self.end_page:
                self.render_score()
