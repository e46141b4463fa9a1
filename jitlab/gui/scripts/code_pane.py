"""The script windows' text panes: read-only code laid out in parts, lines marked, searchable;
and the find bar that searches the pane shown.
"""

from __future__ import annotations

from typing import Any

from pygments.lexer import Lexer
from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtGui import (
    QColor,
    QKeySequence,
    QShortcut,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QWidget,
)

from jitlab.gui.i18n import Retranslating
from jitlab.gui.scripts.lexers import LazyHighlighter
from jitlab.gui.style import fixed_font, is_dark


class CodePane(QPlainTextEdit):
    """Read-only code, no wrap, highlighted as shown; lines can be marked (linking, search).

    A long text is laid out in parts: the first ``FIRST_LINES`` lines at once, the rest
    ``CHUNK_LINES`` at a time on zero-delay timers, so no single GUI event lays out a whole
    10,000-line jaxpr. What reads the text (``text``, find, marking, the current line) sees
    all of it: the rest is laid out at once when one of those asks first.
    """

    FIRST_LINES = 200
    CHUNK_LINES = 500

    def __init__(self, lexer: Lexer | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)  # appended parts would fill an undo stack
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(fixed_font())
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.highlighter = LazyHighlighter(self, lexer) if lexer is not None else None
        self.marked: list[int] = []  # block numbers marked by mark_lines
        self._pending: str | None = None  # text to lay out once the pane is first shown
        self._whole: str | None = None  # the text while its rest is still being appended
        self._done_to = 0  # how much of _whole is laid out
        self.loading = False  # setting text now (its cursor moves are not the reader's)
        self._filler = QTimer(self)
        self._filler.setSingleShot(True)
        self._filler.setInterval(0)
        self._filler.timeout.connect(self._fill_more)

    def set_text(self, text: str) -> None:
        """Show ``text``; a hidden pane (another tab) takes it when it is first shown, so a
        long HLO costs nothing until someone looks at it."""
        self._filler.stop()
        self._whole = None
        self._pending = text
        self.marked = []
        if self.isVisible():
            if text.count("\n") < self.FIRST_LINES:
                self._start_filling()
            else:  # a long one: laid out in events of its own, once this one is done
                self._filler.start()

    @property
    def filling(self) -> bool:
        """Part of the text is still to be appended (on the event loop)."""
        return self._whole is not None

    @staticmethod
    def _after_lines(text: str, start: int, lines: int) -> int:
        """The position just before the newline that ends ``lines`` lines from ``start``
        (``len(text)`` when fewer are left)."""
        at = start
        for _ in range(lines):
            at = text.find("\n", at + 1)
            if at < 0:
                return len(text)
        return at

    def _start_filling(self) -> None:
        if self._pending is None:
            return
        text, self._pending = self._pending, None
        if self.highlighter is not None:
            self.highlighter.reset()
        first = self._after_lines(text, -1, self.FIRST_LINES)
        self.loading = True  # the cursor moves because text came, not because of a reader
        try:
            self.setPlainText(text[:first] if first < len(text) else text)
        finally:
            self.loading = False
        if first < len(text):
            self._whole, self._done_to = text, first
            self._filler.start()

    def _append(self, end: int) -> None:
        whole = self._whole
        assert whole is not None
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        last = cursor.blockNumber()
        highlighter = self.highlighter
        if highlighter is not None:
            highlighter._busy = True  # appended: the blocks coloured so far stay coloured
        try:
            cursor.insertText(whole[self._done_to : end])
        finally:
            if highlighter is not None:
                highlighter._busy = False
                highlighter.done.discard(last)
        self._done_to = end
        if end >= len(whole):
            self._whole = None

    @Slot()
    def _fill_more(self) -> None:
        if self._pending is not None:
            self._start_filling()
            return
        if self._whole is None:
            return
        self._append(self._after_lines(self._whole, self._done_to, self.CHUNK_LINES))
        if self._whole is not None:
            self._filler.start()

    def ensure_filled(self) -> None:
        """Lay out all of the text now (what is pending and what is still to append)."""
        self._start_filling()
        if self._whole is not None:
            self._filler.stop()
            self._append(len(self._whole))

    def text(self) -> str:
        if self._pending is not None:
            return self._pending
        if self._whole is not None:
            return self._whole
        return self.toPlainText()

    def showEvent(self, event: Any) -> None:
        self._start_filling()
        super().showEvent(event)

    def current_line(self) -> int:
        self._start_filling()  # the cursor is in what is laid out: the rest need not be
        return self.textCursor().blockNumber()

    def mark_lines(self, lines: list[int], scroll: bool = True) -> None:
        """Give ``lines`` (block numbers) a highlight band; scroll the first into view."""
        self.ensure_filled()
        self.marked = sorted(set(lines))
        color = QColor("#4b5d2a" if is_dark() else "#fff1a8")
        selections = []
        doc = self.document()
        for number in self.marked:
            block = doc.findBlockByNumber(number)
            if not block.isValid():
                continue
            sel = QTextEdit.ExtraSelection()
            sel.format.setBackground(color)
            sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            sel.cursor = QTextCursor(block)
            selections.append(sel)
        self.setExtraSelections(selections)
        if scroll and self.marked:
            first = self.marked[0]
            bar = self.verticalScrollBar()
            shown = max(1, self.viewport().height() // max(1, self.fontMetrics().height()))
            if not (bar.value() <= first < bar.value() + shown - 1):
                bar.setValue(max(0, first - 3))

    def find_text(self, text: str, backward: bool = False) -> bool:
        """Select the next (or previous) occurrence of ``text``, wrapping around."""
        if not text:
            return False
        self.ensure_filled()
        flags = QTextDocument.FindFlag.FindBackward if backward else QTextDocument.FindFlag(0)
        if self.find(text, flags):
            return True
        cursor = self.textCursor()
        cursor.movePosition(
            QTextCursor.MoveOperation.End if backward else QTextCursor.MoveOperation.Start
        )
        self.setTextCursor(cursor)
        return self.find(text, flags)


class FindBar(Retranslating, QWidget):
    """A find box for the pane the view says is current; Enter / Shift+Enter: next, previous."""

    def __init__(self, pane_of: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._pane_of = pane_of
        self.box = QLineEdit(self)
        self.box.setObjectName("scriptFind")
        self.box.setClearButtonEnabled(True)
        self.previous = QPushButton(self)
        self.next = QPushButton(self)
        self.result = QLabel(self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.box, 1)
        layout.addWidget(self.previous)
        layout.addWidget(self.next)
        layout.addWidget(self.result)
        self.box.returnPressed.connect(lambda: self.search())
        self.next.clicked.connect(lambda: self.search())
        self.previous.clicked.connect(lambda: self.search(backward=True))
        back = QShortcut(QKeySequence("Shift+Return"), self.box)
        back.activated.connect(lambda: self.search(backward=True))
        self.retranslate()

    def retranslate(self) -> None:
        self.box.setPlaceholderText(self.tr("Find in this text (Ctrl+F)"))
        self.previous.setText(self.tr("Previous"))
        self.next.setText(self.tr("Next"))

    def search(self, backward: bool = False) -> bool:
        pane = self._pane_of()
        text = self.box.text()
        found = pane is not None and pane.find_text(text, backward)
        if not text:
            self.result.setText("")
        else:
            self.result.setText(
                self.tr("line %1").replace("%1", str(pane.current_line() + 1))
                if found
                else self.tr("not found")
            )
        return bool(found)
