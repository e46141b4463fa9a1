"""The Start (briefing) and Complete (summary) pages of the four-mode demo."""

from __future__ import annotations

import html
import re

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)
from superqt.utils import qthrottled

from jitlab.core.records import CallKind, CallRecord, Summary
from jitlab.core.spec import Scenario
from jitlab.gui.code_view import CodeView
from jitlab.gui.i18n import language
from jitlab.gui.model import Change, RunState, Segment
from jitlab.gui.style import format_ms

REFRESH_MS = 200  # the summary while calls stream in: at most 5 times a second
# The comparison chart's own colours: not a call kind's (red recompile, green hit, ...).
LINE_COLORS = {"pitfall": "#d6336c", "fix": "#3b5bdb"}
SAME = 0.05  # two costs within 5 % of each other are "about the same": timings are noisy
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7}
_ZH_DIGITS.update({"八": 8, "九": 9, "十": 10})


class BriefingPage(QWidget):
    """Start: the pitfall, the kitchen story, the code, and a question to predict the outcome."""

    start_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scenario: type[Scenario] | None = None
        self.text = QTextBrowser(self)
        self.text.setObjectName("briefingText")
        self.text.setOpenExternalLinks(False)
        self.code = CodeView(self)
        for editor in (self.code.code, self.code.diff):  # a briefing is read, not scrolled
            editor.setLineWrapMode(editor.LineWrapMode.WidgetWidth)
        self.question_box = QGroupBox(self)
        self.question = QLabel(self.question_box)
        self.question.setObjectName("question")
        self.question.setWordWrap(True)
        font = self.question.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        font.setBold(True)
        self.question.setFont(font)
        self.prediction = QLineEdit(self.question_box)
        self.prediction.setObjectName("prediction")
        self.start = QPushButton(self.question_box)
        self.start.setObjectName("startButton")
        self.start.setDefault(True)
        self.start.clicked.connect(self.start_clicked)
        self.prediction.returnPressed.connect(self.start_clicked)
        q = QVBoxLayout(self.question_box)
        q.addWidget(self.question)
        row = QHBoxLayout()
        row.addWidget(self.prediction, 1)
        row.addWidget(self.start)
        q.addLayout(row)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.text)
        split.addWidget(self.code)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(split, 1)
        layout.addWidget(self.question_box)
        self.retranslate()

    def show_scenario(self, scenario: type[Scenario]) -> None:
        self.scenario = scenario
        self.code.show_scenario(scenario, "pitfall")
        self.prediction.clear()
        self.retranslate()

    def retranslate(self) -> None:
        lang = language()
        self.question_box.setTitle(self.tr("Predict before you run"))
        self.prediction.setPlaceholderText(self.tr("Your prediction (kept for the summary)…"))
        self.prediction.setToolTip(
            self.tr("Write down what you expect; the summary shows it next to what happened.")
        )
        self.start.setText(self.tr("Start cooking →"))
        self.start.setToolTip(self.tr("Go to the kitchen and make the calls (Execute mode)."))
        self.text.setToolTip(
            self.tr("The lesson: what goes wrong, why, the kitchen story and the fix.")
        )
        s = self.scenario
        if s is None:
            self.text.setHtml(f"<p>{html.escape(self.tr('Loading the scenarios…'))}</p>")
            self.question.setText("")
            return
        sections = (
            (self.tr("What goes wrong"), s.lesson.what),
            (self.tr("Why"), s.lesson.why),
            (self.tr("In Chef Wang's kitchen"), s.lesson.kitchen),
            (self.tr("The fix"), s.lesson.fix),
        )
        body = [
            f"<h2>{html.escape(s.title.get(lang))}</h2>",
            f"<p style='color:gray'>{html.escape(s.pitfall.title.get(lang))}</p>",
        ]
        for heading, text in sections:
            body.append(f"<h3>{html.escape(heading)}</h3><p>{html.escape(text.get(lang))}</p>")
        self.text.setHtml("".join(body))
        self.question.setText(s.question.get(lang))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


class SummaryPage(QWidget):
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
        self.compare = pg.PlotWidget(self)
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
        layout.addWidget(self.table_box)
        layout.addWidget(self.verdict)
        layout.addWidget(self.prediction)
        layout.addWidget(self.lesson)
        layout.addWidget(self.compare, 1)
        layout.addLayout(buttons)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
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
            self.verdict.setText("<br>".join(html.escape(line) for line in self.verdict_lines()))
        else:
            self.verdict.setText(
                self.tr("Run both variants (or press “Measure both”) to compare them side by side.")
            )
        self.prediction.setText("<br>".join(html.escape(line) for line in self.prediction_lines()))

    def verdict_lines(self) -> list[str]:
        """What the two latest runs say, in words, signed: never a clamped or flattering number."""
        runs = {v: self.state.latest(v) for v in ("pitfall", "fix")}
        p, f = (runs[v].summary() for v in ("pitfall", "fix"))  # type: ignore[union-attr]
        lines = [
            self.tr("Compiles: %1 with the pitfall, %2 with the fix.")
            .replace("%1", str(p.compiles + p.recompiles))
            .replace("%2", str(f.compiles + f.recompiles))
        ]
        failed = False
        for variant, s in (("pitfall", p), ("fix", f)):
            if s.errors:
                failed = True
                records = runs[variant].records  # type: ignore[union-attr]
                lines.append(
                    (
                        self.tr("The pitfall failed: %1 of %2 calls raised %3.")
                        if variant == "pitfall"
                        else self.tr("The fix failed: %1 of %2 calls raised %3.")
                    )
                    .replace("%1", str(s.errors))
                    .replace("%2", str(s.calls))
                    .replace("%3", _error_types(records))
                )
        if failed:
            lines.append(
                self.tr(
                    "A call that raises gives no result, so its time is no saving: "
                    "compare the costs of runs that work."
                )
            )
        else:
            lines.append(self._signed("compile", p.time_lost_ms, f.time_lost_ms))
            hp = _mean_hit(runs["pitfall"].records)  # type: ignore[union-attr]
            hf = _mean_hit(runs["fix"].records)  # type: ignore[union-attr]
            if hp is not None and hf is not None:
                lines.append(self._signed("hit", hp, hf))
        lines.append(self._like_with_like(runs["pitfall"], runs["fix"]))  # type: ignore[arg-type]
        return lines

    def _like_with_like(self, pitfall: Segment, fix: Segment) -> str:
        p, f = pitfall.records, fix.records
        if len(p) != len(f):
            return (
                self.tr(
                    "Not like with like: the pitfall run made %1 calls, the fix run %2. "
                    "Press “Measure both” to run both on the same calls."
                )
                .replace("%1", str(len(p)))
                .replace("%2", str(len(f)))
            )
        if [r.params for r in p] != [r.params for r in f]:
            return self.tr(
                "Not like with like: the two runs made their %1 calls with different "
                "parameters. Press “Measure both” to run both on the same calls."
            ).replace("%1", str(len(p)))
        return self.tr("Like with like: both runs made the same %1 calls.").replace(
            "%1", str(len(p))
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
            lines.append(
                (
                    self.tr("The pitfall run compiled %1 times: calls %2.")
                    if variant == "pitfall"
                    else self.tr("The fix run compiled %1 times: calls %2.")
                )
                .replace("%1", str(len(calls)))
                .replace("%2", ", ".join(str(c) for c in calls))
            )
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

    def _signed(self, what: str, pitfall_ms: float, fix_ms: float) -> str:
        """One signed sentence: what the fix saves, or what it costs more, or about the same."""
        diff = fix_ms - pitfall_ms
        if abs(diff) <= SAME * max(pitfall_ms, fix_ms):
            text = (
                self.tr("Compiling: about the same with the fix (%2) as with the pitfall (%3).")
                if what == "compile"
                else self.tr(
                    "Per cached call: about the same with the fix (%2) as with the pitfall (%3)."
                )
            )
        elif diff > 0:
            text = (
                self.tr("Compiling: the fix costs %1 more (%2 against %3 for the pitfall).")
                if what == "compile"
                else self.tr(
                    "Per cached call: the fix costs %1 more (%2 against %3 for the pitfall)."
                )
            )
        else:
            text = (
                self.tr("Compiling: the fix saves %1 (%2 against %3 for the pitfall).")
                if what == "compile"
                else self.tr("Per cached call: the fix saves %1 (%2 against %3 for the pitfall).")
            )
        return (
            text.replace("%1", format_ms(abs(diff)))
            .replace("%2", format_ms(fix_ms))
            .replace("%3", format_ms(pitfall_ms))
        )

    def _cell(self, key: str, summary: Summary | None, records: list[CallRecord]) -> str:
        if summary is None or not summary.calls:
            return "–"
        if key == "errors":
            if not summary.errors:
                return "0"
            return (
                self.tr("%1 of %2 calls failed: %3")
                .replace("%1", str(summary.errors))
                .replace("%2", str(summary.calls))
                .replace("%3", _error_types(records))
            )
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
        for variant, line in self.compare_lines.items():
            segment = self.state.latest(variant)
            records = segment.records[-5000:] if segment else []
            if not records:
                line.setData([], [])
                continue
            line.setData(
                np.arange(len(records)),
                np.array([max(r.latency_ms, 1e-4) for r in records]),
            )

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
        plot.setLabel("bottom", self.tr("call number in the run"))
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

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


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


def _mean_hit(records: list[CallRecord]) -> float | None:
    hits = [r.latency_ms for r in records if r.kind is CallKind.CACHE_HIT]
    return sum(hits) / len(hits) if hits else None


def _compile_calls(records: list[CallRecord]) -> list[int]:
    """Where a run compiled, numbered from call 0 as on the chart (of the records kept)."""
    kinds = (CallKind.COMPILE, CallKind.RECOMPILE)
    start = getattr(records, "first", 0)  # a capped history drops its oldest records
    return [start + i for i, r in enumerate(records) if r.kind in kinds]


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
