"""The lab's lesson column (question, story, and the answer once a call is made) and the
Complete (summary) page of the four-mode demo."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from superqt.utils import qthrottled

from jitlab.gui.i18n import Retranslating, language
from jitlab.gui.style import VARIANT_COLORS, format_ms
from jitlab.gui.views.chart import CallAxis, DecadeAxis
from jitlab.gui.views.model import Change, RunState, Segment
from jitlab.lab.spec import Comparison, Measure, Scenario, ScriptLesson, Text
from jitlab.lab.verdict import Verdict, judge, matches
from jitlab.records.calls import CallKind, CallRecord, Summary

REFRESH_MS = 200  # the summary while calls stream in: at most 5 times a second
# The comparison chart's colours: the live chart's for the variants, never a call kind's
# (red recompile, green hit, ...).
LINE_COLORS = {"pitfall": VARIANT_COLORS["pitfall"], "fix": VARIANT_COLORS["fix"]}
# Where a failed call sits on the comparison chart: a row of its own, never a latency.
FAILED = Text("failed call (no latency)", "失败的调用（没有耗时）")
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7}
_ZH_DIGITS.update({"八": 8, "九": 9, "十": 10})
# Start mode frames the question in the accent colour.
_EMPHASIS = (
    "QGroupBox#questionBox { border: 2px solid ACCENT; border-radius: 6px;"
    " margin-top: 1.1em; padding-top: 4px; font-weight: bold; }"
    " QGroupBox#questionBox::title { subcontrol-origin: margin; left: 8px; padding: 0 3px; }"
)


class LessonPanel(Retranslating, QScrollArea):
    """The lab's left column, in the order a learner thinks: what this is about, the question
    and a prediction, then the controls (the window places its sliders and run controls in
    :attr:`controls`), the kitchen story, and the answer.

    The answer (what goes wrong, why, the fix) stays locked until the learner has made a call
    of this scenario; then a click opens it. A new scenario locks it again. The panel follows
    the run model like any view (:meth:`RunState.subscribe`).
    """

    start_clicked = Signal()
    answer_toggled = Signal(bool)  # the answer opened (True) or closed
    fix_code_clicked = Signal()  # show the fix as code (the window's code pane)
    scripts_clicked = Signal()  # open the scripts the lesson names (their diff)

    def __init__(self, state: RunState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonPanel")
        self.state = state
        self.scenario: type[Scenario] | None = None
        self.stage = "start"
        self.unlocked = False  # a call of this scenario has finished
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        inner = QWidget(self)
        inner.setObjectName("lessonInner")
        self.heading = QLabel(inner)
        self.heading.setObjectName("lessonHeading")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.RichText)

        self.question_box = QGroupBox(inner)
        self.question_box.setObjectName("questionBox")
        self.question = QLabel(self.question_box)
        self.question.setObjectName("question")
        self.question.setWordWrap(True)
        # A plugin's own words: shown as written, never read as markup (so is the story).
        self.question.setTextFormat(Qt.TextFormat.PlainText)
        self.question.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.question.font()
        font.setPointSizeF(font.pointSizeF() * 1.1)
        font.setBold(True)
        self.question.setFont(font)
        self.prediction = QLineEdit(self.question_box)
        self.prediction.setObjectName("prediction")
        self.start = QPushButton(self.question_box)
        self.start.setObjectName("startButton")
        self.start.setDefault(True)
        self.start.clicked.connect(self.start_clicked)
        self.prediction.returnPressed.connect(self.start_clicked)
        self.hint = QLabel(self.question_box)
        self.hint.setObjectName("questionHint")
        self.hint.setWordWrap(True)
        q = QVBoxLayout(self.question_box)
        q.addWidget(self.question)
        q.addWidget(self.prediction)
        row = QHBoxLayout()
        row.addWidget(self.hint, 1)
        row.addWidget(self.start, 0, Qt.AlignmentFlag.AlignTop)
        q.addLayout(row)

        self.controls = QVBoxLayout()  # the sliders and the run controls go here
        self.controls.setContentsMargins(0, 0, 0, 0)

        self.story_box = QGroupBox(inner)
        self.story_box.setObjectName("storyBox")
        # The kitchen story tells what goes wrong in the kitchen's words (a new portion means
        # a new rehearsal): it unlocks with the answer, after the learner's first call.
        self.text = QLabel(self.story_box)
        self.text.setObjectName("lessonStory")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        story = QVBoxLayout(self.story_box)
        story.addWidget(self.text)

        self.answer_button = QToolButton(inner)
        self.answer_button.setObjectName("answerButton")
        self.answer_button.setCheckable(True)
        self.answer_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.answer_button.setArrowType(Qt.ArrowType.RightArrow)
        self.answer_button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.answer_button.toggled.connect(self._show_answer)
        self.answer_note = QLabel(inner)
        self.answer_note.setObjectName("answerLocked")
        self.answer_note.setWordWrap(True)
        self.answer = QLabel(inner)
        self.answer.setObjectName("answerText")
        self.answer.setWordWrap(True)
        self.answer.setTextFormat(Qt.TextFormat.RichText)
        self.answer.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.fix_code = QPushButton(inner)
        self.fix_code.setObjectName("fixCodeButton")
        self.fix_code.clicked.connect(self.fix_code_clicked)
        # What the chef's scripts show (the scenario's ScriptLesson), and a button to see it.
        self.scripts_text = QLabel(inner)
        self.scripts_text.setObjectName("answerScripts")
        self.scripts_text.setWordWrap(True)
        self.scripts_text.setTextFormat(Qt.TextFormat.RichText)
        self.scripts_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.scripts_button = QPushButton(inner)
        self.scripts_button.setObjectName("compareScriptsButton")
        self.scripts_button.clicked.connect(self.scripts_clicked)
        self.scripts_status = QLabel(inner)
        self.scripts_status.setObjectName("scriptsStatus")
        self.scripts_status.setWordWrap(True)
        self._scripts_note = ""  # what to do before the button works ("" when it does)
        self.scripts_status_of: Callable[[], str] | None = None  # set by the window
        self.answer.hide()
        self.fix_code.hide()
        self.story_box.hide()  # until the first call (see _changed)
        for widget in (self.scripts_text, self.scripts_button, self.scripts_status):
            widget.hide()

        layout = QVBoxLayout(inner)
        layout.setContentsMargins(0, 0, 4, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.question_box)
        layout.addLayout(self.controls)
        layout.addWidget(self.story_box)
        layout.addWidget(self.answer_button)
        layout.addWidget(self.answer_note)
        layout.addWidget(self.answer)
        layout.addWidget(self.fix_code, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.scripts_text)
        layout.addWidget(self.scripts_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.scripts_status)
        layout.addStretch(1)
        self.setWidget(inner)
        self._lock()
        self.set_stage("start")
        self.retranslate()
        state.subscribe(self._changed)

    # -- the answer -----------------------------------------------------------------------
    def _changed(self, change: Change) -> None:
        if change.cleared:
            self._lock()
        if not self.unlocked and self.state.calls > 0:
            self.unlocked = True
            self.answer_button.setEnabled(True)
            self.answer_note.hide()
            self.story_box.show()

    def _lock(self) -> None:
        self.unlocked = False
        self.answer_button.setChecked(False)
        self.answer_button.setEnabled(False)
        self.answer_note.show()
        self.story_box.hide()

    def _show_answer(self, shown: bool) -> None:
        self.answer.setVisible(shown)
        self.fix_code.setVisible(shown)
        self._show_scripts()
        self.answer_button.setArrowType(
            Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        )
        self.answer_toggled.emit(shown)
        if shown:  # the opened answer is the point: scroll it up, once it is laid out
            QTimer.singleShot(0, self._scroll_to_answer)

    def fit_width(self, least: int, most: int) -> None:
        """As wide as the widest control needs (never cut at the right edge: it does not
        scroll sideways), between ``least`` and ``most`` pixels."""
        inner = self.widget()
        inner.layout().activate()
        need = inner.minimumSizeHint().width() + self.verticalScrollBar().sizeHint().width() + 6
        self.setMinimumWidth(max(least, min(most, need)))

    def _scroll_to_answer(self) -> None:
        """Bring the answer's heading to the top of the column (as far as it scrolls)."""
        if self.answer_button.isChecked():
            self.widget().layout().activate()
            self.verticalScrollBar().setValue(self.answer_button.y() - 4)

    def _lesson_scripts(self) -> ScriptLesson | None:
        return getattr(self.scenario, "scripts", None)

    def _show_scripts(self) -> None:
        shown = self.answer_button.isChecked() and self._lesson_scripts() is not None
        refs = self._lesson_scripts().compare if shown else ()
        self.scripts_text.setVisible(shown)
        self.scripts_button.setVisible(bool(refs))
        self.scripts_status.setVisible(bool(refs) and bool(self._scripts_note))

    def refresh_scripts(self) -> None:
        """Ask :attr:`scripts_status_of` again (a named card's script arrived)."""
        if self.scripts_status_of is not None:
            self.set_scripts_status(self.scripts_status_of())

    def set_scripts_status(self, note: str) -> None:
        """What to do before the lesson's scripts can be compared (empty: they can)."""
        self._scripts_note = note
        self.scripts_status.setText(note)
        self.scripts_button.setEnabled(not note)
        self._show_scripts()

    @property
    def answer_shown(self) -> bool:
        return self.answer_button.isChecked()

    def reveal(self) -> bool:
        """Open the answer as a click would; False while it is locked (no call made yet)."""
        if self.unlocked:
            self.answer_button.setChecked(True)
        return self.answer_shown

    # -- stages ---------------------------------------------------------------------------
    def set_stage(self, stage: str) -> None:
        """Start puts the question forward (framed, with its Start button); later modes keep
        it on show, quieter."""
        self.stage = stage
        starting = stage == "start"
        self.start.setVisible(starting)
        self.question_box.setProperty("emphasis", starting)
        accent = self.palette().color(self.palette().ColorRole.Highlight).name()
        self.question_box.setStyleSheet(_EMPHASIS.replace("ACCENT", accent) if starting else "")
        self.retranslate()

    def show_scenario(self, scenario: type[Scenario]) -> None:
        self.scenario = scenario
        self.prediction.clear()
        self._lock()
        self.verticalScrollBar().setValue(0)
        self.retranslate()

    def retranslate(self) -> None:
        lang = language()
        self.question_box.setTitle(self.tr("Predict before you run"))
        self.question_box.setToolTip(
            self.tr("The question to keep in mind while you cook, and your prediction.")
        )
        self.prediction.setPlaceholderText(self.tr("Your prediction (kept for the summary)…"))
        self.prediction.setToolTip(
            self.tr("Write down what you expect; the summary shows it next to what happened.")
        )
        self.start.setText(self.tr("Start cooking →"))
        self.start.setToolTip(
            self.tr("Keep your prediction and start: move a slider or press Step (Execute mode).")
        )
        self.hint.setText(
            self.tr("Then move a slider or press Step: each change is one call.")
            if self.stage == "start"
            else self.tr("Each slider move or Step is one call.")
        )
        self.story_box.setTitle(self.tr("In Chef Wang's kitchen"))
        self.answer_button.setText(self.tr("The answer"))
        self.answer_button.setToolTip(
            self.tr("Opens after your first call: predict, run, then compare.")
            if not self.unlocked
            else self.tr("Show or hide the answer.")
        )
        self.answer_note.setText(
            self.tr(
                "Make your first call to unlock Chef Wang's story and the answer. Predict first!"
            )
        )
        self.fix_code.setText(self.tr("See the fix as code →"))
        self.fix_code.setToolTip(self.tr("What the fix changes, as a diff against the pitfall."))
        s = self.scenario
        if s is None:
            self.heading.setText(html.escape(self.tr("Loading the scenarios…")))
            self.question.setText("")
            self.text.setText("")
            self.answer.setText("")
            return
        self.heading.setText(
            f"<span style='font-size:large; font-weight:bold'>{html.escape(s.title.get(lang))}"
            f"</span><br><span style='color:gray'>{html.escape(s.pitfall.title.get(lang))}</span>"
        )
        self.question.setText(s.question.get(lang))
        self.text.setText(s.lesson.kitchen.get(lang))
        sections = (
            (self.tr("What goes wrong"), s.lesson.what),
            (self.tr("Why"), s.lesson.why),
            (self.tr("The fix"), s.lesson.fix),
        )
        self.answer.setText(
            "".join(
                f"<p><b>{html.escape(heading)}</b><br>{html.escape(text.get(lang))}</p>"
                for heading, text in sections
            )
        )
        lesson = self._lesson_scripts()
        if lesson is not None:
            heading = self.tr("What the scripts show")
            self.scripts_text.setText(
                f"<p><b>{html.escape(heading)}</b><br>{html.escape(lesson.text.get(lang))}</p>"
            )
            self.scripts_button.setText(
                self.tr("Compare the scripts")
                if len(lesson.compare) > 1
                else self.tr("Read the script")
            )
            self.scripts_button.setToolTip(
                self.tr("Opens the chef's scripts of the calls named above, side by side.")
            )
        else:
            self.scripts_text.setText("")
        self.refresh_scripts()
        self._show_scripts()


class SummaryPage(Retranslating, QWidget):
    """Complete: what it cost, the fix measured side by side with the pitfall, and export."""

    measure_clicked = Signal()
    export_png = Signal()
    export_csv = Signal()
    export_json = Signal()
    back_clicked = Signal()
    quiz_clicked = Signal()  # practise this pitfall: predict-then-run exercises

    ROWS = (
        "calls",
        "errors",
        "compiles",
        "recompiles",
        "hit_rate",
        "time_lost",
        "mean_hit",
        "total",
    )

    def __init__(self, state: RunState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.prediction_text = ""
        self.title = QLabel(self)
        self.title.setObjectName("summaryTitle")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        self.title.setFont(font)
        self.table_box = QGroupBox(self)
        self.grid = QGridLayout(self.table_box)
        self.grid.setHorizontalSpacing(28)
        self.row_labels: dict[str, QLabel] = {}
        self.cells: dict[tuple[str, str], QLabel] = {}
        self.heads = {v: QLabel(self) for v in ("pitfall", "fix")}
        for col, (variant, head) in enumerate(self.heads.items(), start=1):
            f = head.font()
            f.setBold(True)
            head.setFont(f)
            head.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            head.setMinimumWidth(110)
            self.grid.addWidget(head, 0, col)
            del variant
        for row, key in enumerate(self.ROWS, start=1):
            label = QLabel(self)
            self.row_labels[key] = label
            self.grid.addWidget(label, row, 0)
            for col, variant in enumerate(("pitfall", "fix"), start=1):
                cell = QLabel("–", self)
                cell.setObjectName(f"summary_{variant}_{key}")
                cell.setWordWrap(key == "errors")  # a list of error names: never page-wide
                cell.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.cells[(variant, key)] = cell
                self.grid.addWidget(cell, row, col)
        self.grid.setColumnStretch(3, 1)  # keep the numbers next to their labels
        self.verdict = QLabel(self)
        self.verdict.setObjectName("verdict")
        self.verdict.setWordWrap(True)
        self.prediction = QLabel(self)
        self.prediction.setWordWrap(True)
        self.lesson = QLabel(self)
        self.lesson.setWordWrap(True)
        # The live chart's axes: labels that never pile up on a log scale, whole call numbers.
        self.compare = pg.PlotWidget(
            self, axisItems={"left": DecadeAxis("left"), "bottom": CallAxis("bottom")}
        )
        self.compare.setObjectName("comparePlot")
        self.compare.setMinimumHeight(220)
        plot = self.compare.getPlotItem()
        plot.setLogMode(x=False, y=True)
        plot.showGrid(x=False, y=True, alpha=0.2)
        plot.setMenuEnabled(False)
        plot.hideButtons()
        self.compare.setBackground(self.palette().color(self.backgroundRole()).lighter(103))
        for name in ("left", "bottom"):
            plot.getAxis(name).setTextPen(pg.mkPen(self.palette().color(self.foregroundRole())))
        self.compare_lines = {
            "pitfall": plot.plot(
                pen=pg.mkPen(LINE_COLORS["pitfall"], width=2),
                symbol="o",
                symbolSize=7,
                symbolPen=pg.mkPen(LINE_COLORS["pitfall"]),
                symbolBrush=pg.mkBrush(LINE_COLORS["pitfall"]),
            ),
            "fix": plot.plot(
                pen=pg.mkPen(LINE_COLORS["fix"], width=2, style=Qt.PenStyle.DashLine),
                symbol="t",
                symbolSize=8,
                symbolPen=pg.mkPen(LINE_COLORS["fix"]),
                symbolBrush=pg.mkBrush(LINE_COLORS["fix"]),
            ),
        }
        # A failed call has no latency: a cross on a row of its own, below every latency.
        self.failed_marks = {
            variant: plot.plot(
                pen=None,
                symbol="x",
                symbolSize=11,
                symbolPen=pg.mkPen(LINE_COLORS[variant], width=2),
                symbolBrush=pg.mkBrush(LINE_COLORS[variant]),
            )
            for variant in ("pitfall", "fix")
        }
        # The legend sits in the title row above the plot: it never covers a point.
        self.compare_legend = pg.LegendItem(colCount=2)
        self.compare_legend.setLabelTextColor(self.palette().color(self.foregroundRole()))
        plot.layout.removeItem(plot.titleLabel)
        plot.titleLabel.hide()
        plot.layout.addItem(self.compare_legend, 0, 1)
        plot.layout.setRowFixedHeight(0, 30)
        self.measure = QPushButton(self)
        self.measure.setObjectName("measureButton")
        self.measure.clicked.connect(self.measure_clicked)
        self.back = QPushButton(self)
        self.back.clicked.connect(self.back_clicked)
        self.quiz = QPushButton(self)
        self.quiz.setObjectName("quizButton")
        self.quiz.clicked.connect(self.quiz_clicked)
        self.png = QPushButton(self)
        self.png.clicked.connect(self.export_png)
        self.csv = QPushButton(self)
        self.csv.clicked.connect(self.export_csv)
        self.json = QPushButton(self)
        self.json.clicked.connect(self.export_json)
        buttons = QHBoxLayout()
        for b in (self.measure, self.back, self.quiz):
            buttons.addWidget(b)
        buttons.addStretch(1)
        for b in (self.png, self.csv, self.json):
            buttons.addWidget(b)
        inner = QWidget(self)
        layout = QVBoxLayout(inner)
        layout.addWidget(self.title)
        layout.addWidget(self.verdict)  # the lesson's verdict first, then the table
        # The table and the chart side by side: both above the fold at 1024×640 (stacked,
        # the chart began below it).
        payoff = QHBoxLayout()
        payoff.addWidget(self.table_box, 0, Qt.AlignmentFlag.AlignTop)
        payoff.addWidget(self.compare, 1)
        self.table_box.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Maximum)
        layout.addLayout(payoff, 1)
        layout.addWidget(self.prediction)
        layout.addWidget(self.lesson)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        outer.addLayout(buttons)  # below the scrolling part: always in reach on a small screen
        self.scenario: type[Scenario] | None = None
        self.retranslate()
        self._refresh_later = qthrottled(self.refresh, timeout=REFRESH_MS, parent=self)
        state.subscribe(self._changed)

    def _changed(self, change: Change) -> None:
        if self.isVisible() and (change.served or change.cleared or change.new_segment):
            self._refresh_later()  # hidden, it refreshes when shown (Complete mode)

    def show_scenario(self, scenario: type[Scenario]) -> None:
        self.scenario = scenario
        self.retranslate()

    def summaries(self) -> dict[str, Summary | None]:
        out: dict[str, Summary | None] = {}
        for variant in ("pitfall", "fix"):
            segment = self.state.latest(variant)
            out[variant] = segment.summary() if segment else None
        return out

    def refresh(self) -> None:
        self.lesson.setVisible(self.state.calls > 0)  # the fix is the answer: not before a call
        summaries = self.summaries()
        for variant, summary in summaries.items():
            segment = self.state.latest(variant)
            for key in self.ROWS:
                self.cells[(variant, key)].setText(
                    self._cell(key, summary, segment.records if segment else [])
                )
        self._plot_compare()
        p, f = summaries["pitfall"], summaries["fix"]
        if p and f and p.calls and f.calls:
            first, *rest = (html.escape(line) for line in self.verdict_lines())
            self.verdict.setText("<br>".join([f"<b>{first}</b>", *rest]))
        else:
            self.verdict.setText(
                self.tr("Run both variants (or press “Measure both”) to compare them side by side.")
            )
        self.prediction.setText("<br>".join(html.escape(line) for line in self.prediction_lines()))

    def lesson_verdict(self) -> Verdict | None:
        """The lesson's verdict on the latest pitfall and fix runs: the scenario's own measure,
        judged by the function ``jitlab run --compare`` prints (jitlab.lab.verdict)."""
        runs = [self.state.latest(v) for v in ("pitfall", "fix")]
        if not all(run and run.records for run in runs):
            return None
        pitfall, fix = (list(run.records) for run in runs)  # type: ignore[union-attr]
        return judge(self._comparison(), pitfall, fix)

    def _comparison(self) -> Comparison:
        """The lesson's comparison (without a scenario: compiles, on the calls made)."""
        return self.scenario.comparison() if self.scenario else Comparison(Measure.COMPILES, ())

    def missing(self) -> tuple[str, ...]:
        """What Complete must run first so the pitfall and the fix are like with like: the
        variants whose latest run is not the lesson's comparison sequence (none when the two
        runs already made the same calls)."""
        if self.scenario is None:
            return ()
        comparison = self.scenario.comparison()
        runs = {v: self.state.latest(v) for v in comparison.variants}
        records = {v: list(run.records) if run else [] for v, run in runs.items()}
        p, f = records[comparison.pitfall], records[comparison.fix]
        if p and f and [r.params for r in p] == [r.params for r in f]:
            return ()
        return tuple(v for v in comparison.variants if not matches(comparison, records[v]))

    def verdict_lines(self) -> list[str]:
        """The lesson's verdict first, on its own measure; then time per cached call, said
        only outside the noise of its rounds; then whether the runs are like with like."""
        runs = {v: self.state.latest(v) for v in ("pitfall", "fix")}
        verdict = self.lesson_verdict()
        assert verdict is not None  # refresh asks only once both variants have run
        lang = language()
        lines = [verdict.text(lang)]
        comparison = self._comparison()
        if verdict.note is not None and all(
            matches(comparison, list(run.records))  # type: ignore[union-attr]
            for run in runs.values()
        ):
            lines.append(verdict.note.get(lang))  # what these calls show (the lesson's words)
        if verdict.pitfall.errors or verdict.fix.errors:
            lines.append(
                self.tr(
                    "A call that raises gives no result, so its time is no saving: "
                    "compare the costs of runs that work."
                )
            )
        else:
            lines.append(verdict.timing.sentence.get(lang))
        lines.append(self._like_with_like(runs["pitfall"], runs["fix"]))  # type: ignore[arg-type]
        return lines

    def _like_with_like(self, pitfall: Segment, fix: Segment) -> str:
        p, f = pitfall.records, fix.records
        n = len(p)
        if n != len(f):
            text = (
                self.tr(
                    "Not like with like: the pitfall run made %n call, the fix run %2. "
                    "Press “Measure both” to run both on the same calls.",
                    "",
                    n,
                )
                if n == 1
                else self.tr(
                    "Not like with like: the pitfall run made %n calls, the fix run %2. "
                    "Press “Measure both” to run both on the same calls.",
                    "",
                    n,
                )
            )
            return text.replace("%2", str(len(f)))
        if [r.params for r in p] != [r.params for r in f]:
            return (
                self.tr(
                    "Not like with like: the two runs made their %n call with different "
                    "parameters. Press “Measure both” to run both on the same calls.",
                    "",
                    n,
                )
                if n == 1
                else self.tr(
                    "Not like with like: the two runs made their %n calls with different "
                    "parameters. Press “Measure both” to run both on the same calls.",
                    "",
                    n,
                )
            )
        return (
            self.tr("Like with like: both runs made the same %n call.", "", n)
            if n == 1
            else self.tr("Like with like: both runs made the same %n calls.", "", n)
        )

    def prediction_lines(self) -> list[str]:
        """The learner's prediction from the Start page, next to what each run did."""
        lines = []
        if self.prediction_text:
            lines.append(self.tr("Your prediction: %1").replace("%1", self.prediction_text))
        counts = {}
        for variant in ("pitfall", "fix"):
            segment = self.state.latest(variant)
            if segment is None:
                continue
            calls = _compile_calls(segment.records)
            counts[variant] = len(calls)
            if not calls:
                lines.append(
                    self.tr("The pitfall run did not compile.")
                    if variant == "pitfall"
                    else self.tr("The fix run did not compile.")
                )
                continue
            n = len(calls)
            if variant == "pitfall":
                text = (
                    self.tr("The pitfall run compiled once: call %2.", "", n)
                    if n == 1
                    else self.tr("The pitfall run compiled %n times: calls %2.", "", n)
                )
            else:
                text = (
                    self.tr("The fix run compiled once: call %2.", "", n)
                    if n == 1
                    else self.tr("The fix run compiled %n times: calls %2.", "", n)
                )
            lines.append(text.replace("%2", ", ".join(str(c) for c in calls)))
        said = _first_number(self.prediction_text)
        if said is None or not counts:
            return lines
        hits = [v for v, n in counts.items() if n == said]
        if "pitfall" in hits and "fix" in hits:
            verdict = self.tr("You said %1: right for both runs.")
        elif "pitfall" in hits:
            verdict = self.tr("You said %1: right for the pitfall run.")
        elif "fix" in hits:
            verdict = self.tr("You said %1: right for the fix run.")
        else:
            verdict = self.tr("You said %1: neither run compiled that many times.")
        lines.append(verdict.replace("%1", str(said)))
        return lines

    def _cell(self, key: str, summary: Summary | None, records: list[CallRecord]) -> str:
        if summary is None or not summary.calls:
            return "–"
        if key == "errors":
            if not summary.errors:
                return "0"
            n = summary.calls
            text = (
                self.tr("%1 of %n call failed: %3", "", n)
                if n == 1
                else self.tr("%1 of %n calls failed: %3", "", n)
            )
            types = _error_types(records)
            if types.count(", ") >= 1:  # several: the verdict above names them; keep it narrow
                kinds = self.tr("%n error types", "", types.count(", ") + 1)
                return text.replace("%1", str(summary.errors)).replace("%3", kinds)
            return text.replace("%1", str(summary.errors)).replace("%3", types)
        if key == "hit_rate" and summary.errors == summary.calls:
            return "–"  # no call was served: a rate of nothing
        if key in ("time_lost", "mean_hit", "total") and summary.errors:
            if summary.errors == summary.calls:
                return self.tr("none: every call failed")
            return (
                _cell(key, summary, records)
                + " "
                + self.tr("(+%1 failed)").replace("%1", str(summary.errors))
            )
        return _cell(key, summary, records)

    def _plot_compare(self) -> None:
        """Latency per call of the latest pitfall run and the latest fix run, from call 0."""
        longest = max(
            (len(s.records) for v in self.compare_lines if (s := self.state.latest(v))),
            default=1,
        )
        # Calls are whole numbers: no ticks at 0.5 on a short run.
        major = max(1, int(np.ceil(longest / 10)))
        self.compare.getPlotItem().getAxis("bottom").setTickSpacing(major, major)
        kept = {}
        for variant in self.compare_lines:
            segment = self.state.latest(variant)
            kept[variant] = segment.records[-5000:] if segment else []
        served = [r.latency_ms for rs in kept.values() for r in rs if r.kind is not CallKind.ERROR]
        floor = max(min(served, default=1.0) / 4, 1e-4)  # the failed calls' row
        for variant, line in self.compare_lines.items():
            records = kept[variant]
            ok = [i for i, r in enumerate(records) if r.kind is not CallKind.ERROR]
            failed = [i for i, r in enumerate(records) if r.kind is CallKind.ERROR]
            line.setData(
                np.array(ok, dtype=float),
                np.array([max(records[i].latency_ms, 1e-4) for i in ok], dtype=float),
            )
            self.failed_marks[variant].setData(
                np.array(failed, dtype=float), np.full(len(failed), floor)
            )
        self._legend_failed(any(r.kind is CallKind.ERROR for rs in kept.values() for r in rs))
        self._label_runs()

    def _label_runs(self) -> None:
        """The runs overlay from call 0; the axis says where each starts in the log's
        numbering (the one numbering the log, the live chart and the text above use)."""
        runs = {v: self.state.latest(v) for v in ("pitfall", "fix")}
        starts = {v: run.records[0].index for v, run in runs.items() if run and run.records}
        label = self.tr("call number in the run")
        if len(starts) == 2:
            label = (
                self.tr("call in the run (0: pitfall #%1, fix #%2)")
                .replace("%1", str(starts["pitfall"]))
                .replace("%2", str(starts["fix"]))
            )
        self.compare.getPlotItem().setLabel("bottom", label)

    def _legend_failed(self, shown: bool) -> None:
        """The failed-call cross in the legend only while a failed call is on the chart."""
        mark = self.failed_marks["pitfall"]
        listed = any(sample.item is mark for sample, _ in self.compare_legend.items)
        if shown and not listed:
            self.compare_legend.addItem(mark, FAILED.get(language()))
        elif listed and not shown:
            self.compare_legend.removeItem(mark)

    def retranslate(self) -> None:
        lang = language()
        title = self.scenario.title.get(lang) if self.scenario else ""
        self.title.setText(self.tr("Summary: %1").replace("%1", title))
        self.table_box.setTitle(
            self.tr("The fix measured against the pitfall (latest run of each)")
        )
        self.heads["pitfall"].setText(self.tr("Pitfall"))
        self.heads["fix"].setText(self.tr("Fix"))
        names = {
            "calls": self.tr("Calls"),
            "errors": self.tr("Errors"),
            "compiles": self.tr("Compiles (all)"),
            "recompiles": self.tr("of which recompiles"),
            "hit_rate": self.tr("Cache hit rate"),
            "time_lost": self.tr("Time lost to compiling"),
            "mean_hit": self.tr("Mean latency of a cache hit"),
            "total": self.tr("Total time of all calls"),
        }
        for key, text in names.items():
            self.row_labels[key].setText(text)
        self.lesson.setText(
            "<b>" + self.tr("Remember:") + "</b> " + html.escape(self.scenario.lesson.fix.get(lang))
            if self.scenario
            else ""
        )
        plot = self.compare.getPlotItem()
        plot.setLabel("left", self.tr("latency (ms, log scale)"))
        self._label_runs()
        self.compare.setToolTip(
            self.tr("The same calls on the pitfall (solid) and on the fix (dashed), from call 0.")
        )
        self.compare_legend.clear()
        self.compare_legend.addItem(self.compare_lines["pitfall"], self.tr("Pitfall"))
        self.compare_legend.addItem(self.compare_lines["fix"], self.tr("Fix"))
        self.measure.setText(self.tr("Measure both"))
        self.measure.setToolTip(
            self.tr("Run the same calls on the pitfall, then on the fix, and compare.")
        )
        self.back.setText(self.tr("← Back to the kitchen"))
        self.back.setToolTip(self.tr("Return to Execute mode."))
        self.quiz.setText(self.tr("Test yourself…"))
        self.quiz.setToolTip(
            self.tr("Predict-then-run exercises on this pitfall, settled by real runs.")
        )
        self.png.setText(self.tr("Export chart (PNG)…"))
        self.png.setToolTip(self.tr("Save the latency chart as a PNG image."))
        self.csv.setText(self.tr("Export log (CSV)…"))
        self.csv.setToolTip(self.tr("Save every call as a CSV row."))
        self.json.setText(self.tr("Export log (JSON)…"))
        self.json.setToolTip(
            self.tr("Save every call as JSON, the same fields as `jitlab run --json`.")
        )
        self.refresh()


def _cell(key: str, summary: Summary | None, records: list[CallRecord]) -> str:
    if summary is None or not summary.calls:
        return "–"
    if key == "calls":
        return str(summary.calls)
    if key == "compiles":
        return str(summary.compiles + summary.recompiles)
    if key == "recompiles":
        return str(summary.recompiles)
    if key == "hit_rate":
        return f"{summary.hit_rate:.0%}"
    if key == "time_lost":
        return format_ms(summary.time_lost_ms)
    if key == "mean_hit":
        hits = [r.latency_ms for r in records if r.kind is CallKind.CACHE_HIT]
        return format_ms(sum(hits) / len(hits)) if hits else "–"
    return format_ms(sum(r.latency_ms for r in records))


def _compile_calls(records: list[CallRecord]) -> list[str]:
    """Where a run compiled, by the call numbers the log, the live chart and the ledger show
    (``#6``, not "call 0 of the fix run": one numbering everywhere)."""
    kinds = (CallKind.COMPILE, CallKind.RECOMPILE)
    return [f"#{r.index}" for r in records if r.kind in kinds]


def _error_types(records: list[CallRecord]) -> str:
    names: list[str] = []
    for r in records:
        if r.kind is CallKind.ERROR and r.error is not None and r.error.type not in names:
            names.append(r.error.type)
    return ", ".join(names) or "?"


def _first_number(text: str) -> int | None:
    """The first count in a prediction: "2 compiles", "两次", "三"."""
    match = re.search(r"\d+|[零一二两三四五六七八九十]", text)
    if match is None:
        return None
    token = match.group()
    return int(token) if token.isdigit() else _ZH_DIGITS[token]
