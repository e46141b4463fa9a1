"""The Complete (summary) page of the four-mode demo: what it cost, the fix measured side by
side with the pitfall, and export.

A little over 500 lines: one page whose table, chart and verdict read the same two
segments; its plain functions of the records are in ``summary_cells``.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)
from superqt.utils import qthrottled

from jitlab.gui.i18n import Retranslating, language
from jitlab.gui.lesson.summary_cells import (
    NOT_A_COUNT,
    NOT_RUN,
    QUESTION,
    SECOND,
    also_missing,
    cell_text,
    covered,
    error_types,
    is_question_segment,
    question_run,
    question_segment,
)
from jitlab.gui.style import VARIANT_COLORS
from jitlab.gui.views.chart import CallAxis, DecadeAxis
from jitlab.gui.views.model import Change, RunState, Segment
from jitlab.lab.spec import Comparison, Measure, Scenario, Text, value_words
from jitlab.lab.verdict import SIDE_ROWS, Verdict, grade, judge, matches, same_calls
from jitlab.records.calls import CallKind, CallRecord, Summary
from jitlab.records.text import format_ms, prediction_number

REFRESH_MS = 200  # the summary while calls stream in: at most 5 times a second
# The comparison chart's colours: the live chart's for the variants, never a call kind's
# (red recompile, green hit, ...).
LINE_COLORS = {"pitfall": VARIANT_COLORS["pitfall"], "fix": VARIANT_COLORS["fix"]}
# Where a failed call sits on the comparison chart: a row of its own, never a latency.
FAILED = Text("failed call (no latency)", "失败的调用（没有耗时）")
AXIS_W = 64  # both plots' left axes
FAILED_ROW_PX = 34  # the failed calls' own row above the chart, as on the live chart
# The rows a lesson's own measure adds to the table (the CLI's --compare rows, same words).
MEASURE_ROWS = {
    Measure.OUTPUT: ("trace_lines", "runtime_lines", "counter"),
    Measure.PROGRAM_SIZE: ("program_size",),
}
ROW_WORDS = dict(SIDE_ROWS)
# The chart of a lesson whose measure is what got printed: lines so far, not latency (short:
# an axis title longer than the plot is cut; the table above splits tracing from run time).
PRINTED_AXIS = Text("lines printed so far", "累计打印的行数")
FAILED_ROW = Text("failed", "失败")
LOOP_HEAD = Text("The question's other half", "题目的另一半")
LOOP_SIZE = Text(
    "{p}: the largest program had {pn} equations; {f}: {fn}.",
    "{p}：最大的程序有 {pn} 条等式；{f}：{fn} 条。",
)
COMPILE_TIMES = Text(
    "Trace + lower + compile, call by call ({keys} {values}): {p}: {pt}; {f}: {ft}.",
    "每次调用的追踪 + 降级 + 编译耗时（{keys} 依次为 {values}）：{p}：{pt}；{f}：{ft}。",
)
NOT_YET = Text(
    "not run yet: press “Measure both” to run it on its own calls.",
    "还没跑：点“两者都测”，按它自己的那组调用来运行。",
)


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
        self._graded: int | None = None  # which prediction line is the grade (bold)
        self.title = QLabel(self)
        self.title.setObjectName("summaryTitle")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        self.title.setFont(font)
        self.table_box = QGroupBox(self)
        self.grid = QGridLayout(self.table_box)
        self.grid.setHorizontalSpacing(20)
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
            self.row_labels[key] = self._add_row(row, key)
        # The lesson's own measure (lines printed, the counter, the program's size): rows
        # shown only where the measure reads them.
        self.measure_labels: dict[str, QLabel] = {}
        extra = dict.fromkeys(k for keys in MEASURE_ROWS.values() for k in keys)
        for row, key in enumerate(extra, start=len(self.ROWS) + 1):
            self.measure_labels[key] = self._add_row(row, key)
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
        # A failed call has no latency: a cross in a row of its own above the chart (the live
        # chart's way), on the same call axis, never at a latency.
        self.failed_row = pg.PlotWidget(self)
        self.failed_row.setObjectName("compareFailedRow")
        self.failed_row.setFixedHeight(FAILED_ROW_PX)
        self.failed_row.setBackground(self.palette().color(self.backgroundRole()).lighter(103))
        plot.getAxis("left").setWidth(AXIS_W)
        frow = self.failed_row.getPlotItem()
        frow.getAxis("left").setWidth(AXIS_W)  # the same width: call numbers line up
        frow.setMenuEnabled(False)
        frow.hideButtons()
        frow.hideAxis("bottom")
        frow.vb.setMouseEnabled(x=False, y=False)
        frow.vb.setYRange(-1.0, 1.0, padding=0)
        frow.setXLink(plot)
        self.failed_marks = {
            variant: frow.plot(
                pen=None,
                symbol="x",
                symbolSize=11,
                symbolPen=pg.mkPen(LINE_COLORS[variant], width=2),
                symbolBrush=pg.mkBrush(LINE_COLORS[variant]),
            )
            for variant in ("pitfall", "fix")
        }
        self.failed_row.hide()
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
        self.page_layout = layout = QVBoxLayout(inner)
        layout.addWidget(self.title)
        # The learner's question first, graded on its own calls; then the lesson's
        # comparison (a second, separate finding), its verdict above its table.
        layout.addWidget(self.prediction)
        layout.addWidget(self.verdict)
        # The table and the chart side by side: both above the fold at 1024×640 (stacked,
        # the chart began below it). Where both do not fit the page's width, the chart goes
        # under the table rather than past the page's right edge (_place_chart).
        self.payoff = payoff = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        payoff.addWidget(self.table_box, 0, Qt.AlignmentFlag.AlignTop)
        chart = QVBoxLayout()
        chart.setSpacing(0)
        chart.addWidget(self.failed_row)
        chart.addWidget(self.compare, 1)
        payoff.addLayout(chart, 1)
        self.table_box.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Maximum)
        layout.addLayout(payoff, 1)
        layout.addWidget(self.lesson)
        self.page_scroll = scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        # The page scrolls down, never sideways: what does not fit its width is laid out again.
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        outer.addLayout(buttons)  # below the scrolling part: always in reach on a small screen
        self.scenario: type[Scenario] | None = None
        self.retranslate()
        self._refresh_later = qthrottled(self.refresh, timeout=REFRESH_MS, parent=self)
        state.subscribe(self._changed)

    def _add_row(self, row: int, key: str) -> QLabel:
        """A table row: its label (returned) and a right-aligned cell per variant."""
        label = QLabel(self)
        self.grid.addWidget(label, row, 0)
        for col, variant in enumerate(("pitfall", "fix"), start=1):
            cell = QLabel("–", self)
            cell.setObjectName(f"summary_{variant}_{key}")
            cell.setWordWrap(key == "errors")  # a list of error names: never page-wide
            cell.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.cells[(variant, key)] = cell
            self.grid.addWidget(cell, row, col)
        return label

    def _changed(self, change: Change) -> None:
        if self.isVisible() and (change.served or change.cleared or change.new_segment):
            self._refresh_later()  # hidden, it refreshes when shown (Complete mode)

    def show_scenario(self, scenario: type[Scenario]) -> None:
        self.scenario = scenario
        self.retranslate()

    def run(self, variant: str) -> Segment | None:
        """The newest run of ``variant``, passing over a run made only to answer the question
        (it has its own line above): the comparison's table, chart and verdict read this."""
        answer = question_run(self.scenario)
        newest = None
        for segment in reversed(self.state.segments):
            if segment.variant != variant or not segment.records:
                continue
            if not is_question_segment(answer, segment) or matches(
                self._comparison(), list(segment.records)
            ):  # a run of the question's calls that are also the comparison's: both
                return segment
            newest = newest or segment
        return newest

    def summaries(self) -> dict[str, Summary | None]:
        out: dict[str, Summary | None] = {}
        for variant in ("pitfall", "fix"):
            segment = self.run(variant)
            out[variant] = segment.summary() if segment else None
        return out

    def refresh(self) -> None:
        self.lesson.setVisible(self.state.calls > 0)  # the fix is the answer: not before a call
        summaries = self.summaries()
        for variant, summary in summaries.items():
            segment = self.run(variant)
            for key in self.ROWS:
                self.cells[(variant, key)].setText(
                    self._cell(key, summary, segment.records if segment else [])
                )
        self._measure_rows()
        self._plot_compare()
        p, f = summaries["pitfall"], summaries["fix"]
        if p and f and p.calls and f.calls:
            first, *rest = (html.escape(line) for line in self.verdict_lines())
            self.verdict.setText("<br>".join([f"<b>{first}</b>", *rest]))
        else:
            self.verdict.setText(
                self.tr("Run both variants (or press “Measure both”) to compare them side by side.")
            )
        lines = [html.escape(line) for line in self.prediction_lines()]
        if self._graded is not None and self._graded < len(lines):  # the grade stands out
            lines[self._graded] = f"<b>{lines[self._graded]}</b>"
        self.prediction.setText("<br>".join(lines))

    def _measure_rows(self) -> None:
        """The rows the lesson's measure reads (lines printed, the counter, the program's
        size), from the verdict's two sides: the same numbers ``jitlab run --compare`` shows."""
        shown = MEASURE_ROWS.get(self._comparison().measure, ())
        verdict = self.lesson_verdict()
        sides = (verdict.pitfall.to_json(), verdict.fix.to_json()) if verdict else ({}, {})
        for key, label in self.measure_labels.items():
            visible = key in shown
            label.setVisible(visible)
            label.setText(ROW_WORDS[key].get(language()).capitalize())
            for variant, side in zip(("pitfall", "fix"), sides, strict=True):
                cell = self.cells[(variant, key)]
                cell.setVisible(visible)
                value = side.get(key)
                cell.setText("–" if value is None else str(value))

    def lesson_verdict(self) -> Verdict | None:
        """The lesson's verdict on the latest pitfall and fix runs: the scenario's own measure,
        judged by the function ``jitlab run --compare`` prints (jitlab.lab.verdict)."""
        runs = [self.run(v) for v in ("pitfall", "fix")]
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
        answer = question_run(self.scenario)
        ask = (QUESTION,) if answer and question_segment(self.state, answer) is None else ()
        runs = {v: self.run(v) for v in comparison.variants}
        records = {v: list(run.records) if run else [] for v, run in runs.items()}
        also = also_missing(self.state, self.scenario)
        p, f = records[comparison.pitfall], records[comparison.fix]
        if p and f and same_calls(comparison, p, f):
            return ask + also
        needed = tuple(v for v in comparison.variants if not matches(comparison, records[v]))
        if answer and answer.variant in needed and covered(answer, self.scenario):
            ask = ()  # the comparison's own run of that variant answers the question too
        return ask + also + needed

    def verdict_lines(self) -> list[str]:
        """The lesson's verdict first, on its own measure; then time per cached call, said
        only outside the noise of its rounds; then whether the runs are like with like."""
        runs = {v: self.run(v) for v in ("pitfall", "fix")}
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
        lines += self.also_lines()
        return lines

    def also_lines(self) -> list[str]:
        """The verdicts of the comparisons the question also asks about (control-flow's
        loop), each on its own calls: a finding of its own, after the lesson's."""
        lang = language()
        out = []
        scenario = self.scenario
        for also in getattr(scenario, "also_judged", ()) or ():
            named = {v.id: v.title.get(lang) for v in scenario.variants}  # type: ignore[union-attr]
            zh = lang.startswith("zh")
            left, right, colon = ("（", "）", "：") if zh else (" (", ")", ": ")
            head = (
                f"{LOOP_HEAD.get(lang)}{left}{named.get(also.pitfall, also.pitfall)} ↔ "
                f"{named.get(also.fix, also.fix)}{right}{colon}"
            )
            runs = [self.state.latest(v) for v in also.variants]
            if not all(r is not None and matches(also, list(r.records)) for r in runs):
                out.append(head + NOT_YET.get(lang))
                continue
            pitfall, fix = (list(r.records) for r in runs)  # type: ignore[union-attr]
            verdict = judge(also, pitfall, fix)
            p_size, f_size = verdict.pitfall.program_size, verdict.fix.program_size
            if p_size is not None and f_size is not None:  # in the variants' own names
                p, f = named.get(also.pitfall, also.pitfall), named.get(also.fix, also.fix)
                out.append(head + LOOP_SIZE.get(lang).format(p=p, f=f, pn=p_size, fn=f_size))
            else:
                out.append(head + verdict.text(lang))
            if verdict.note is not None:
                out.append(verdict.note.get(lang))
            out.append(self._compile_times(also, pitfall, fix, named))
        return out

    def _compile_times(
        self,
        also: Comparison,
        pitfall: list[CallRecord],
        fix: list[CallRecord],
        named: dict[str, str],
    ) -> str:
        """Each call's compile time on both sides: whose grows with the calls (the loop's
        steps), which the question asks."""
        lang = language()
        keys = list(dict.fromkeys(k for call in also.calls for k in call))
        sep = "、" if lang.startswith("zh") else ", "
        params = self.scenario.params if self.scenario else ()
        labels = [label for k in keys for label, _ in value_words(params, {k: ""}, lang)]
        values = sep.join(
            "/".join(value for _, value in value_words(params, call, lang)) for call in also.calls
        )

        def times(records: list[CallRecord]) -> str:
            return sep.join(format_ms(r.trace_ms + r.lower_ms + r.compile_ms) for r in records)

        p, f = named.get(also.pitfall, also.pitfall), named.get(also.fix, also.fix)
        return COMPILE_TIMES.get(lang).format(
            keys="/".join(labels), values=values, p=p, f=f, pt=times(pitfall), ft=times(fix)
        )

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
        if not same_calls(self._comparison(), list(p), list(f)):
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
        """The learner's prediction from the Start page, graded on the question's own calls
        (a run made for that purpose), and which run answered it."""
        lang = language()
        lines = []
        self._graded = None
        if self.prediction_text:
            lines.append(self.tr("Your prediction: %1").replace("%1", self.prediction_text))
        answer = question_run(self.scenario)
        if answer is None or self.scenario is None:
            if self.prediction_text:
                lines.append(NOT_A_COUNT.get(lang))
            return lines
        segment = question_segment(self.state, answer)
        if segment is None:
            lines.append(NOT_RUN.get(lang))
            return lines
        title = next(
            (v.title for v in self.scenario.variants if v.id == answer.variant),
            Text(answer.variant, answer.variant),
        )
        said = prediction_number(self.prediction_text) if self.prediction_text else None
        graded = grade(answer, list(segment.records), said, title, self.scenario.params)
        self._graded = len(lines)
        lines.append(graded.sentence.get(lang))
        lines += [part.get(lang) for part in graded.answers]  # the question's other parts
        lines.append(SECOND.get(lang))
        return lines

    def _cell(self, key: str, summary: Summary | None, records: Iterable[CallRecord]) -> str:
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
            types = error_types(records)
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
                cell_text(key, summary, records)
                + " "
                + self.tr("(+%1 failed)").replace("%1", str(summary.errors))
            )
        return cell_text(key, summary, records)

    def _plot_compare(self) -> None:
        """Latency per call of the latest pitfall run and the latest fix run, from call 0."""
        longest = max(
            (len(s.records) for v in self.compare_lines if (s := self.run(v))),
            default=1,
        )
        # Calls are whole numbers: no ticks at 0.5 on a short run.
        major = max(1, int(np.ceil(longest / 10)))
        self.compare.getPlotItem().getAxis("bottom").setTickSpacing(major, major)
        kept = {}
        for variant in self.compare_lines:
            segment = self.run(variant)
            kept[variant] = segment.records[-5000:] if segment else []
        printed = self._comparison().measure is Measure.OUTPUT
        plot = self.compare.getPlotItem()
        plot.setLogMode(x=False, y=not printed)  # the lesson's measure: lines, else latency
        self._label_axis(printed)
        for variant, line in self.compare_lines.items():
            records = kept[variant]
            ok = [i for i, r in enumerate(records) if r.kind is not CallKind.ERROR]
            failed = [i for i, r in enumerate(records) if r.kind is CallKind.ERROR]
            if printed:  # what the side effect left: lines printed so far, after each call
                so_far = np.cumsum([len(r.stdout) for r in records])
                y = np.array([so_far[i] for i in ok], dtype=float)
            else:
                y = np.array([max(records[i].latency_ms, 1e-4) for i in ok], dtype=float)
            line.setData(np.array(ok, dtype=float), y)
            # A failed call has its own row above the chart: a mark at its call, no value.
            self.failed_marks[variant].setData(np.array(failed, dtype=float), np.zeros(len(failed)))
        any_failed = any(r.kind is CallKind.ERROR for rs in kept.values() for r in rs)
        self.failed_row.setVisible(any_failed)
        self._legend_failed(any_failed)
        self._label_runs()
        self._fit_chart()

    def _fit_chart(self) -> None:
        """The chart is never cut: its width never under what its axis and legend need (the
        legend's row as tall as its entries, one entry a row where two do not fit beside the
        table), and beside the table where they fit, else under it."""
        for columns in (2, 1):
            self.compare_legend.setColumnCount(columns)
            legend = self.compare_legend.effectiveSizeHint(Qt.SizeHint.PreferredSize)
            self.compare.setMinimumWidth(AXIS_W + int(legend.width()) + 16)
            if self._side_by_side():
                break
        plot = self.compare.getPlotItem()
        plot.layout.setRowFixedHeight(0, max(30, int(legend.height()) + 2))
        self._place_chart()

    def _side_by_side(self) -> bool:
        """Whether the table and the chart both fit the page's width, counted as if the page
        scrolled (so that a scroll bar coming or going never flips the layout)."""
        margins = self.page_layout.contentsMargins()
        room = (
            self.page_scroll.width()
            - 2 * self.page_scroll.frameWidth()
            - self.page_scroll.verticalScrollBar().sizeHint().width()
            - margins.left()
            - margins.right()
        )
        need = (
            self.table_box.sizeHint().width() + self.payoff.spacing() + self.compare.minimumWidth()
        )
        return need <= room

    def _place_chart(self) -> None:
        """Side by side where both fit (:meth:`_side_by_side`), else the chart under the table."""
        side = self._side_by_side()
        direction = QBoxLayout.Direction.LeftToRight if side else QBoxLayout.Direction.TopToBottom
        if self.payoff.direction() != direction:
            self.payoff.setDirection(direction)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_chart()

    def _label_runs(self) -> None:
        """The runs overlay from call 0; the axis says where each starts in the log's
        numbering (the one numbering the log, the live chart and the text above use)."""
        runs = {v: self.run(v) for v in ("pitfall", "fix")}
        starts = {v: run.records[0].index for v, run in runs.items() if run and run.records}
        label = self.tr("call number in the run")
        if len(starts) == 2:
            label = (
                self.tr("call in the run (0: pitfall #%1, fix #%2)")
                .replace("%1", str(starts["pitfall"]))
                .replace("%2", str(starts["fix"]))
            )
        self.compare.getPlotItem().setLabel("bottom", label)

    def _label_axis(self, printed: bool) -> None:
        plot = self.compare.getPlotItem()
        if printed:
            plot.setLabel("left", PRINTED_AXIS.get(language()))
        else:
            plot.setLabel("left", self.tr("latency (ms, log scale)"))

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
        self._label_axis(self._comparison().measure is Measure.OUTPUT)
        self._label_runs()
        self.compare.setToolTip(
            self.tr("The same calls on the pitfall (solid) and on the fix (dashed), from call 0.")
        )
        row = self.failed_row.getPlotItem().getAxis("left")
        row.setTicks([[(0.0, FAILED_ROW.get(lang))]])  # the row says what it holds
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
