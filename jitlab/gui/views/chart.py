"""The latency chart: one point per call, log scale, coloured by what JAX did.

Points live in numpy ring buffers and are pushed to pyqtgraph at most once per frame, so a
stream of 100,000 cache hits costs a few array copies per frame, never one redraw per call.
Every compile, recompile, persistent hit, error and eager call keeps its marker; only cache
hits are thinned to the newest ``SYMBOL_TAIL`` (the line carries them all).

A failed call has no latency worth plotting (it stopped while tracing): it is marked in a row
of its own above the plot, with its error's name, never on the latency axis. A labelled
vertical line marks where each run (a variant switch or a reset) begins, its name above the
points, and the shape of a point says which variant made it: ● the pitfall, ▲ the fix, ■ any
other variant. The call in flight (a long compile) is a hollow mark with its seconds until
its point takes the place.

Over 500 lines: one pyqtgraph widget whose buffers, markers, run lines, ranges and hover
share their state. Its axes are :mod:`jitlab.gui.views.axes`, a call's tip
:mod:`jitlab.gui.views.call_text` (both also imported from here).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QPalette
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QToolTip,
    QVBoxLayout,
    QWidget,
)
from superqt.utils import qthrottled

from jitlab.gui.i18n import Retranslating
from jitlab.gui.style import (
    KIND_COLORS,
    KIND_ORDER,
    VARIANT_COLORS,
    is_dark,
    kind_name,
)
from jitlab.gui.views.axes import CallAxis as CallAxis
from jitlab.gui.views.axes import DecadeAxis as DecadeAxis
from jitlab.gui.views.axes import paint
from jitlab.gui.views.call_text import LEGEND_GAP as LEGEND_GAP
from jitlab.gui.views.call_text import WORD_JOINER as WORD_JOINER
from jitlab.gui.views.call_text import describe as describe
from jitlab.gui.views.call_text import unbroken
from jitlab.gui.views.model import Change, RunState
from jitlab.lab.spec import Param
from jitlab.records.calls import CallKind, CallRecord
from jitlab.records.history import History

_KIND_CODE = {kind: i for i, kind in enumerate(KIND_ORDER)}
_ERROR = _KIND_CODE[CallKind.ERROR]
# Which variant made a point: its shape. Only the fix is drawn as the fix (▲).
PITFALL, FIX, OTHER = 0, 1, 2
ROLE_SYMBOLS = {PITFALL: "o", FIX: "t1", OTHER: "s"}  # pyqtgraph's "t1" points up: ▲
ROLE_NAMES = {PITFALL: "pitfall", FIX: "fix", OTHER: "other"}
ERROR_ROW_PX = 46  # the failed calls' own row above the plot
ERROR_ROW_Y = (-0.8, 2.0)  # its y range: the marks on 0, their names above them
ERROR_LABEL_Y = 1.2
RUN_LABEL_ROOM = 0.78  # points stay in the lower part of the plot: run names sit above
AXIS_W = 64  # both plots' left axes: the same width keeps their call numbers aligned
RUN_LABELS = 40  # run boundaries labelled, at most (the newest)
# A run's name hangs from the plot's top edge (its text's top-left at the line's top), every
# other one a line lower: in text heights, so it holds for any font and plot height.
RUN_LABEL_ANCHORS = ((0.0, 0.0), (0.0, -0.9))


def variant_role(variant: str | None) -> int:
    """● for the pitfall, ▲ for the fix, ■ for any other variant (a third face)."""
    if variant == "fix":
        return FIX
    if variant in ("pitfall", "", None):
        return PITFALL
    return OTHER


# pyqtgraph's default of 5 samples per pixel (x2 for peak's min and max) cost ~4 ms more
# per frame at 100k calls than one (benchmarks/chart_100k.py), and looks the same.
LINE_SAMPLES_PER_PX = 1.0
PAINT_MS = 200  # bound to a run: the costliest paint, at most 5 times a second in a flood
EMPTY_X = (-0.5, 8.5)  # the view before the first call: calls 0…8
EMPTY_LOG_Y = (-1.35, 2.35)  # and about 0.05…200 ms


class RingBuffer:
    """Fixed-capacity columns of call data; the oldest calls drop off when full."""

    def __init__(self, capacity: int = 200_000) -> None:
        self.capacity = capacity
        self.index = np.zeros(capacity, np.float64)  # global call index
        self.local = np.zeros(capacity, np.float64)  # call number within its run segment
        self.latency = np.ones(capacity, np.float64)
        self.kind = np.zeros(capacity, np.int8)
        self.fix = np.zeros(capacity, np.bool_)  # made by a non-pitfall variant
        self.role = np.zeros(capacity, np.int8)  # PITFALL, FIX or OTHER: the point's shape
        self.segment = np.zeros(capacity, np.int32)
        self.record = np.zeros(capacity, np.int64)  # position in RunState.records
        self.size = 0
        self.head = 0  # next write position

    def clear(self) -> None:
        self.size = self.head = 0

    def append(
        self,
        index: int,
        local: int,
        latency: float,
        kind: int,
        fix: bool,
        seg: int,
        pos: int,
        role: int | None = None,
    ) -> None:
        h = self.head
        self.index[h], self.local[h], self.latency[h] = index, local, max(latency, 1e-4)
        self.kind[h], self.fix[h], self.segment[h], self.record[h] = kind, fix, seg, pos
        self.role[h] = (FIX if fix else PITFALL) if role is None else role
        self.head = (h + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

    def column(self, name: str) -> np.ndarray:
        """The column in call order (oldest first)."""
        data = getattr(self, name)
        if self.size < self.capacity:
            return data[: self.size]
        return np.concatenate((data[self.head :], data[: self.head]))


class ChartView(Retranslating, QWidget):
    """Per-call latency over call index; pitfall and fix can be overlaid from call 0.

    Clicking a compile or recompile point opens the script of the card it compiled."""

    script_requested = Signal(object)  # the CallRecord whose card's script to open
    next_step = Signal(str)  # "fix": try the fix now; "complete": compare the two
    chrome_changed = Signal()  # what sits above the plot changed: see pane_height_for
    show_runs = True  # mark where each run begins (a recording has no runs)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.buffer = RingBuffer()
        # How a variant is named on a run's line (the window passes the picker's names, which
        # stay neutral until a variant has run).
        self.name_of: Callable[[str], str] = lambda variant: variant
        self._segment_first: dict[int, int] = {}  # segment → call index of its first call
        self._run_lines: list[pg.InfiniteLine] = []
        self._runs_key: tuple = ()
        self._error_labels: list[pg.TextItem] = []
        self._errors_key: tuple = ()
        self._error_x = np.zeros(0)
        self._error_pos = np.zeros(0, np.int64)
        self.records: list[CallRecord] | History[CallRecord] = []
        self.overlay = False
        self._dirty = False
        self._segment_local: dict[int, int] = {}
        self._segment_variant: dict[int, str] = {}
        self._shown_x = np.zeros(0)
        self._shown_y = np.zeros(0)
        self._shown_pos = np.zeros(0, np.int64)
        self._shown_kinds = np.zeros(0, np.int8)
        # The latency axis's title, whole and short (retranslate sets them), the one shown
        # (None: to be fitted again), and the plot's own tip.
        self.axis_title: tuple[str, str] = ("", "")
        self._axis_shown: str | None = None
        self.plot_tip = ""

        self.plot = pg.PlotWidget(
            self, axisItems={"left": DecadeAxis("left"), "bottom": CallAxis("bottom")}
        )
        self.plot.setObjectName("latencyChart")
        item = self.plot.getPlotItem()
        item.setLogMode(x=False, y=True)
        item.vb.setRange(xRange=EMPTY_X, yRange=EMPTY_LOG_Y, padding=0)
        # No grid: grid lines make the axes span the plot, so every new point repaints them
        # (3-4x the paint time, measured with benchmarks/gui_responsiveness.py).
        item.showGrid(x=False, y=False)
        item.setMenuEnabled(False)
        item.hideButtons()
        item.vb.disableAutoRange()
        item.vb.sigRangeChangedManually.connect(self._range_changed_by_user)
        item.getAxis("left").setWidth(AXIS_W)
        self.plot.scene().sigMouseClicked.connect(self._clicked)
        # The failed calls' row: the same call axis, no latency axis at all.
        self.error_plot = pg.PlotWidget(self)
        self.error_plot.setObjectName("errorRow")
        self.error_plot.setFixedHeight(ERROR_ROW_PX)
        erow = self.error_plot.getPlotItem()
        erow.setMenuEnabled(False)
        erow.hideButtons()
        erow.hideAxis("bottom")
        erow.getAxis("left").setWidth(AXIS_W)
        erow.getAxis("left").setTicks([[]])
        erow.vb.setMouseEnabled(x=False, y=False)
        erow.vb.setYRange(*ERROR_ROW_Y, padding=0)
        erow.setXLink(item)
        self.error_plot.scene().sigMouseMoved.connect(self._hover_error)
        self.error_plot.hide()
        self.follow = True
        self._setting_range = False
        self._range = (0.0, 0.0, 0.0)
        self._item_keys: dict[int, tuple] = {}
        self.lines: dict[bool, pg.PlotDataItem] = {}
        for fix in (False, True):
            color = VARIANT_COLORS["fix" if fix else "pitfall"]
            line = pg.PlotDataItem(
                pen=pg.mkPen(color, width=1, style=Qt.PenStyle.DashLine if fix else None),
                autoDownsampleFactor=LINE_SAMPLES_PER_PX,
            )
            item.addItem(line)  # (addItem imposes the plot's defaults: configure after it)
            # The lines carry every call; pyqtgraph draws only what is in view, as a min/max
            # envelope (two points per pixel), so a compile spike is never lost.
            line.setClipToView(True)
            line.setDownsampling(auto=True, method="peak")
            self.lines[fix] = line
        # Keyed (kind, role); role 0 and 1 are also False and True (the pitfall, the fix).
        # An error's markers live in the error row, at the call's number, never at a latency.
        self.points: dict[tuple[CallKind, int], pg.PlotDataItem] = {}
        for kind in KIND_ORDER:
            for role, symbol in ROLE_SYMBOLS.items():
                brush = QColor(KIND_COLORS[kind])
                error = kind is CallKind.ERROR
                points = pg.PlotDataItem(
                    pen=None,
                    symbol="x" if error else symbol,
                    symbolSize=11 if error else (8 if role == FIX else 7),
                    symbolBrush=brush,
                    symbolPen=pg.mkPen(brush.darker(140), width=1),
                )
                (erow if error else item).addItem(points)
                points.setClipToView(True)
                points.setDownsampling(ds=1, auto=False)  # every marker drawn, a lone one too
                self.points[(kind, role)] = points
        self.plot.scene().sigMouseMoved.connect(self._hover)
        # The call in flight (a long compile): a hollow mark at the time it has taken so far,
        # with its seconds; the point takes its place when the call returns.
        self.pending = pg.PlotDataItem(pen=None, symbol="o", symbolSize=13, symbolBrush=None)
        item.addItem(self.pending)
        self.pending.setVisible(False)
        self.pending_label = pg.TextItem("", anchor=(0, 1))
        item.addItem(self.pending_label)
        self.pending_label.setVisible(False)
        self._pending_key: tuple = ()
        # What to do, over an empty plot; hidden from the first call on.
        self.empty_hint = QLabel(self.plot)
        self.empty_hint.setObjectName("chartEmptyHint")
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.legend = QLabel(self)  # a Qt row above the plot: it never hides a point
        self.legend.setWordWrap(True)  # on a narrow screen it wraps, never widens the window
        self.legend.setObjectName("chartLegend")
        self.legend.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        # The next step of the lesson, where the eye is: "Now try the fix →", then "compare".
        self.next_button = QPushButton(self)
        self.next_button.setObjectName("nextStepButton")
        self._next = ""
        self.next_button.clicked.connect(lambda: self.next_step.emit(self._next))
        self.next_button.hide()
        self.header = header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.legend, 1)
        header.addWidget(self.next_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(header)
        layout.addWidget(self.error_plot)
        layout.addWidget(self.plot)
        self.apply_theme()
        self.retranslate()
        # The axis's title fitted to its height whenever that changes (the plot's own layout
        # settles after the widget's resize).
        item.getAxis("left").geometryChanged.connect(self._fit_axis_title)

    # -- data -----------------------------------------------------------------------------
    def bind(self, state: RunState) -> None:
        """Follow a run model: each served call becomes a point. The first change after a
        quiet spell paints at once; under a stream of calls, at most every ``PAINT_MS``."""
        self._state = state
        self._paint = qthrottled(self.refresh, timeout=PAINT_MS, parent=self)
        state.subscribe(self._changed)

    def _changed(self, change: Change) -> None:
        if change.cleared:
            self.clear()
        for served in change.served:
            record = served.record
            self.add(record, served.segment, record.variant or "", served.position)
        self.records = self._state.records
        if change.cleared or change.served or change.new_segment:
            self._offer_next()
        pending = self._pending_now()
        if pending != self._pending_key:
            self._dirty = True
        if change.cleared or change.served or pending != self._pending_key:
            self._paint()

    def _pending_now(self) -> tuple:
        """(call, role, whole tenths of a second) of the call in flight, or ()."""
        state = self._state
        if state.in_flight is None or self.overlay:
            return ()
        elapsed = max(0.0, time.perf_counter() - state.started_at)
        return (state.in_flight, variant_role(state.variant), int(elapsed * 10))

    def pending_call(self) -> int | None:
        """The call marked as in flight, if one is (tests read this)."""
        return int(self._pending_key[0]) if self._pending_key else None

    def _mark_pending(self) -> None:
        """Show the call in flight where its point will be, at the time it has taken so far."""
        key = self._pending_now() if hasattr(self, "_state") else ()
        self._pending_key = key
        self.pending.setVisible(bool(key))
        self.pending_label.setVisible(bool(key))
        if not key:
            return
        index, role, tenths = key
        ms = max(tenths * 100.0, 0.1)
        color = VARIANT_COLORS[ROLE_NAMES[role]]
        self.pending.setSymbol(ROLE_SYMBOLS[role])
        self.pending.setSymbolPen(pg.mkPen(color, width=2, style=Qt.PenStyle.DotLine))
        self.pending.setData([float(index)], [ms])
        self.pending_label.setColor(color)
        self.pending_label.setText(f"#{index} {tenths / 10:.1f} s")
        self.pending_label.setPos(float(index) + 0.2, math.log10(ms))
        if self.follow:  # the call in flight is kept in view with the others
            xs = np.append(self._shown_x, float(index))
            self._follow_range(xs, np.append(self._shown_y, math.log10(ms)), x_all=xs)

    def _offer_next(self) -> None:
        """After the pitfall has shown what it does, offer the fix; after the fix, the
        comparison. Read from the run model, so it follows Step, Run and autoplay alike."""
        state = self._state
        segment = state.segments[-1] if state.segments else None
        nxt = ""
        if segment is not None and segment.records:
            counts = segment.counts
            shown = (
                segment.calls >= 2 or counts[CallKind.ERROR] > 0 or counts[CallKind.RECOMPILE] > 0
            )
            if segment.variant == "pitfall" and shown:
                nxt = "fix" if state.latest("fix") is None else "complete"
            elif segment.variant == "fix" and state.latest("pitfall") is not None:
                nxt = "complete"
        if nxt != self._next:
            self._next = nxt
            self._label_next()
            self.chrome_changed.emit()
        self.next_button.setVisible(bool(nxt))

    def _label_next(self) -> None:
        if self._next == "fix":
            self.next_button.setText(self.tr("Now try the fix →"))
            self.next_button.setToolTip(
                self.tr(
                    "Switch to the fix and make the same calls: the chart marks where it begins."
                )
            )
        elif self._next == "complete":
            self.next_button.setText(self.tr("Compare pitfall and fix →"))
            self.next_button.setToolTip(
                self.tr("④ Complete: the two runs side by side, and what the fix changed.")
            )

    def clear(self) -> None:
        self.follow = True
        self._range = (0.0, 0.0, 0.0)
        self._setting_range = True
        self.plot.getPlotItem().vb.setRange(xRange=EMPTY_X, yRange=EMPTY_LOG_Y, padding=0)
        self._setting_range = False
        self.buffer.clear()
        self.records = []
        self._segment_local.clear()
        self._segment_variant.clear()
        self._segment_first.clear()
        self._dirty = True

    def add(self, record: CallRecord, segment: int, variant: str, pos: int) -> None:
        """Queue a call for the next frame (cheap: a few array writes)."""
        local = self._segment_local.get(segment, 0)
        self._segment_local[segment] = local + 1
        self._segment_variant[segment] = variant
        self._segment_first.setdefault(segment, record.index)
        self.buffer.append(
            record.index,
            local,
            record.latency_ms,
            _KIND_CODE[record.kind],
            variant != "pitfall",
            segment,
            pos,
            variant_role(variant),
        )
        self._dirty = True

    def set_overlay(self, overlay: bool) -> None:
        self.overlay = overlay
        self._dirty = True
        self.refresh()

    @property
    def failed_only(self) -> bool:
        """Every call so far failed: the plot has no latency to show, only its note (the
        calls' marks are in the failed calls' row above it)."""
        return bool(self.buffer.size) and bool((self.buffer.column("kind") == _ERROR).all())

    def pane_height_for(self, plot_px: int) -> int:
        """The height this view needs for a plot of ``plot_px`` pixels: the legend (wrapped
        at the current width) and the next-step button above it, the failed calls' row
        while it shows."""
        layout = self.layout()
        spacing = layout.spacing() if layout is not None else 0
        # The header row as its layout will make it at this width (the legend wrapped beside
        # the button where it shows), not an estimate of it: a pixel short is a cut plot.
        self.header.invalidate()
        header = self.header.heightForWidth(max(self.width(), 120))
        if header < 0:  # no wrapping label in it: its plain height
            header = self.header.sizeHint().height()
        rows = header + spacing
        if self.buffer.size and bool((self.buffer.column("kind") == _ERROR).any()):
            rows += ERROR_ROW_PX + spacing  # the failed calls' row (shown from its next paint)
        return rows + plot_px

    def point_count(self) -> int:
        """Calls on the chart: latency points and the error row's marks."""
        return int(self._shown_x.size + self._error_x.size)

    def kinds_shown(self) -> list[CallKind]:
        """Kind of every call on the chart, in call order (tests read this)."""
        codes = self._shown_kinds
        kinds = [KIND_ORDER[c] for c in codes]
        if self._error_x.size:  # the error row's calls, in their places
            at = list(zip(self._shown_x.tolist(), kinds, strict=True))
            at += [(x, CallKind.ERROR) for x in self._error_x.tolist()]
            kinds = [k for _, k in sorted(at, key=lambda p: p[0])]
        return kinds

    def latency_calls(self) -> list[int]:
        """Call numbers plotted at a latency (failed calls never are)."""
        return [int(x) for x in self._shown_x]

    def error_calls(self) -> list[int]:
        """Call numbers marked in the failed calls' row."""
        return [int(x) for x in self._error_x]

    def run_starts(self) -> list[tuple[float, str]]:
        """The run boundaries drawn: (x, label) each (tests read this)."""
        return [(line.value(), line.label.toPlainText()) for line in self._run_lines]

    def refresh(self) -> None:
        """Push the buffers to pyqtgraph: called at most once per frame, only on change.

        Cheap by construction: only items whose points changed get ``setData``; cache-hit
        symbols are drawn for the newest ``SYMBOL_TAIL`` calls (older ones stay on the
        downsampled line), every other kind's for every call in the buffer; the view range is
        set by hand in steps, so the axes rarely need new ticks.
        """
        if not self._dirty:
            return
        self._dirty = False
        self._place_hint()
        buf = self.buffer
        kind = buf.column("kind")
        fix = buf.column("fix")
        role = buf.column("role")
        seg = buf.column("segment")
        lat = buf.column("latency")
        pos = buf.column("record")
        if self.overlay:
            keep = np.zeros(kind.size, np.bool_)
            for variant_is_fix in (False, True):
                segs = [
                    s
                    for s, v in self._segment_variant.items()
                    if (v != "pitfall") == variant_is_fix and self._segment_local.get(s)
                ]
                if segs:
                    keep |= seg == max(segs)
            x = buf.column("local")[keep]
            kind, fix, lat, pos = kind[keep], fix[keep], lat[keep], pos[keep]
            role, seg = role[keep], seg[keep]
        else:
            x = buf.column("index")
        failed = kind == _ERROR
        ok = ~failed
        log_lat = np.log10(lat)
        # Failed calls stopped while tracing: their time is no latency, so they are marked in
        # the row above, and the latency axis (and its range) holds the calls that ran.
        self._shown_x, self._shown_y, self._shown_pos = x[ok], log_lat[ok], pos[ok]
        self._shown_kinds = kind[ok]
        self._error_x, self._error_pos = x[failed], pos[failed]
        for variant_is_fix, line in self.lines.items():
            if self.overlay:
                mask = (fix == variant_is_fix) & ok
            else:
                mask = ok.copy() if not variant_is_fix else None
            self._set(line, x, lat, mask)
        in_tail = np.zeros(kind.size, np.bool_)
        in_tail[max(0, kind.size - self.SYMBOL_TAIL) :] = True
        row = np.zeros(kind.size)  # the error row's marks sit on one line
        for (k, r), item in self.points.items():
            mask = (kind == _KIND_CODE[k]) & (role == r)
            if k is CallKind.CACHE_HIT:
                mask &= in_tail  # hits are thinned; every other kind keeps its marker
            self._set(item, x, row if k is CallKind.ERROR else lat, mask)
        self._mark_runs(seg, x)
        self._follow_range(x, log_lat[ok] if ok.any() else np.zeros(0), x_all=x)
        self._mark_errors(x[failed], pos[failed])  # after the range: names are placed in px
        self._mark_pending()
        self._place_hint()

    def _mark_errors(self, xs: np.ndarray, positions: np.ndarray) -> None:
        """The row of failed calls: shown while there are any, each run of one error's
        calls named once, in one of two lanes where the name has room (a name that would
        cover another is left to the mark's tooltip)."""
        if self.error_plot.isHidden() == (xs.size > 0):
            self.error_plot.setVisible(xs.size > 0)
            self.chrome_changed.emit()
        erow = self.error_plot.getPlotItem()
        (x0, x1), _ = erow.vb.viewRange()
        px_per_call = max(erow.vb.width(), 1.0) / max(x1 - x0, 1e-9)
        key = (xs.size, float(xs[-1]) if xs.size else -1.0, self.overlay, round(px_per_call, 1))
        if key == self._errors_key:
            return
        self._errors_key = key
        for label in self._error_labels:
            erow.removeItem(label)
        self._error_labels = []
        names: list[tuple[float, str]] = []
        last = None
        for x, pos in zip(xs.tolist()[-200:], positions.tolist()[-200:], strict=True):
            record = self._record(int(pos))
            name = record.error.type if record is not None and record.error else "?"
            if name != last:
                names.append((x, name))
            last = name
        color = KIND_COLORS[CallKind.ERROR]
        metrics = QFontMetrics(self.font())
        # One lane above the marks (the row is one line of text high there: two lanes
        # overlapped); a name that would reach the next one is left to the mark's tooltip.
        end = -math.inf  # where the last name ends, in calls
        for x, name in names[-RUN_LABELS:]:
            if x < end:
                continue
            width = (metrics.horizontalAdvance(name) + 8) / px_per_call
            # Right of its mark; left of it where the plot ends first (the newest call).
            left = x + 0.15 + width > x1 and x - 0.15 - width >= max(end, x0)
            end = x + 0.15 + (0 if left else width)
            label = pg.TextItem(name, color=color, anchor=(1, 0.5) if left else (0, 0.5))
            label.setPos(x - 0.15 if left else x + 0.15, ERROR_LABEL_Y)
            erow.addItem(label)
            self._error_labels.append(label)

    def _record(self, pos: int) -> CallRecord | None:
        if not 0 <= pos < len(self.records):
            return None
        try:
            return self.records[pos]
        except IndexError:
            return None

    def _mark_runs(self, seg: np.ndarray, x: np.ndarray) -> None:
        """A labelled vertical line where each run begins: the variant it runs."""
        if not self.show_runs or self.overlay or seg.size == 0:
            starts: list[tuple[float, int]] = []
        else:
            firsts = np.flatnonzero(np.diff(seg, prepend=seg[0] - 1))
            starts = [(float(x[i]), int(seg[i])) for i in firsts][-RUN_LABELS:]
        key = (
            tuple(starts),
            tuple(self.name_of(self._segment_variant.get(s, "")) for _, s in starts),
        )
        if key == self._runs_key:
            return
        self._runs_key = key
        vb = self.plot.getPlotItem()
        for line in self._run_lines:
            vb.removeItem(line)
        self._run_lines = []
        previous = None
        dark = is_dark()
        for i, (x0, s) in enumerate(starts):
            variant = self._segment_variant.get(s, "")
            name = self.name_of(variant)
            if variant == previous:  # the same variant again: a reset emptied the caches
                name = self.tr("%1 · caches cleared").replace("%1", name)
            previous = variant
            color = VARIANT_COLORS[ROLE_NAMES[variant_role(variant)]]
            line = pg.InfiniteLine(
                pos=x0 - 0.5,
                angle=90,
                movable=False,
                pen=pg.mkPen(color, width=1, style=Qt.PenStyle.DashLine),
                label=name,
                # The name's top at the plot's top (every other one a line lower, so that
                # neighbours never overlap): whole inside a short plot too, in either
                # language (an error's pane leaves the plot ~50 px; CJK lines are taller).
                labelOpts={
                    "position": 1.0,
                    "anchors": [RUN_LABEL_ANCHORS[i % 2]] * 2,
                    "color": "#d8dde6" if dark else color,
                    "fill": (0, 0, 0, 0),
                },
            )
            line.setZValue(-10)  # behind the points
            vb.addItem(line)
            self._run_lines.append(line)

    SYMBOL_TAIL = 500

    def _set(self, item: pg.PlotDataItem, x: np.ndarray, y: np.ndarray, mask: Any) -> None:
        """``setData`` only when the item's points changed (count, last point, mode)."""
        if mask is None or not mask.any():
            key: tuple = (0,)
            xs = ys = None
        else:
            xs, ys = x[mask], y[mask]
            key = (xs.size, float(xs[0]), float(xs[-1]), float(ys[-1]), self.overlay)
        if self._item_keys.get(id(item)) == key:
            return
        self._item_keys[id(item)] = key
        if xs is None:
            item.setData([], [])
            item.setVisible(False)  # an empty item still costs a Python paint call per frame
        else:
            item.setData(xs, ys)
            item.setVisible(True)

    def _follow_range(
        self, x: np.ndarray, log_y: np.ndarray, x_all: np.ndarray | None = None
    ) -> None:
        """Keep every call in view, widening in steps (a stable range keeps the axes cached)."""
        x_all = x if x_all is None else x_all
        if not self.follow or x_all.size == 0:
            return
        x_max = float(x_all.max())
        if log_y.size == 0:  # only failed calls so far: the empty plot's latencies
            log_y = np.array(EMPTY_LOG_Y) + np.array([0.35, -0.35])
        y_lo, y_hi = float(log_y.min()), float(log_y.max())
        x_hi = self._range[0]
        # (x_hi < 8: the first call after a clear, whose range is still unset: -0.5…0.5
        # would read as −400…400 ×0.001)
        if x_max > x_hi or x_hi < 8 or x_hi > 4 * max(x_max, 8):
            x_hi = max(8.0, x_max * 1.25)
        lo, hi = self._range[1], self._range[2]
        # With run lines, the top of the plot is theirs: the points stay below their names.
        top = RUN_LABEL_ROOM if self.show_runs and not self.overlay else 1.0
        if (
            hi <= lo
            or y_lo < lo
            or lo + (y_hi - lo) / top > hi
            or hi - lo > (y_hi - y_lo) / top + 3
        ):
            lo = np.floor(y_lo * 2) / 2 - 0.35
            hi = max(np.ceil(y_hi * 2) / 2 + 0.35, lo + (y_hi - lo) / top)
        if (x_hi, lo, hi) != self._range:
            self._range = (x_hi, lo, hi)
            vb = self.plot.getPlotItem().vb
            self._setting_range = True
            vb.setRange(xRange=(-0.5, x_hi + 0.5), yRange=(lo, hi), padding=0)
            self._setting_range = False

    def _place_hint(self) -> None:
        # Before the first call: what to do. When every call so far failed: why the plot is
        # empty (a failed call has no latency; its mark is in the row above).
        failed_only = self.buffer.size > 0 and self._shown_x.size == 0 and self._error_x.size > 0
        self.empty_hint.setText(
            self.tr("Every call so far failed: no latency to plot (see the row above)")
            if failed_only
            else self.tr("Move a slider on the left or press Step")
        )
        shown = (self.buffer.size == 0 and not self._pending_key) or failed_only
        self.empty_hint.setVisible(shown)
        # No latency yet, only failed calls: the plot is short (the error has the room), and
        # its axis title would be cut to a stub, its decades mark nothing; they come back
        # with the first latency.
        axis = self.plot.getPlotItem().getAxis("left")
        self._fit_axis_title()
        axis.showLabel(not failed_only)
        if axis.style["showValues"] == failed_only:
            axis.setStyle(showValues=not failed_only)
        if shown:
            # Inside the plot's own area, below the runs' names hanging from its top.
            view = self.plot.getPlotItem().vb.sceneBoundingRect()
            rect = self.plot.mapFromScene(view).boundingRect()
            names = [line.label.sceneBoundingRect().bottom() for line in self._run_lines]
            if names and self._run_lines[0].isVisible():
                rect.setTop(max(rect.top(), math.ceil(max(names) - view.top()) + rect.top() + 1))
            if rect.height() < self.empty_hint.fontMetrics().height():  # not laid out yet
                rect = self.plot.rect().adjusted(60, 4, -20, -30)
            self.empty_hint.setGeometry(rect)

    def _fit_axis_title(self) -> None:
        """The latency axis's title whole along the axis: the short one where the plot is
        too short for it (1024×640: "latency (ms, log scale" lost its end), the whole one
        then leads the plot's tooltip."""
        full, short = self.axis_title
        axis = self.plot.getPlotItem().getAxis("left")
        room = axis.geometry().height() - 4
        metrics = QFontMetrics(axis.label.font())
        if room <= 0:  # not laid out yet: the whole title, fitted at the first resize
            title = full
        else:
            fits = [t for t in (full, short) if metrics.horizontalAdvance(t) <= room]
            title = fits[0] if fits else ""
        if title != self._axis_shown:
            self._axis_shown = title
            axis.setLabel(title)  # shown or not: the caller says (no latency, no title)
            tip = self.plot_tip if title == full else f"{full}\n\n{self.plot_tip}"
            self.plot.setToolTip(tip)

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._place_hint()
        if self._error_x.size and hasattr(self, "_paint"):  # the error names' room changed
            self._dirty = True
            self._paint()

    def _range_changed_by_user(self, *_: Any) -> None:
        if not self._setting_range:
            self.follow = False

    def follow_again(self) -> None:
        """Double-click: go back to showing every call as it arrives."""
        self.follow = True
        self._range = (0.0, 0.0, 0.0)
        self._dirty = True
        self.refresh()

    def export_png(self, path: object, width: int = 1400) -> None:
        """Render the plot's scene to a PNG, also when the chart is not on screen."""
        from pyqtgraph.exporters import ImageExporter

        self.refresh()
        if not self.isVisible():
            self.plot.resize(1100, 520)
        exporter = ImageExporter(self.plot.getPlotItem())
        exporter.parameters()["width"] = width
        exporter.export(str(path))

    # -- look -----------------------------------------------------------------------------
    def apply_theme(self) -> None:
        dark = is_dark()
        hint = "#9aa3b2" if dark else "#6b7280"
        self.empty_hint.setStyleSheet(f"QLabel {{ color: {hint}; font-size: 15px; }}")
        background = self.palette().color(QPalette.ColorRole.Base)
        paint(self.plot, background)
        paint(self.error_plot, background, ("left",))

    def retranslate(self) -> None:
        item = self.plot.getPlotItem()
        self.axis_title = (self.tr("latency (ms, log scale)"), self.tr("ms, log scale"))
        self._axis_shown = None
        item.setLabel("bottom", self.tr("call number"))
        self.plot_tip = self.tr(
            "One point per call. Hover a point for its phases, signature and reason. "
            "Drag or scroll to zoom; double-click to follow the newest calls again."
        )
        self.legend.setText(LEGEND_GAP.join(self.legend_entries()))
        self.legend.setToolTip(
            self.tr(
                "Colour: what JAX did for the call. Shape: which variant made it. A dashed "
                "vertical line marks where a run begins; failed calls are marked in their own "
                "row above the plot, never at a latency."
            )
        )
        self.error_plot.getPlotItem().setLabel("left", self.tr("failed"))
        self._place_hint()
        self._label_next()
        self._runs_key = ()  # the run lines' names follow the language
        self._dirty = True

    def legend_entries(self) -> list[str]:
        """The legend's entries as HTML: each one unbreakable (``&nbsp;``, and a word joiner
        between the characters of a name, so that Chinese does not break inside a name
        either); the legend wraps only between entries."""
        error = CallKind.ERROR
        failed = unbroken(self.tr("failed call (own row)"))
        parts = [  # a failed call first: it is counted before any latency
            f"<span style='color:{KIND_COLORS[error]}'>✕</span>&nbsp;{failed}"
        ]
        parts += [
            f"<span style='color:{KIND_COLORS[kind]}'>●</span>&nbsp;{unbroken(kind_name(kind))}"
            for kind in KIND_ORDER
            if kind is not error
        ]
        pitfall = unbroken(self.tr("pitfall variant"))
        fix = unbroken(self.tr("fix variant"))
        other = unbroken(self.tr("another variant"))
        parts.append(f"●&nbsp;{pitfall}")
        parts.append(f"▲&nbsp;{fix}")
        parts.append(f"■&nbsp;{other}")
        return parts

    def restyle(self) -> None:
        self.apply_theme()

    # -- hover ----------------------------------------------------------------------------
    def nearest(self, scene_pos: QPointF, radius_px: float = 12.0) -> CallRecord | None:
        """The call whose point is under the mouse, if any."""
        if self._shown_x.size == 0:
            return None
        vb = self.plot.getPlotItem().vb
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        (x0, x1), (y0, y1) = vb.viewRange()
        rect = vb.sceneBoundingRect()
        sx = rect.width() / max(x1 - x0, 1e-9)
        sy = rect.height() / max(y1 - y0, 1e-9)
        d2 = ((self._shown_x - p.x()) * sx) ** 2 + ((self._shown_y - p.y()) * sy) ** 2
        best = int(np.argmin(d2))
        if d2[best] > radius_px**2:
            return None
        pos = int(self._shown_pos[best])
        if not 0 <= pos < len(self.records):
            return None
        try:  # the model keeps the newest records only (a History): older ones are gone
            return self.records[pos]
        except IndexError:
            return None

    def _clicked(self, event: Any) -> None:
        """Double-click: follow the newest calls again. A click on a compile or recompile
        point opens the script of the card it compiled (:attr:`script_requested`)."""
        if event.double():
            self.follow_again()
            return
        if event.button() == Qt.MouseButton.LeftButton:
            self.click_at(event.scenePos())

    def click_at(self, scene_pos: QPointF) -> CallRecord | None:
        """The compile under ``scene_pos`` asks for its card's script; returns its record."""
        record = self.nearest(scene_pos)
        if record is None or not record.kind.compiled or record.card is None:
            return None
        self.script_requested.emit(record)
        return record

    def nearest_error(self, scene_pos: QPointF, radius_px: float = 12.0) -> CallRecord | None:
        """The failed call whose mark in the error row is under the mouse, if any."""
        if self._error_x.size == 0:
            return None
        vb = self.error_plot.getPlotItem().vb
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        (x0, x1), _ = vb.viewRange()
        sx = vb.sceneBoundingRect().width() / max(x1 - x0, 1e-9)
        d = np.abs(self._error_x - p.x()) * sx
        best = int(np.argmin(d))
        return self._record(int(self._error_pos[best])) if d[best] <= radius_px else None

    def _hover_error(self, scene_pos: QPointF) -> None:
        record = self.nearest_error(scene_pos)
        if record is None:
            QToolTip.hideText()
            return
        where = self.error_plot.mapFromScene(scene_pos).toPoint()
        card = describe(record, self._params())
        QToolTip.showText(self.error_plot.mapToGlobal(where), card, self.error_plot)

    def _hover(self, scene_pos: QPointF) -> None:
        record = self.nearest(scene_pos)
        if record is None:
            QToolTip.hideText()
            return
        global_pos = self.plot.mapToGlobal(self.plot.mapFromScene(scene_pos).toPoint())
        QToolTip.showText(global_pos, describe(record, self._params()), self.plot)

    def _params(self) -> tuple[Param, ...]:
        """The scenario's parameters (a call's card names its values by their labels)."""
        state: RunState | None = getattr(self, "_state", None)
        return state.params if state is not None else ()
