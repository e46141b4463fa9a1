"""Two tabs of the recording window: the call sites whose compiles cost most (call-site-cost,
:mod:`jitlab.records.site_costs`) and the picked function's live executables over the
recording's time (executables-growing, :mod:`jitlab.records.executables`). Every recorded
string is shown as plain text."""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from jitlab.gui import i18n
from jitlab.gui.i18n import Retranslating
from jitlab.gui.views.axes import paint
from jitlab.records.executables import Executables
from jitlab.records.lines import RecordedCall
from jitlab.records.site_costs import LISTED, SiteCost, site_cells
from jitlab.records.text import format_bytes

# A site's costliest function, as the window picks it: (function, defined at, process).
Picked = tuple[str, str | None, int | None]


def _note(parent: QWidget, name: str) -> QLabel:
    label = QLabel(parent)
    label.setObjectName(name)
    label.setTextFormat(Qt.TextFormat.PlainText)  # it names functions and files
    label.setWordWrap(True)
    return label


class CallSitesView(Retranslating, QWidget):
    """The lines of the program whose calls compiled, costliest first; a click on a row
    picks its costliest function."""

    site_picked = Signal(object)  # Picked

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note = _note(self, "callSitesNote")
        self.table = QTableWidget(0, 6, self)
        self.table.setObjectName("callSites")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.cellClicked.connect(self._clicked)
        self.picks: list[Picked | None] = []  # per row: the function a click picks
        self._shown: list[tuple[str, ...]] = []
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.table, 1)
        self.retranslate()

    def set_sites(self, ranked: Sequence[tuple[int | None, Sequence[SiteCost]]]) -> None:
        """Each recording's call sites (its process, None for a single one), costliest first."""
        several = len(ranked) > 1
        self.table.setColumnHidden(0, not several)
        lang = i18n.language()
        rows: list[tuple[str, ...]] = []
        picks: list[Picked | None] = []
        for process, costs in ranked:
            for cost in costs[:LISTED]:
                rows.append((str(process) if several else "", *site_cells(cost, lang)))
                picks.append((cost.function, cost.defined_at, process))
            if len(costs) > LISTED:
                more = self.tr("… %1 more call sites").replace("%1", str(len(costs) - LISTED))
                rows.append(("", more, "", "", "", ""))
                picks.append(None)
        if rows == self._shown:  # followed files refresh often: rebuild only what changed
            return
        self._shown, self.picks = rows, picks
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)  # plain text: a name is never markup
                if c in (0, 2, 3, 4):
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.table.setItem(r, c, item)
        self.note.setVisible(True)

    def _clicked(self, row: int, _column: int) -> None:
        if 0 <= row < len(self.picks) and self.picks[row] is not None:
            self.site_picked.emit(self.picks[row])

    def retranslate(self) -> None:
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("process"),
                self.tr("call site"),
                self.tr("compiles"),
                self.tr("compile time"),
                self.tr("share"),
                self.tr("costliest function"),
            ]
        )
        self.note.setText(
            self.tr(
                "Each compile is charged to the line of the program that made the call "
                "(trace + lower + compile time, summed per line); share: of all compile "
                "time. Click a row to show its costliest function."
            )
        )


def memory(executables: Executables) -> int | None:
    """What a function's live executables hold, the figures JAX gave summed (None: none)."""
    parts = (
        executables.live_code_bytes,
        executables.live_temp_bytes,
        executables.live_argument_bytes,
        executables.live_output_bytes,
    )
    given = [p for p in parts if p is not None]
    return sum(given) if given else None


def live_series(calls: Sequence[RecordedCall]) -> list[tuple[float, int, int | None]]:
    """(seconds into the recording, live executables, their memory) after each compile that
    counted them, in order (compiles without a time or a count are left out)."""
    found = []
    for call in calls:
        executables = call.record.executables
        if call.t is None or executables is None or executables.live is None:
            continue
        found.append((call.t, executables.live, memory(executables)))
    return found


def _steps(points: Sequence[tuple[float, int]]) -> tuple[list[float], list[int]]:
    """A staircase through ``points``: each value held until the next compile changes it."""
    xs: list[float] = []
    ys: list[int] = []
    for i, (t, value) in enumerate(points):
        if i:
            xs.append(t)
            ys.append(ys[-1])
        xs.append(t)
        ys.append(value)
    return xs, ys


class ExecutablesView(Retranslating, QWidget):
    """The picked function's executables alive after each compile, and what they hold, over
    the recording's time (executables-growing)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note = _note(self, "executablesNote")
        self.count_plot = pg.PlotWidget(self)
        self.count_plot.setObjectName("liveExecutables")
        self.memory_plot = pg.PlotWidget(self)
        self.memory_plot.setObjectName("liveMemory")
        self.memory_plot.setXLink(self.count_plot)
        for plot in (self.count_plot, self.memory_plot):
            item = plot.getPlotItem()
            item.setMenuEnabled(False)
            item.hideButtons()
            item.getAxis("left").setWidth(64)
        self.count_line = self.count_plot.plot([], [], pen=pg.mkPen("#2f6db5", width=2))
        self.memory_line = self.memory_plot.plot([], [], pen=pg.mkPen("#b5602f", width=2))
        self.series: list[tuple[float, int, int | None]] = []
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.count_plot, 1)
        layout.addWidget(self.memory_plot, 1)
        self.restyle()
        self.retranslate()

    def restyle(self) -> None:
        """The plots in the palette's colours (light or dark), as the other charts."""
        for plot in (self.count_plot, self.memory_plot):
            paint(plot, self.palette().color(QPalette.ColorRole.Base))

    def set_calls(self, calls: Sequence[RecordedCall]) -> None:
        """The picked function's calls (its compiles carry the counts)."""
        self.series = live_series(calls)
        self.count_line.setData(*_steps([(t, n) for t, n, _ in self.series]))
        self.memory_line.setData(*_steps([(t, m) for t, _, m in self.series if m is not None]))
        self._say()

    def _say(self) -> None:
        if not self.series:
            self.note.setText(
                self.tr(
                    "No count of live executables for this function: the recording was made "
                    "by an older jitlab, or this JAX cannot list them."
                )
            )
            return
        _, live, held = self.series[-1]
        peak = max(n for _, n, _ in self.series)
        text = self.tr(
            "Executables of this function alive after each compile: now %1 (at most %2), "
            "holding %3. A count that only grows means old programs are kept alive."
        )
        said = format_bytes(held) if held is not None else self.tr("an amount JAX did not say")
        self.note.setText(
            text.replace("%1", str(live)).replace("%2", str(peak)).replace("%3", said)
        )

    def retranslate(self) -> None:
        self.count_plot.getPlotItem().setLabel("left", self.tr("live executables"))
        self.memory_plot.getPlotItem().setLabel("left", self.tr("their memory"), units="B")
        self.memory_plot.getPlotItem().setLabel("bottom", self.tr("seconds into the recording"))
        self._say()
