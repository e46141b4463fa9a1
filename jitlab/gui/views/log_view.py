"""The event log: one row per call, filterable by kind.

A table model over the list of records (rows are appended once per frame in one batch), so a
long stream of calls stays cheap; a proxy hides the kinds the user unticked. Only the newest
``cap`` rows are kept (the oldest are removed in chunks), so a session of any length holds a
fixed amount of memory; ``total`` counts every call exactly.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from superqt.utils import qthrottled

from jitlab.gui.i18n import Retranslating, translate
from jitlab.gui.style import KIND_COLORS, KIND_ORDER, kind_name
from jitlab.gui.views.call_text import describe, values_of
from jitlab.gui.views.model import Change, RunState, default_cap
from jitlab.gui.views.reasons import change_text, reason_text, shortened
from jitlab.lab.spec import Param
from jitlab.records.calls import CallKind, CallRecord

_DISPLAY = Qt.ItemDataRole.DisplayRole
_FOREGROUND = Qt.ItemDataRole.ForegroundRole
_ALIGN = Qt.ItemDataRole.TextAlignmentRole
_TOOLTIP = Qt.ItemDataRole.ToolTipRole
_USER = Qt.ItemDataRole.UserRole
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_COLUMNS = ("#", "kind", "latency", "trace", "lower", "compile", "execute", "params", "reason")
PHASES = range(3, 7)  # trace, lower, compile, execute
PARAMS, REASON = 7, 8
REASON_MIN = 200  # px the reason keeps before the phase columns step aside
Index = QModelIndex | QPersistentModelIndex
FLUSH_MS = 200  # bound to a run: rows inserted at most 5 times a second in a flood


class CallTableModel(QAbstractTableModel):
    """Records as rows; appended in batches."""

    def __init__(self, parent: Any = None, cap: int | None = None) -> None:
        super().__init__(parent)
        self.cap = cap if cap is not None else default_cap()  # rows kept at most
        self.dropped = 0  # rows removed from the top to stay under the cap
        self.records: list[CallRecord] = []
        self._pending: list[CallRecord] = []
        self._texts: dict[int, list[str]] = {}  # display strings, made once per row
        self._colors = {kind: QColor(color) for kind, color in KIND_COLORS.items()}
        self.params: tuple[Param, ...] = ()  # the scenario's: a call's values by their labels

    def headers(self) -> list[str]:
        return [
            "#",
            translate("CallLog", "kind"),
            translate("CallLog", "latency ms"),
            translate("CallLog", "trace"),
            translate("CallLog", "lower"),
            translate("CallLog", "compile"),
            translate("CallLog", "execute"),
            translate("CallLog", "parameters"),
            translate("CallLog", "reason / error"),
        ]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.records)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.headers()[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # Called for every visible cell and role on each repaint: keep the common path short.
        if role == _DISPLAY:
            row = index.row()
            texts = self._texts.get(row)
            if texts is None:
                texts = self._texts[row] = [
                    self._text(self.records[row], c) for c in range(len(_COLUMNS))
                ]
            return texts[index.column()]
        if role == _FOREGROUND:
            if index.column() == 1:
                return self._colors[self.records[index.row()].kind]
            return None
        if role == _ALIGN:
            return _RIGHT if 2 <= index.column() <= 6 else None
        if role == _TOOLTIP:
            record = self.records[index.row()]
            if shortened(record.reason):  # the sub-trees whole: one click away
                hint = translate("CallLog", "Right-click the row for the full difference.")
                return f"{describe(record, self.params)}<br><i>{html.escape(hint, quote=False)}</i>"
            return describe(record, self.params)
        if role == _USER:
            return self.records[index.row()].kind.value
        return None

    def _text(self, record: CallRecord, column: int) -> str:
        if column == 0:
            return str(record.index)
        if column == 1:
            return kind_name(record.kind)
        if 2 <= column <= 6:
            value = (
                record.latency_ms,
                record.trace_ms,
                record.lower_ms,
                record.compile_ms,
                record.execute_ms,
            )[column - 2]
            return f"{value:.2f}" if value else "–"
        if column == 7:
            return values_of(record, self.params)
        if record.error is not None:
            first = record.error.message.splitlines()[0] if record.error.message else ""
            return f"{record.error.type}: {first}"
        return reason_text(record.reason)

    def add(self, record: CallRecord) -> None:
        self._pending.append(record)

    def flush(self) -> int:
        """Insert the calls queued since the last frame in one go."""
        if not self._pending:
            return 0
        start = len(self.records)
        count = len(self._pending)
        self.beginInsertRows(QModelIndex(), start, start + count - 1)
        self.records.extend(self._pending)
        self._pending = []
        self.endInsertRows()
        self._trim()
        return count

    @property
    def total(self) -> int:
        """Every call the log was given since it was cleared, shown or dropped."""
        return self.dropped + len(self.records) + len(self._pending)

    def set_cap(self, cap: int) -> None:
        self.cap = max(1, int(cap))
        self._trim()

    def _trim(self) -> None:
        """Remove the oldest rows once over the cap, down to 7/8 of it (one shift per chunk)."""
        if len(self.records) <= self.cap:
            return
        drop = len(self.records) - max(1, self.cap - self.cap // 8)
        self.beginRemoveRows(QModelIndex(), 0, drop - 1)
        del self.records[:drop]
        self._texts = {}  # keyed by row, and every row moved up
        self.dropped += drop
        self.endRemoveRows()

    def clear(self) -> None:
        self.beginResetModel()
        self.records = []
        self._pending = []
        self._texts = {}
        self.dropped = 0
        self.endResetModel()

    def relabel(self) -> None:
        self._texts = {}  # kind names change with the language
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(_COLUMNS) - 1)
        if self.records:
            self.dataChanged.emit(self.index(0, 1), self.index(len(self.records) - 1, 1))


class KindFilter(QSortFilterProxyModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.shown: set[str] = {k.value for k in CallKind}

    def set_shown(self, kinds: set[str]) -> None:
        if hasattr(self, "beginFilterChange"):  # Qt 6.10+
            self.beginFilterChange()
            self.shown = set(kinds)
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.shown = set(kinds)
            self.invalidateRowsFilter()

    def filterAcceptsRow(self, row: int, parent: Index) -> bool:
        model = self.sourceModel()
        return model.records[row].kind.value in self.shown  # type: ignore[attr-defined]


class LogView(Retranslating, QWidget):
    """The call log with a row of kind check boxes.

    A row that compiled a card (compile, recompile) opens that card's script: double-click
    it, or "Read its script" in its context menu (:attr:`script_requested`).
    """

    script_requested = Signal(object)  # the CallRecord whose card's script to open

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = CallTableModel(self)
        self.proxy = KindFilter(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView(self)
        self.table.setObjectName("callLog")
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        # Narrow fixed columns for the numbers; the reason takes the rest of the width and
        # elides (the row's tooltip has it in full). When even that leaves the reason too
        # little room, the four phase columns step aside (_fit_columns): the tooltip has them.
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setHorizontalScrollMode(QTableView.ScrollMode.ScrollPerPixel)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        header.setMinimumSectionSize(24)
        header.setTextElideMode(Qt.TextElideMode.ElideRight)
        for column in range(len(_COLUMNS) - 1):
            mode = (
                QHeaderView.ResizeMode.Interactive
                if column == PARAMS
                else QHeaderView.ResizeMode.Fixed
            )
            header.setSectionResizeMode(column, mode)
        header.setSectionResizeMode(REASON, QHeaderView.ResizeMode.Stretch)
        self.table.viewport().installEventFilter(self)
        self.table.doubleClicked.connect(self._double_clicked)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self.row_menu)
        self.proxy.modelReset.connect(self._size_columns)  # a reset forgets hidden sections
        self._widths: dict[int, int] = {}  # column widths as sized, hidden or not
        self.filter_label = QLabel(self)
        self.checks: dict[CallKind, QCheckBox] = {}
        row = QHBoxLayout()
        row.addWidget(self.filter_label)
        for kind in KIND_ORDER:
            box = QCheckBox(self)
            box.setChecked(True)
            box.setStyleSheet(f"QCheckBox {{ color: {KIND_COLORS[kind]}; font-weight: bold; }}")
            box.toggled.connect(self._filter)
            self.checks[kind] = box
            row.addWidget(box)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.table)
        self.retranslate()

    def _size_columns(self) -> None:
        """Widths from the font and the header texts: a number fits, nothing more."""
        metrics = self.table.fontMetrics()
        head = self.table.horizontalHeader().fontMetrics()
        pad = 14
        titles = self.model.headers()

        def fit(column: int, *samples: str) -> int:
            texts = [titles[column], *samples]
            return (
                max(head.horizontalAdvance(titles[column]), *map(metrics.horizontalAdvance, texts))
                + pad
            )

        kinds = [kind_name(kind) for kind in KIND_ORDER if kind is not CallKind.PERSISTENT_HIT]
        self._widths = {
            0: fit(0, "9999"),
            1: min(fit(1, *kinds), 12 * metrics.horizontalAdvance("m")),
            **{column: fit(column, "9999.99") for column in range(2, 7)},
            PARAMS: max(fit(PARAMS), 10 * metrics.horizontalAdvance("m")),
        }
        for column, width in self._widths.items():
            self.table.setColumnWidth(column, width)
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Hide the phase columns while showing them would leave the reason under
        ``REASON_MIN`` pixels; show them again once there is room."""
        room = self.table.viewport().width()
        fixed = sum(self._widths.get(c, 0) for c in range(REASON) if c not in PHASES)
        phases = sum(self._widths.get(c, 0) for c in PHASES)  # a hidden column has width 0
        hide = room - fixed - phases < REASON_MIN
        if hide != self.table.isColumnHidden(PHASES[0]):
            for column in PHASES:
                self.table.setColumnHidden(column, hide)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and watched is self.table.viewport():
            self._fit_columns()
        # Not super().eventFilter (QObject's returns False): while the view is destroyed
        # its children still send events here, and the half-deleted view would raise.
        return False

    def bind(self, state: RunState) -> None:
        """Follow a run model: one row per served call, inserted at most every ``FLUSH_MS``
        under a stream of calls (at once after a quiet spell)."""
        self._flush_later = qthrottled(self.flush, timeout=FLUSH_MS, parent=self)
        self.state = state
        state.subscribe(self._changed)

    def _changed(self, change: Change) -> None:
        if change.cleared:
            self.clear()
            self.model.params = self.state.params
        for served in change.served:
            self.add(served.record)
        if change.served:
            self._flush_later()

    def _filter(self) -> None:
        self.proxy.set_shown({k.value for k, box in self.checks.items() if box.isChecked()})

    def add(self, record: CallRecord) -> None:
        self.model.add(record)

    def flush(self) -> None:
        at_bottom = self._at_bottom()
        if self.model.flush() and at_bottom:
            self.table.scrollToBottom()

    def _at_bottom(self) -> bool:
        bar = self.table.verticalScrollBar()
        return bar.value() >= bar.maximum() - 2

    def clear(self) -> None:
        self.model.clear()

    # -- a compile row opens its card's script ------------------------------------------
    def record_at(self, row: int) -> CallRecord | None:
        """The record shown in ``row`` of the (filtered) table."""
        if not 0 <= row < self.proxy.rowCount():
            return None
        source = self.proxy.mapToSource(self.proxy.index(row, 0)).row()
        return self.model.records[source] if 0 <= source < len(self.model.records) else None

    @staticmethod
    def has_script(record: CallRecord | None) -> bool:
        return record is not None and record.kind.compiled and record.card is not None

    def _double_clicked(self, index: QModelIndex) -> None:
        record = self.record_at(index.row())
        if self.has_script(record):
            self.script_requested.emit(record)

    def row_menu(self, where: QPoint) -> QMenu | None:
        """The row's context menu: "Read its script" (for a row that compiled a card)."""
        index = self.table.indexAt(where)
        record = self.record_at(index.row()) if index.isValid() else None
        if record is None:
            return None
        menu = QMenu(self)
        read = menu.addAction(self.tr("Read its script"))
        read.setEnabled(self.has_script(record))
        if not self.has_script(record):
            read.setToolTip(self.tr("Only a call that compiled has a script of its own."))
        read.triggered.connect(lambda: self.script_requested.emit(record))
        if shortened(record.reason):  # a pytree change, its sub-trees shortened in the row
            full = menu.addAction(self.tr("Show the full difference"))
            full.triggered.connect(lambda: self.show_full_reason(record))
        menu.popup(self.table.viewport().mapToGlobal(where))
        return menu

    def show_full_reason(self, record: CallRecord) -> QDialog:
        """The call's reason in full (a pytree change with both sub-trees whole), one change
        a paragraph, as plain text: recorded strings are data, never markup."""
        dialog = QDialog(self)
        dialog.setObjectName("fullReason")
        dialog.setWindowTitle(self.tr("What changed for call #%1").replace("%1", str(record.index)))
        text = QPlainTextEdit(dialog)
        text.setReadOnly(True)
        items = record.reason.items if record.reason is not None else ()
        text.setPlainText("\n\n".join(change_text(change, full=True) for change in items))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
        buttons.rejected.connect(dialog.close)
        layout = QVBoxLayout(dialog)
        layout.addWidget(text)
        layout.addWidget(buttons)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.resize(640, 320)
        dialog.show()
        return dialog

    def visible_rows(self) -> list[CallRecord]:
        """Records shown after filtering (tests read this)."""
        return [
            self.model.records[self.proxy.mapToSource(self.proxy.index(r, 0)).row()]
            for r in range(self.proxy.rowCount())
        ]

    def retranslate(self) -> None:
        self.filter_label.setText(self.tr("Show:"))
        for kind, box in self.checks.items():
            box.setText(kind_name(kind))
            box.setToolTip(self.tr("Show or hide the calls of this kind in the log."))
        self.table.setToolTip(self.tr("One row per call. Hover a row for the details."))
        self.model.relabel()
        self._size_columns()  # the header texts change width with the language
