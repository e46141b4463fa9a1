"""The lab screen's right column: the signature ledger (Monitor) or the kitchen, the chart,
and the bottom tabs (call log, output, error, code).

:class:`LabPanes` owns how tall each pane is (the mode's usual shares, the room an error or
the fix's diff took, the chart's readable plot) and which bottom tab is forward (the first
print, then any error). The window builds the views and hands them over.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QSplitter, QTabWidget, QWidget

from jitlab.gui.i18n import translate
from jitlab.gui.lesson.code_view import CodeView
from jitlab.gui.lesson.error_view import ErrorView
from jitlab.gui.lesson.monitor_view import MonitorView
from jitlab.gui.lesson.output_view import OutputView
from jitlab.gui.views.chart import ChartView
from jitlab.gui.views.kitchen import KitchenPanel
from jitlab.gui.views.log_view import LogView
from jitlab.gui.views.model import Change

CHART_MIN_PLOT = 160  # the chart's plot keeps this many px, an error's pane beside it…
CHART_NOTE_PLOT = 90  # …while it has latencies to show; with every call failed, its note
LAB_MODES = ("start", "execute", "monitor")  # the modes that show this column


class LabPanes(QSplitter):
    """Monitor or kitchen, chart, bottom tabs, top to bottom (see the module's doc).

    ``mode`` and ``on_lab`` say what the window shows: its mode, and whether the lab screen
    is its current page (not the summary or the exercises, and not closing)."""

    def __init__(
        self,
        monitor: MonitorView,
        kitchen: KitchenPanel,
        chart: ChartView,
        bottom: tuple[LogView, OutputView, ErrorView, CodeView],
        mode: Callable[[], str],
        on_lab: Callable[[], bool],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.monitor, self.kitchen, self.chart = monitor, kitchen, chart
        self.log, self.output, self.error_view, self.code = bottom
        self._mode = mode
        self._on_lab = on_lab
        self._shown_output = False  # the first print brought the output forward
        self._room_given = False  # the bottom pane took room for an error (or the diff)
        # A row or a button appeared above the plot: the plot keeps its height (once laid out).
        # (self as the timer's context: no call once the window is gone)
        chart.chrome_changed.connect(lambda: QTimer.singleShot(0, self, self._guard_chart))
        self.bottom = QTabWidget(self)
        self.bottom.setObjectName("bottomTabs")
        for widget in bottom:
            self.bottom.addTab(widget, "")
        self.answer_toggled(False)  # the fix's diff is part of the answer
        for pane in (monitor, kitchen, chart, self.bottom):
            self.addWidget(pane)
        self.setChildrenCollapsible(False)
        monitor.hide()

    def retranslate(self) -> None:
        for i, text in enumerate(
            (
                translate("MainWindow", "Call log"),
                translate("MainWindow", "Output"),
                translate("MainWindow", "Error"),
                translate("MainWindow", "Code"),
            )
        ):
            self.bottom.setTabText(i, text)
        tips = (
            translate("MainWindow", "One row per call, filterable by kind."),
            translate("MainWindow", "What the calls printed, trace time vs runtime."),
            translate("MainWindow", "The last error a call raised."),
            translate("MainWindow", "The code that runs, and the fix as a diff."),
        )
        for i, tip in enumerate(tips):
            self.bottom.setTabToolTip(i, tip)

    # -- which tab is forward -------------------------------------------------------------
    def new_scenario(self) -> None:
        """Another scenario opened: the call log forward, the first print shown again."""
        self._shown_output = False
        self.bottom.setCurrentWidget(self.log)

    def follow(self, change: Change) -> None:
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
            self.give_error_room()
        elif change.new_segment and self.bottom.currentWidget() is self.error_view:
            # A new run (the fix, a reset): the error shown is no longer this run's. Its
            # room goes back to the kitchen and the chart, the call log comes forward.
            self.bottom.setCurrentWidget(self.log)
            if self._room_given and self._on_lab():
                self.lay_out()

    def answer_toggled(self, shown: bool) -> None:
        """The fix's diff belongs to the answer: its tab shows only while the answer is open."""
        tabs = self.code.tabs
        tabs.setTabVisible(tabs.indexOf(self.code.diff), shown)
        if not shown and tabs.currentWidget() is self.code.diff:
            tabs.setCurrentWidget(self.code.code)

    def show_fix_code(self) -> None:
        """The answer's "see the fix as code": the diff, in the bottom pane."""
        self.bottom.setCurrentWidget(self.code)
        self.code.tabs.setCurrentWidget(self.code.diff)
        self.give_bottom_room(0.55)

    # -- how tall each pane is ------------------------------------------------------------
    def show_mode(self, mode: str) -> None:
        """Monitor swaps the kitchen for the signature ledger and the phase timeline."""
        monitoring = mode == "monitor"
        self.monitor.setVisible(monitoring)
        self.kitchen.setVisible(not monitoring)

    @property
    def room_given(self) -> bool:
        return self._room_given

    def plot_floor(self) -> int:
        """The chart's plot height kept: ``CHART_MIN_PLOT`` while it has latencies to show;
        while every call so far failed it has only its note, and the error has the room."""
        return CHART_NOTE_PLOT if self.chart.failed_only else CHART_MIN_PLOT

    def give_error_room(self) -> None:
        """An error is the point now: its anatomy (what, where, why, the fix and the three
        layers) gets the column down to the chart's readable plot. The kitchen, whose
        picture only says "see the error", steps aside until the room is given back (a new
        run: :meth:`lay_out`); Monitor's ledger keeps its place."""
        if self._mode() not in LAB_MODES:
            return
        if self._mode() == "monitor" or not self.kitchen.isVisible():
            self.give_bottom_room()
            return
        sizes = self.sizes()
        total = sum(sizes)
        if total <= 0:
            return
        self._room_given = True
        self.kitchen.hide()
        chart = self.chart.pane_height_for(self.plot_floor())
        self.setSizes([0, 0, chart, max(0, total - chart)])

    def give_bottom_room(self, share: float = 0.5) -> None:
        """The error's anatomy or the fix's diff is the point now: the bottom pane gets
        ``share`` of the column (taken from the kitchen first), not a 140 px strip; the
        chart keeps a plot of ``CHART_MIN_PLOT`` px (it gives last)."""
        if self._mode() not in LAB_MODES:
            return
        sizes = self.sizes()
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
            self.chart.pane_height_for(self.plot_floor()),
        )
        for i in (1, 0, 2):  # the kitchen's picture gives first, the chart last
            if sizes[i] == 0 and i != 2:
                continue
            give = max(0, min(need, sizes[i] - floors[i]))
            sizes[i] -= give
            need -= give
        sizes[3] -= need  # what none could give stays with the others
        self.setSizes(sizes)

    def lay_out(self) -> None:
        """The column's usual shares for this mode (the room an error took, given back, and
        the kitchen with it); the chart's plot never under ``CHART_MIN_PLOT`` pixels."""
        self._room_given = False
        self.show_mode(self._mode())
        total = max(self.height(), 400)
        if self._mode() == "monitor":
            sizes = [int(total * 0.45), 0, int(total * 0.3), int(total * 0.25)]
        else:
            # The kitchen gets what its picture needs at this width, no band of empty wall.
            kitchen = self.kitchen.canvas.heightForWidth(max(self.width(), 400) - 8)
            kitchen = min(kitchen + 85, int(total * 0.5))
            rest = total - kitchen
            sizes = [0, kitchen, int(rest * 0.6), int(rest * 0.4)]
        self.setSizes(self._keep_chart(sizes, (3, 1, 0)))

    def _guard_chart(self) -> None:
        """The chart's pane grew taller above its plot: take what the plot lost from the
        kitchen and the bottom pane (down to their minimums)."""
        if not self._on_lab():
            return
        sizes = self.sizes()
        if sum(sizes) <= 0:
            return
        order = (1, 0, 3) if self._room_given else (3, 1, 0)  # an error's pane gives last
        kept = self._keep_chart(list(sizes), order)
        if kept != sizes:
            self.setSizes(kept)

    def _keep_chart(self, sizes: list[int], order: tuple[int, ...]) -> list[int]:
        """``sizes`` with the chart's pane tall enough for a plot of ``CHART_MIN_PLOT`` px,
        taken from the panes in ``order`` down to their own minimums."""
        need = self.chart.pane_height_for(self.plot_floor()) - sizes[2]
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
