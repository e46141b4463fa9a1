"""Monitor mode's own view: what compiled in this lesson, and where the compile time went.

Two panes, both following the run model (:meth:`RunState.subscribe`), never fed by hand:

* the signature ledger (:class:`~jitlab.gui.views.ledger_view.LedgerView`, the same table as a
  recording's) of one function: one row per compiled signature of the lesson's runs (a
  variant switch or a reset starts a run, named in a column of its own), the cells that
  changed within a run highlighted;
* a phase timeline: the last compiles as bars split into trace, lower and compile time, so
  a learner sees which phase a recompile pays for.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QHelpEvent, QPainter, QPaintEvent, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSplitter,
    QToolTip,
    QVBoxLayout,
    QWidget,
)
from superqt.utils import qthrottled

from jitlab.gui.i18n import Retranslating
from jitlab.gui.style import KIND_COLORS, kind_name
from jitlab.gui.views.ledger_view import LedgerView
from jitlab.gui.views.model import Change, RunState
from jitlab.records.calls import CallRecord
from jitlab.records.lines import RecordedCall
from jitlab.records.text import format_ms

PAINT_MS = 200  # under a stream of compiles, at most 5 repaints a second
TIMELINE_COMPILES = 12  # the phase timeline shows this many of the newest compiles
KEPT_PER_FUNCTION = 1000  # ledger rows kept per function (the newest)
MIN_TEXT_PX = 11
# Phase colours: none of them is a call kind's colour (those mean what JAX did for a call).
PHASE_COLORS = {"trace": "#f08c00", "lower": "#868e96", "compile": "#4263eb"}
PHASES = ("trace", "lower", "compile")


class PhaseTimeline(QWidget):
    """The newest compiles, one bar each: trace, lower and compile time, to one scale."""

    ROW_H = 22

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("phaseTimeline")
        self.records: deque[CallRecord] = deque(maxlen=TIMELINE_COMPILES)
        self.setMinimumSize(180, 4 * self.ROW_H)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.empty_text = ""
        self.setFont(self._font())

    def sizeHint(self) -> QSize:
        return QSize(300, (TIMELINE_COMPILES + 1) * self.ROW_H + 8)

    def clear(self) -> None:
        self.records.clear()
        self.update()

    def add(self, record: CallRecord) -> None:
        self.records.append(record)

    def bars(self) -> list[tuple[int, str, float, float, float]]:
        """What is drawn, oldest first: (call, kind name, trace ms, lower ms, compile ms)."""
        return [
            (r.index, r.kind.value, r.trace_ms, r.lower_ms, r.compile_ms) for r in self._shown()
        ]

    def _shown(self) -> list[CallRecord]:
        fit = max(1, (self.height() - self.ROW_H) // self.ROW_H)
        return list(self.records)[-fit:]

    def _font(self) -> QFont:
        """The widget's font, never under ``MIN_TEXT_PX`` pixels."""
        font = QFont(self.font())
        size: float = font.pixelSize()
        if size <= 0:
            size = font.pointSizeF() * self.logicalDpiY() / 72
        font.setPixelSize(max(MIN_TEXT_PX, round(size)))
        return font

    def _geometry(self) -> tuple[int, int, int]:
        """(label width, bar start, bar width) for the current size and font."""
        metrics = self.fontMetrics()
        label_w = max((metrics.horizontalAdvance(self._label(r)) for r in self.records), default=60)
        total_w = metrics.horizontalAdvance("0000 ms") + 8
        start = label_w + 10
        return label_w, start, max(20, self.width() - start - total_w)

    @staticmethod
    def _label(record: CallRecord) -> str:
        return f"#{record.index} {kind_name(record.kind)}"

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setFont(self.font())
        text = self.palette().color(self.foregroundRole())
        shown = self._shown()
        if not shown:
            painter.setPen(text)
            painter.drawText(
                self.rect().adjusted(8, 8, -8, -8),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                self.empty_text,
            )
            return
        label_w, start, bar_w = self._geometry()
        # The legend row.
        x = 4
        for phase in PHASES:
            painter.fillRect(QRect(x, 6, 10, 10), QColor(PHASE_COLORS[phase]))
            painter.setPen(text)
            name = self.phase_name(phase)
            painter.drawText(QPoint(x + 14, 15), name)
            x += 14 + self.fontMetrics().horizontalAdvance(name) + 14
        scale = max((r.trace_ms + r.lower_ms + r.compile_ms for r in shown), default=1.0) or 1.0
        for i, r in enumerate(shown):
            top = (i + 1) * self.ROW_H
            painter.setPen(QColor(KIND_COLORS[r.kind]))
            painter.drawText(
                QRect(4, top, label_w, self.ROW_H),
                Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                self._label(r),
            )
            at = float(start)  # where the next phase's bar begins
            for phase, ms in zip(PHASES, (r.trace_ms, r.lower_ms, r.compile_ms), strict=True):
                w = bar_w * ms / scale
                if w > 0:
                    painter.fillRect(
                        QRect(round(at), top + 4, max(1, round(w)), self.ROW_H - 8),
                        QColor(PHASE_COLORS[phase]),
                    )
                at += w
            painter.setPen(text)
            painter.drawText(
                QRect(round(at) + 4, top, self.width() - round(at) - 4, self.ROW_H),
                Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                format_ms(r.trace_ms + r.lower_ms + r.compile_ms),
            )

    def phase_name(self, phase: str) -> str:
        return {
            "trace": self.tr("trace"),
            "lower": self.tr("lower"),
            "compile": self.tr("compile"),
        }[phase]

    def record_at(self, y: int) -> CallRecord | None:
        row = y // self.ROW_H - 1
        shown = self._shown()
        return shown[row] if 0 <= row < len(shown) else None

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            record = self.record_at(event.pos().y())
            if record is None:
                QToolTip.showText(event.globalPos(), self.toolTip(), self)
            else:
                QToolTip.showText(event.globalPos(), self.tip(record), self)
            return True
        return super().event(event)

    def tip(self, r: CallRecord) -> str:
        return (
            self.tr("Call #%1 (%2): trace %3, lower %4, compile %5")
            .replace("%1", str(r.index))
            .replace("%2", kind_name(r.kind))
            .replace("%3", format_ms(r.trace_ms))
            .replace("%4", format_ms(r.lower_ms))
            .replace("%5", format_ms(r.compile_ms))
        )


class MonitorView(Retranslating, QWidget):
    """Monitor mode: the signature ledger of the lesson's runs and the phase timeline of
    their compiles (a new scenario starts them over)."""

    def __init__(self, state: RunState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("monitorView")
        self.state = state
        # function -> its compiled calls in this lesson (every run: switches and resets too)
        self.compiles: dict[str, deque[RecordedCall]] = {}
        self.segment = len(state.segments) - 1
        # call index -> (run, variant) of each compile kept: the lesson's runs, side by side
        self.run_of: dict[int, tuple[int, str]] = {}
        # How a run's variant is named (the window passes the picker's neutral names).
        self.name_of: Callable[[str], str] = lambda variant: variant
        self.picked: str | None = None  # the function the learner chose (None: follow)
        self.ledger_box = QGroupBox(self)
        self.function = QComboBox(self.ledger_box)
        self.function.setObjectName("monitorFunction")
        self.function.activated.connect(self._function_picked)
        self.function_label = QLabel(self.ledger_box)
        self.function_label.setBuddy(self.function)
        self.ledger = LedgerView(self.ledger_box, live=True)
        row = QHBoxLayout()
        row.addWidget(self.function_label)
        row.addWidget(self.function, 1)
        box = QVBoxLayout(self.ledger_box)
        box.setContentsMargins(4, 4, 4, 4)
        box.addLayout(row)
        box.addWidget(self.ledger, 1)
        self.timeline_box = QGroupBox(self)
        self.timeline = PhaseTimeline(self.timeline_box)
        t = QVBoxLayout(self.timeline_box)
        t.setContentsMargins(4, 4, 4, 4)
        t.addWidget(self.timeline, 1)
        self.split = QSplitter(Qt.Orientation.Horizontal, self)
        self.split.addWidget(self.ledger_box)
        self.split.addWidget(self.timeline_box)
        # The ledger takes two thirds: a changed cell (a sharding's layout) whole at 1024 px.
        self.split.setStretchFactor(0, 2)
        self.split.setStretchFactor(1, 1)
        self.split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.split)
        self._paint = qthrottled(self.refresh, timeout=PAINT_MS, parent=self)
        self._show_functions()
        self.retranslate()
        state.subscribe(self._changed)

    # -- following the model ----------------------------------------------------------------
    def _changed(self, change: Change) -> None:
        current = len(self.state.segments) - 1
        dirty = False
        if change.cleared:  # a new scenario; a variant switch or a reset keeps the runs
            self.compiles.clear()
            self.run_of.clear()
            self.timeline.clear()
            self.picked = None
            dirty = True
        if change.new_segment or current != self.segment:
            self.segment = current
            dirty = True
        for served in change.served:
            record = served.record
            if not record.kind.compiled:
                continue
            calls = self.compiles.setdefault(record.function, deque(maxlen=KEPT_PER_FUNCTION))
            calls.append(RecordedCall(record))
            runs = self.state.segments
            variant = runs[served.segment].variant if served.segment < len(runs) else ""
            self.run_of[record.index] = (served.segment, variant or record.variant or "")
            self.timeline.add(record)
            dirty = True
        if dirty and self.isVisible():  # hidden, it paints when shown (showEvent)
            self._paint()

    def showEvent(self, event: QShowEvent) -> None:
        self.refresh()
        super().showEvent(event)

    def refresh(self) -> None:
        self._show_functions()
        calls = self.lesson_calls(self.shown_function() or "")
        runs = [self._run(call.record.index) for call in calls]
        self.ledger.set_calls(calls, runs)
        self.timeline.update()

    def lesson_calls(self, function: str) -> list[RecordedCall]:
        """``function``'s compiles, with those of the function that plays its part in the
        lesson's other runs: the one each run compiled at the same rank (a variant often
        jits a function of its own: the pitfall's loss, the fix's masked loss)."""
        every = sorted(
            (call for calls in self.compiles.values() for call in calls),
            key=lambda call: call.record.index,
        )
        firsts: dict[int, list[str]] = {}  # run -> its functions, in order of first compile
        for call in every:
            names = firsts.setdefault(self._segment_of(call), [])
            if call.record.function not in names:
                names.append(call.record.function)
        runs = [run for run, names in firsts.items() if function in names]
        if not runs:
            return list(self.compiles.get(function, ()))
        rank = firsts[max(runs)].index(function)
        part = {run: names[rank] for run, names in firsts.items() if len(names) > rank}
        return [call for call in every if part.get(self._segment_of(call)) == call.record.function]

    def _segment_of(self, call: RecordedCall) -> int:
        return self.run_of.get(call.record.index, (0, ""))[0]

    def _run(self, index: int) -> tuple[int, str]:
        """A compile's run and its name: the variant, and a reset said as such."""
        segment, variant = self.run_of.get(index, (0, ""))
        name = self.name_of(variant)
        runs = self.state.segments
        if 0 < segment < len(runs) and runs[segment - 1].variant == variant:
            name = self.tr("%1 · caches cleared").replace("%1", name)
        return segment, name

    def shown_function(self) -> str | None:
        """The function whose ledger is shown: the learner's pick, else the newest compile's."""
        if self.picked in self.compiles:
            return self.picked
        if self.timeline.records:
            return self.timeline.records[-1].function
        return next(iter(self.compiles), None)

    def _show_functions(self) -> None:
        names = list(self.compiles)
        shown = self.shown_function()
        if [self.function.itemText(i) for i in range(self.function.count())] != names:
            self.function.clear()
            self.function.addItems(names)
        if shown is not None:
            self.function.setCurrentIndex(names.index(shown))
        several = len(names) > 1
        self.function.setVisible(several)
        self.function_label.setVisible(several)

    def _function_picked(self, index: int) -> None:
        self.picked = self.function.itemText(index) or None
        self.refresh()

    # -- for tests and callers ------------------------------------------------------------
    def ledger_rows(self) -> list[list[str]]:
        return self.ledger.rows()

    # -- language -------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.ledger_box.setTitle(self.tr("Signature ledger: what compiled in this lesson"))
        self.ledger_box.setToolTip(
            self.tr(
                "Every signature compiled in this lesson's runs (a variant switch or a reset "
                "starts a run). A highlighted cell is what changed from the signature above "
                "in the same run: the reason JAX compiled again."
            )
        )
        self.function_label.setText(self.tr("Function:"))
        self.function.setToolTip(self.tr("This run jitted several functions: pick one."))
        self.timeline_box.setTitle(self.tr("Where the compile time went"))
        self.timeline_box.setToolTip(
            self.tr(
                "The newest compiles, one bar each: trace (Python runs to record the "
                "program), lower (to XLA's language), compile (XLA optimises). One scale for all."
            )
        )
        self.timeline.setToolTip(self.timeline_box.toolTip())
        self.timeline.empty_text = self.tr(
            "No compile yet: make a call, and each compile gets a bar here."
        )
        self.timeline.update()
