"""The signature ledger of one function: every compiled signature, what changed highlighted.

One row per compile (first compile, recompile, persistent-cache load) of a recording's typed
calls (:class:`~jitlab.records.lines.RecordedCall`);
one column per argument leaf and static argument. A cell that differs from the row above is
highlighted, so the cause of each recompile stands out without reading the reason text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QResizeEvent
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from jitlab.gui import plain
from jitlab.gui.i18n import Retranslating, translate
from jitlab.gui.style import KIND_COLORS, is_dark, kind_name
from jitlab.gui.views.reasons import reason_text
from jitlab.recordings.ledger import LedgerRow, ledger_rows, signature_columns
from jitlab.records.calls import CallKind
from jitlab.records.lines import RecordedCall
from jitlab.records.text import format_ms

Index = QModelIndex | QPersistentModelIndex
_FIXED = ("index", "kind", "t", "cost")  # columns before the signature columns
_TAIL = ("called_from", "reason")  # columns after them
# A live run (Monitor mode) has no recording clock and no calling line: those columns go, and
# its cost follows the signature (the phase timeline beside it shows each compile's cost):
# what changed starts right after the row's number and kind, whole on a 1024 px screen.
_LIVE_FIXED = ("index", "kind")
_LIVE_TAIL = ("cost", "reason")
_LIVE_TAIL_RUNS = ("cost", "run", "reason")  # the lesson's runs, kept together: which made it
NOTE_ROWS = 6  # a live ledger shows its note only where this many rows fit below it
MESH = " on mesh("  # a sharding's mesh, as a signature writes it (``P('data',) on mesh(data=8)``)


def shared_mesh(cells: list[str]) -> str:
    """The one mesh a column's sharded cells are on (`` on mesh(data=8)``), or "": said once
    in the column's header, so each cell keeps what differs (the shape and the layout; a
    cell on no mesh stays as it is)."""
    meshes = {cell[cell.find(MESH) :] for cell in cells if MESH in cell}
    return meshes.pop() if len(meshes) == 1 else ""


_ALL_FIXED = {*_FIXED, *_LIVE_TAIL_RUNS}


class LedgerModel(QAbstractTableModel):
    """Rows of :class:`LedgerRow`; differing cells carry a highlight and the old value."""

    def __init__(self, parent: Any = None, live: bool = False) -> None:
        super().__init__(parent)
        self.live = live
        self.fixed = _LIVE_FIXED if live else _FIXED
        self.runs: list[tuple[int, str]] = []  # a live ledger's rows' runs: (id, name)
        self.tail: tuple[str, ...] = _LIVE_TAIL if live else _TAIL
        self.rows: list[LedgerRow] = []
        self.keys: list[str] = []
        self.meshes: dict[str, str] = {}  # a column's mesh, shared by all its cells
        self._highlight = QColor(KIND_COLORS[CallKind.RECOMPILE])

    # -- content --------------------------------------------------------------------------
    def set_calls(
        self, calls: list[RecordedCall], runs: Sequence[tuple[int, str]] | None = None
    ) -> None:
        """The compiled ``calls`` (what changed comes first: no scrolling to find it); a live
        ledger's ``runs`` give each call's run (an id and its name, one per call): with more
        than one, a column names the run, and a run's first row is compared with nothing."""
        rows = ledger_rows(calls)
        keys = signature_columns(rows)
        compiled = [
            run for call, run in zip(calls, runs or (), strict=False) if call.record.kind.compiled
        ]
        tail: tuple[str, ...] = self.tail
        if self.live:
            several = len({run for run, _ in compiled}) > 1
            tail = _LIVE_TAIL_RUNS if several else _LIVE_TAIL
        same = keys == self.keys and tail == self.tail and compiled[: len(self.runs)] == self.runs
        meshes = {
            key: shared_mesh([r.cells.get(key, "") for r in rows if r.signature is not None])
            for key in keys
        }
        same = same and meshes == self.meshes
        if same and rows[: len(self.rows)] == self.rows and len(rows) > len(self.rows):
            self.beginInsertRows(QModelIndex(), len(self.rows), len(rows) - 1)
            self.rows, self.runs = rows, compiled
            self.endInsertRows()
            return
        if same and rows == self.rows and compiled == self.runs:
            return
        self.beginResetModel()
        self.rows, self.keys, self.tail, self.runs = rows, keys, tail, compiled
        self.meshes = meshes
        self.endResetModel()

    def columns(self) -> list[str]:
        return [*self.fixed, *self.keys, *self.tail]

    def text(self, row: int, column: int) -> str:
        key = self.columns()[column]
        entry = self.rows[row]
        call, record = entry.call, entry.call.record
        if key == "index":
            return "?" if call.events_only else str(record.index)
        if key == "kind":
            return kind_name(record.kind)
        if key == "run":
            return self.runs[row][1] if row < len(self.runs) else ""
        if key == "t":
            return f"{call.t:.2f} s" if call.t is not None else ""
        if key == "cost":
            return format_ms(record.trace_ms + record.lower_ms + record.compile_ms)
        if key == "called_from":
            return call.called_from or ""
        if key == "reason":
            return reason_text(record.reason)
        if entry.signature is None:
            return "?"  # seen only through JAX's compile events: no signature
        cell = entry.cells.get(key, "—")
        mesh = self.meshes.get(key, "")
        return cell[: -len(mesh)] if mesh and cell.endswith(mesh) else cell

    def differs(self, row: int, column: int) -> bool:
        """True when this signature cell differs from the row above (both rows known)."""
        key = self.columns()[column]
        if key in _ALL_FIXED or key in _TAIL or row == 0:
            return False
        if row < len(self.runs) and self.runs[row][0] != self.runs[row - 1][0]:
            return False  # a new run's first compile: its card holder was empty
        this, before = self.rows[row], self.rows[row - 1]
        if this.signature is None or before.signature is None:
            return False
        return this.cells.get(key, "—") != before.cells.get(key, "—")

    def header(self, column: int) -> str:
        key = self.columns()[column]
        names = {
            "index": "#",  # as the call log heads it; its tooltip says what it counts
            "kind": translate("Ledger", "kind"),
            "run": translate("Ledger", "run"),
            "t": translate("Ledger", "at"),
            "cost": translate("Ledger", "cost"),
            "called_from": translate("Ledger", "called from"),
            "reason": translate("Ledger", "what changed"),
            "fn": translate("Ledger", "function object"),
        }
        if key in names:
            return names[key]
        if key.startswith("static:"):
            return translate("Ledger", "%1 (static)").replace("%1", key[7:])
        return key + self.meshes.get(key, "")  # "x on mesh(data=8)": said once, not per row

    # -- Qt model -------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns())

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.header(section)
        if role == Qt.ItemDataRole.ToolTipRole:
            key = self.columns()[section]
            if key in _ALL_FIXED or key in _TAIL or key == "fn":
                return self.header_tip(key)
            return translate(
                "Ledger",
                "Type and shape of this argument in each compiled signature; after @, where "
                "it lay: its sharding, or the device it was committed to (none: placed where "
                "the call ran).",
            )
        return None

    def header_tip(self, key: str) -> str:
        tips = {
            "index": translate(
                "Ledger", "Which call of the function compiled (cache hits count too)."
            ),
            "kind": translate(
                "Ledger", "First compile, recompile or a load from the persistent cache."
            ),
            "t": translate("Ledger", "Seconds since the recording started."),
            "run": translate(
                "Ledger", "Which run of this lesson compiled it (a variant switch or a reset)."
            ),
            "cost": translate("Ledger", "Trace + lower + compile time of this signature."),
            "called_from": translate("Ledger", "The line of the program that made the call."),
            "reason": translate("Ledger", "What differed from the closest earlier signature."),
            "fn": translate("Ledger", "A new number means the function itself was created again."),
        }
        return tips[key]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row, column = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(row, column)
        if role == Qt.ItemDataRole.BackgroundRole and self.differs(row, column):
            color = QColor(self._highlight)
            color.setAlpha(110 if is_dark() else 60)
            return QBrush(color)
        if role == Qt.ItemDataRole.FontRole and self.differs(row, column):
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole and self.columns()[column] == "kind":
            return QColor(KIND_COLORS[self.rows[row].call.record.kind])
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain.tip(self.tooltip(row, column))  # recorded strings: as text
        return None

    def tooltip(self, row: int, column: int) -> str:
        key = self.columns()[column]
        call = self.rows[row].call
        if key == "reason":
            reason = call.record.reason
            jax_text = reason.jax_explanation if reason else None
            text = self.text(row, column)
            if jax_text:
                text += "\n\n" + translate("Ledger", "JAX's own explanation:") + "\n" + jax_text
            return text
        if self.differs(row, column):
            return (
                translate("Ledger", "Changed: %1, before %2")
                .replace("%1", self.text(row, column))
                .replace("%2", self.text(row - 1, column))
            )
        if call.events_only and (key == "index" or (key not in _ALL_FIXED and key not in _TAIL)):
            return translate(
                "Ledger",
                "This function was jitted before the recording began, so only JAX's compile "
                "events were seen: no signature, only JAX's reason.",
            )
        return self.text(row, column)

    def relabel(self) -> None:
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, max(0, self.columnCount() - 1))
        if self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, 1))


class _ProseEndsElided(QStyledItemDelegate):
    """The view elides a cell's middle (a sharding's layout, a file's line number stay);
    prose (what changed) reads from its start: its end goes."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: Index) -> None:
        super().initStyleOption(option, index)
        model = index.model()
        if isinstance(model, LedgerModel) and model.columns()[index.column()] == "reason":
            option.textElideMode = Qt.TextElideMode.ElideRight


class LedgerView(Retranslating, QWidget):
    """The ledger table with one line that says how to read it."""

    def __init__(self, parent: QWidget | None = None, live: bool = False) -> None:
        super().__init__(parent)
        self.live = live  # a scenario run in the lab, not a recording
        self.model = LedgerModel(self, live)
        self.table = QTableView(self)
        self.table.setObjectName("signatureLedger")
        self.table.setModel(self.model)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        # A cell too wide for the view loses its middle, never its end (a sharding's layout):
        # the "…" says so, and its tooltip holds it whole.
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setItemDelegate(_ProseEndsElided(self.table))
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.model.modelReset.connect(self._fit)
        if live:  # the newest compile is the one to read, its cells whole
            self.model.rowsInserted.connect(self._fit)
            self.model.rowsInserted.connect(lambda *_: self.table.scrollToBottom())
        self.note = QLabel(self)
        self.note.setObjectName("ledgerNote")
        self.note.setWordWrap(True)
        self.box = layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.note)
        layout.addWidget(self.table)
        self.retranslate()

    def set_calls(
        self, calls: list[RecordedCall], runs: Sequence[tuple[int, str]] | None = None
    ) -> None:
        self.model.set_calls(calls, runs)

    def _fit(self) -> None:
        self.table.resizeColumnsToContents()
        for column in range(self.model.columnCount()):
            if self.table.columnWidth(column) > 260:
                self.table.setColumnWidth(column, 260)
        if self.live:
            self._place_note()
            self._fit_changed()

    def _fit_changed(self) -> None:
        """Live: every signature column with a changed cell ends inside the view (what made
        JAX compile again is read without scrolling sideways); one too wide for what is left
        is narrowed to it, its text elided in the middle (its tooltip holds it whole)."""
        model, table = self.model, self.table
        room = table.viewport().width()
        if room <= 0:
            return
        for column in range(model.columnCount()):
            if not any(model.differs(row, column) for row in range(model.rowCount())):
                continue
            left = table.columnViewportPosition(column) + table.horizontalScrollBar().value()
            if left + table.columnWidth(column) > room:
                table.setColumnWidth(column, max(40, room - left))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.live:
            self._fit()

    def _place_note(self) -> None:
        """Live: the note only where it leaves room for the rows there are, up to NOTE_ROWS
        (else the rows come first, and the note's words stay in the table's tooltip)."""
        table = self.table
        chrome = table.horizontalHeader().height() + table.horizontalScrollBar().sizeHint().height()
        shown = min(NOTE_ROWS, self.model.rowCount())
        rows = shown * table.verticalHeader().defaultSectionSize() + chrome + 4
        note = self.note.heightForWidth(max(1, self.width())) + self.box.spacing()
        self.note.setVisible(self.height() >= rows + note)

    # -- for tests and callers ------------------------------------------------------------
    def headers(self) -> list[str]:
        return [self.model.header(c) for c in range(self.model.columnCount())]

    def rows(self) -> list[list[str]]:
        m = self.model
        return [[m.text(r, c) for c in range(m.columnCount())] for r in range(m.rowCount())]

    def highlighted(self) -> list[list[str]]:
        """Per row, the headers of the cells that differ from the row above."""
        m = self.model
        return [
            [m.header(c) for c in range(m.columnCount()) if m.differs(r, c)]
            for r in range(m.rowCount())
        ]

    # -- language -------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.note.setText(
            self.tr(
                "Every signature compiled in this lesson, oldest first, what changed in the "
                "first columns. A highlighted cell differs from the row above in the same run: "
                "that is what made JAX compile again."
            )
            if self.live
            else self.tr(
                "Every signature this function was compiled for, oldest first. A highlighted "
                "cell differs from the row above: that is what made JAX compile again."
            )
        )
        self.note.setToolTip(
            self.tr("jit keeps one compiled program per signature: shapes, dtypes, statics.")
        )
        tip = self.tr("One row per compile. Hover a highlighted cell for its previous value.")
        # Live, the note hides where the rows need its room: its words stay in reach here.
        self.table.setToolTip(f"{self.note.text()}\n\n{tip}" if self.live else tip)
        self.model.relabel()

    def restyle(self) -> None:
        self.model.relabel()
