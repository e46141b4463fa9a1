"""The recording window's left column: the files' facts, the divergence banner, the function
list (one row per lane, a function in a process, the costliest first, its items rewritten
in place as the file grows) and the picked function's details."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QModelIndex, Qt, QUrl
from PySide6.QtGui import QColor, QHelpEvent, QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QLabel,
    QScrollArea,
    QToolTip,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from jitlab.gui import plain
from jitlab.gui.recording import texts
from jitlab.gui.recording.page_view import PageView
from jitlab.gui.style import KIND_COLORS
from jitlab.gui.views.fitting import BreakingLabel
from jitlab.recordings.follower import Lane
from jitlab.recordings.processes import Divergence
from jitlab.recordings.summary import FunctionSummary
from jitlab.records.calls import CallKind
from jitlab.records.diagnoses import Diagnosis

DIVERGED_BACKGROUND = "#fff1d6"
COLUMNS = 6  # function, time lost, compiles, recompiles, cache hits, process
NAME_MIN_PX = 90  # the function column, at its narrowest (a long name elided in the middle)
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_ROLES = (Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ForegroundRole)


def style_row(item: QTreeWidgetItem, recompiles: bool, diverged: bool, marked: bool) -> None:
    """A picker row's colours and fonts: recompiles in their colour; a function the
    processes diverged on highlighted, in bold where this process is the odd one."""
    for column in range(COLUMNS):  # back to the defaults first: the item showed another row
        for role in _ROLES:
            item.setData(column, role, None)
    if recompiles:
        item.setForeground(3, QColor(KIND_COLORS[CallKind.RECOMPILE]))
    if diverged:
        warn = QColor(DIVERGED_BACKGROUND)
        for column in range(COLUMNS):
            item.setBackground(column, warn)
            item.setForeground(column, QColor("#3a2600"))
    font = item.font(5)
    font.setBold(marked)
    item.setFont(5, font)
    item.setFont(0, font)


class FunctionPicker(QTreeWidget):
    """The functions of a recording (a lane each), as :meth:`fill` was last given them.

    A row's tip is made when asked for, by ``tip_of(row)``: while a long file loads every
    refresh changes every row, and making every tip each time held the window ~5 ms.
    """

    def __init__(
        self, multi: bool, tip_of: Callable[[int], str], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("functionPicker")
        self.setRootIsDecorated(False)
        self.setColumnCount(COLUMNS)
        self.header().moveSection(5, 1)  # the process, right after the function
        self.setColumnHidden(5, not multi)
        self.setUniformRowHeights(True)
        # A long name is cut in its middle (its tip holds it whole): the figures beside it
        # stay in view.
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        # Weakly: the window's own method, and a cycle through it would keep the window's
        # Python object alive after Qt deleted it.
        self._tip_of = weakref.WeakMethod(tip_of)
        self.rows: Sequence[tuple[Lane, FunctionSummary]] = ()
        self._items: list[QTreeWidgetItem] = []  # one per row
        self._styles: list[tuple[bool, bool, bool] | None] = []  # per row, as last styled
        self._widths: list[int] = []  # the longest text per column, as last fitted

    def retranslate(self) -> None:
        """Headers and tips, in the window's translation context."""
        self.setHeaderLabels(
            [
                QCoreApplication.translate("RecordingWindow", "function"),
                QCoreApplication.translate("RecordingWindow", "time lost"),
                QCoreApplication.translate("RecordingWindow", "compiles"),
                QCoreApplication.translate("RecordingWindow", "recompiles"),
                QCoreApplication.translate("RecordingWindow", "cache hits"),
            ]
        )
        self.headerItem().setText(5, QCoreApplication.translate("RecordingWindow", "process"))
        header = self.headerItem()
        tips = (
            QCoreApplication.translate(
                "RecordingWindow", "The jitted function and, on hover, where it is defined."
            ),
            QCoreApplication.translate(
                "RecordingWindow", "Trace + lower + compile time spent on this function."
            ),
            QCoreApplication.translate(
                "RecordingWindow",
                "Programs compiled for it (first compile, recompiles, persistent loads).",
            ),
            QCoreApplication.translate(
                "RecordingWindow", "Compiles after the first: each one is time lost."
            ),
            QCoreApplication.translate(
                "RecordingWindow",
                "Calls served from a compiled program; ? when they could not be counted.",
            ),
        )
        for column, tip in enumerate(tips):
            header.setToolTip(column, tip)
        header.setToolTip(
            5,
            QCoreApplication.translate(
                "RecordingWindow",
                "The process of the job that wrote the recording; ⚠: it diverged.",
            ),
        )
        self.setToolTip(
            QCoreApplication.translate(
                "RecordingWindow",
                "Functions sorted by time lost to compiling: fix the first one first.",
            )
        )

    def fill(
        self,
        rows: Sequence[tuple[Lane, FunctionSummary]],
        picked: Lane | None,
        diverged_function: Callable[[Lane], bool],
        diverged: Callable[[Lane], object],
    ) -> None:
        """The rows, the items kept and rewritten (rebuilding them, and the column widths,
        each time held the window ~5 ms while a long file loaded)."""
        self.rows = rows
        self.blockSignals(True)
        if self.topLevelItemCount() != len(rows):
            self.clear()
            self._items = [QTreeWidgetItem() for _ in rows]
            for item in self._items:
                for column in range(1, 5):
                    item.setTextAlignment(column, _RIGHT)
            self.addTopLevelItems(self._items)
            self._styles = [None] * len(self._items)
        widths = [0] * COLUMNS
        current = None
        for row, (lane, s) in enumerate(rows):
            item = self._items[row]
            process = "" if lane[2] is None else f"p{lane[2]}"
            on_function = diverged_function(lane)
            marked = on_function and diverged(lane) is not None
            texts = (
                # The same figures as the terminal summary of `jitlab watch` (ms to 0.1).
                s.function,
                f"{s.ms_text} ms",
                str(s.executables),
                str(s.recompiles),
                "?" if s.hits is None else str(s.hits),
                f"⚠ {process}" if marked else process,
            )
            for column, text in enumerate(texts):
                item.setText(column, text)
                widths[column] = max(widths[column], len(text))
            item.setData(0, Qt.ItemDataRole.UserRole, lane)
            style = (bool(s.recompiles), on_function, marked)
            if style != self._styles[row]:
                style_row(item, *style)
                self._styles[row] = style
            if lane == picked:
                current = item
        if current is not None and self.currentItem() is not current:
            self.setCurrentItem(current)
        elif current is None and self.currentItem() is not None:
            self.setCurrentIndex(QModelIndex())  # no row
        if widths != self._widths:  # longer or shorter texts: widths to fit them
            self._widths = widths
            for column in range(COLUMNS):
                self.resizeColumnToContents(column)
            self._fit_names()
        self.blockSignals(False)

    def _fit_names(self) -> None:
        """The function column as wide as its names, but never so wide that the figures
        beside it leave the view (a long name is elided in its middle)."""
        others = sum(self.columnWidth(c) for c in range(1, COLUMNS) if not self.isColumnHidden(c))
        room = max(NAME_MIN_PX, self.viewport().width() - others)
        self.setColumnWidth(0, min(self.sizeHintForColumn(0), room))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_names()

    def select(self, lane: Lane) -> None:
        """Show a lane as the current row (without telling the window it was picked)."""
        for item in self._items:
            if tuple(item.data(0, Qt.ItemDataRole.UserRole)) == lane:
                self.blockSignals(True)
                self.setCurrentItem(item)
                self.blockSignals(False)

    def names(self) -> list[str]:
        """Function names as listed."""
        return [item.text(0) for item in self._items]

    def viewportEvent(self, event: QEvent) -> bool:
        """A row's tip, made when the pointer rests on its function."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            position = event.pos()
            item = self.itemAt(position)
            if item is not None and self.columnAt(position.x()) == 0:
                row = self.indexOfTopLevelItem(item)
                tip_of = self._tip_of()
                if tip_of is not None and 0 <= row < len(self.rows):
                    QToolTip.showText(event.globalPos(), tip_of(row), self)
                    return True
        return super().viewportEvent(event)


class DivergenceBanner(QLabel):
    """Where the processes of a job diverged (hidden when they did not)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("divergenceBanner")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setStyleSheet(
            "QLabel#divergenceBanner { background: #fff1d6; color: #5a3b00;"
            " border: 1px solid #e0a030; border-radius: 4px; padding: 6px; }"
        )
        self.hide()

    def show_divergences(self, divergences: tuple[Divergence, ...]) -> None:
        if not divergences:
            self.hide()
            return
        text, tip = texts.banner(divergences)
        self.setText(text)
        self.setToolTip(tip)
        self.show()


class DiagnosesLabel(BreakingLabel):
    """The picked function's diagnoses (hidden when it has none): a click on one opens its
    page in the app, in the display language (:class:`PageView`); a page gone since is said
    here, nothing opened."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("functionDiagnoses")
        self.setTextFormat(Qt.TextFormat.RichText)  # every recorded string in it escaped
        self.setWordWrap(True)
        self.setOpenExternalLinks(False)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
        )
        self.setStyleSheet(
            "QLabel#functionDiagnoses { background: #fff8c5; color: #3b2f00;"
            " border-left: 4px solid #d4a72c; padding: 6px; }"
        )
        self.linkActivated.connect(self.open_page)
        self.page_view: PageView | None = None  # the page last opened, while it is shown
        self.hide()

    def show_diagnoses(self, found: Sequence[Diagnosis]) -> None:
        self.setText(texts.diagnoses(found))
        self.setVisible(bool(found))

    def open_page(self, url: str) -> bool:
        """Show a page's ``file:`` URL in the app (one page window at a time); False (and
        said under the list) if it is gone."""
        target = QUrl(url)
        if not (target.isLocalFile() and Path(target.toLocalFile()).is_file()):
            gone = QCoreApplication.translate("RecordingWindow", "%1 (not on this machine)")
            self.setText(f"{self.text()}<br><i>{plain.escape(gone.replace('%1', url))}</i>")
            return False
        if self.page_view is not None:
            self.page_view.close()
        self.page_view = PageView(Path(target.toLocalFile()), self.window())
        self.page_view.show()
        return True


def _rich_label(parent: QWidget, name: str) -> QLabel:
    """A selectable label of rich text made here, every recorded string in it escaped (and
    breakable: copied without its breaks)."""
    label = BreakingLabel(parent)
    label.setObjectName(name)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class FunctionColumn(QWidget):
    """The info box, the follow switch, the banner, the picker and the details."""

    def __init__(
        self, multi: bool, tip_of: Callable[[int], str], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.info = _rich_label(self, "recordingInfo")
        self.follow_box = QCheckBox(self)
        self.follow_box.setObjectName("followFile")
        self.picker_label = QLabel(self)
        self.banner = DivergenceBanner(self)
        self.picker = FunctionPicker(multi, tip_of, self)
        self.details = _rich_label(self, "functionDetails")
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.diagnoses = DiagnosesLabel(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.info, self.follow_box, self.banner, self.picker_label):
            layout.addWidget(widget)
        layout.addWidget(self.picker, 1)
        # The picked function's diagnoses and details scroll where the column is short
        # (1024×640): their ends stay in reach, never cut off.
        below = QWidget(self)
        below_layout = QVBoxLayout(below)
        below_layout.setContentsMargins(0, 0, 0, 0)
        below_layout.addWidget(self.diagnoses)
        below_layout.addWidget(self.details, 1)
        self.below = QScrollArea(self)
        self.below.setObjectName("functionBelow")
        self.below.setWidgetResizable(True)
        self.below.setFrameShape(QFrame.Shape.NoFrame)
        self.below.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.below.setWidget(below)
        layout.addWidget(self.below, 2)
        self.setMinimumWidth(340)

    def retranslate(self) -> None:
        """Its words, in the window's translation context."""
        self.picker.retranslate()
        self.picker_label.setText(
            QCoreApplication.translate("RecordingWindow", "Functions, most time lost first:")
        )
        self.picker_label.setToolTip(self.picker.toolTip())
        self.details.setToolTip(
            QCoreApplication.translate(
                "RecordingWindow", "The picked function: where it is defined, what changed."
            )
        )
        self.follow_box.setText(
            QCoreApplication.translate(
                "RecordingWindow", "Follow the file as the program writes it"
            )
        )
        self.follow_box.setToolTip(
            QCoreApplication.translate(
                "RecordingWindow",
                "Read new lines as they are written, for a program that is still running.",
            )
        )
