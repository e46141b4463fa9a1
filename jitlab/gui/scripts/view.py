"""Read the chef's scripts: each card of the kitchen opens the program JAX compiled (issue 13).

A :class:`ScriptWindow` shows one card's script: the jitted function's source and its jaxpr
side by side, each equation linked to the source line that made it (select a line and its
equations light up, and back); the lowered StableHLO and the optimized HLO in their own
tabs, searchable (Ctrl+F); and the figures (equations, HLO instructions, flops, bytes, the
compile's times). A :class:`ScriptDiffWindow` compares two cards' scripts.

Scripts are made on the executor (``Executor.request_script``: JAX runs on that one thread
only) and cached per card by :class:`ScriptBook`; the texts can be long (a 100,000-line HLO),
so they go into ``QPlainTextEdit`` (laid out lazily, no word wrap) and are highlighted only
where they are shown (:class:`LazyHighlighter`, Pygments tokens one line at a time).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from typing import Any

from pygments.lexer import Lexer, RegexLexer
from pygments.lexers.diff import DiffLexer
from pygments.lexers.python import PythonLexer
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    Token,
    Whitespace,
)
from PySide6.QtCore import QEvent, QObject, QPoint, QRect, Qt, QTimer, Signal, Slot
from PySide6.QtGui import (
    QColor,
    QFontDatabase,
    QKeySequence,
    QShortcut,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextLayout,
)
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from jitlab.gui import plain
from jitlab.gui.executor import Executor, ScriptOf, ScriptsCompared
from jitlab.gui.i18n import Retranslating, language
from jitlab.gui.style import format_ms, is_dark
from jitlab.gui.views.model import CardView, Change, RunState
from jitlab.lab.spec import CardRef, Scenario
from jitlab.records import messages
from jitlab.records.calls import CallRecord

__all__ = [
    "CodePane",
    "HloLexer",
    "JaxprLexer",
    "LazyHighlighter",
    "LessonScripts",
    "ScriptBook",
    "ScriptDiffWindow",
    "ScriptView",
    "ScriptWindow",
    "StableHloLexer",
    "equation_spans",
]


# -- lexers: Pygments has none for jaxprs, MLIR or HLO, so three small ones ------------------
_NUMBER = (r"-?\b\d+(\.\d+)?([eE][-+]?\d+)?\b", Number)
_TAIL = [
    (r"\s+", Whitespace),
    (r"[{}()\[\]<>,:;=]", Punctuation),
    (r"->|[*+/-]", Operator),
    (r"[\w.]+", Name),
    (r".", Text),
]


class JaxprLexer(RegexLexer):
    """A jaxpr as ``str(ClosedJaxpr)`` prints it (with ``source_info`` comments)."""

    name = "jaxpr"
    aliases = ["jaxpr"]  # noqa: RUF012
    tokens = {  # noqa: RUF012 - Pygments reads a class attribute
        "root": [
            (r"#.*$", Comment),
            (r"\b(lambda|let|in)\b", Keyword),
            (r"\b(bool|pred|[fiu]\d+|bf16|c64|c128|key<\w+>)\[[\d,]*\]", Keyword.Type),
            (r"(?<== )[a-z_][\w]*", Name.Function),
            (r"\b[a-z_]\w*(?==)", Name.Attribute),
            _NUMBER,
            *_TAIL,
        ]
    }


class StableHloLexer(RegexLexer):
    """MLIR as ``Lowered.as_text()`` prints it: StableHLO, func, sdy dialects."""

    name = "StableHLO"
    aliases = ["stablehlo"]  # noqa: RUF012
    tokens = {  # noqa: RUF012
        "root": [
            (r"//.*$", Comment),
            (r'"(\\.|[^"\\])*"', String),
            (r"%[\w.#$-]+", Name.Variable),
            (r"@[\w.$-]+", Name.Function),
            (r"#[\w.$-]+", Name.Decorator),
            (r"\b(module|func|return)\b", Keyword),
            (r"\b[a-z_]+\.[a-z_][\w.]*", Keyword),
            (r"\b(tensor|vector|memref|index|bf16|[fiu]\d+|i1)\b", Keyword.Type),
            (r"\b\d+x", Keyword.Type),  # tensor<4x8xf32>
            _NUMBER,
            *_TAIL,
        ]
    }


class HloLexer(RegexLexer):
    """XLA's HLO text (``Compiled.as_text()``)."""

    name = "HLO"
    aliases = ["hlo"]  # noqa: RUF012
    tokens = {  # noqa: RUF012
        "root": [
            (r"\b(HloModule|ENTRY|ROOT)\b", Keyword),
            (r'"(\\.|[^"\\])*"', String),
            (r"%[\w.-]+", Name.Variable),
            (
                r"\b(pred|token|bf16|[fsu]\d+|c64|c128|f8\w+)\[[\d,]*\](\{[\d,:A-Z()]*\})?",
                Keyword.Type,
            ),
            (r"\b[a-z][\w-]*(?=\()", Name.Function),
            (r"\b[a-z_]\w*(?==)", Name.Attribute),
            _NUMBER,
            *_TAIL,
        ]
    }


_LIGHT = {
    Comment: "#7a7a7a",
    Keyword: "#8a2be2",
    Keyword.Type: "#0b7285",
    Name.Function: "#1c5fb8",
    Name.Variable: "#9c4a00",
    Name.Attribute: "#5c6f00",
    Name.Decorator: "#5c6f00",
    Name.Builtin: "#1c5fb8",
    String: "#a31515",
    Number: "#0a7d3b",
    Token.Generic.Inserted: "#17783a",
    Token.Generic.Deleted: "#b3261e",
    Token.Generic.Subheading: "#6f42c1",
    Token.Generic.Heading: "#6f42c1",
}
_DARK = {
    Comment: "#8b949e",
    Keyword: "#d2a8ff",
    Keyword.Type: "#56d4dd",
    Name.Function: "#79c0ff",
    Name.Variable: "#ffa657",
    Name.Attribute: "#b5cea8",
    Name.Decorator: "#b5cea8",
    Name.Builtin: "#79c0ff",
    String: "#ff7b72",
    Number: "#7ee787",
    Token.Generic.Inserted: "#7ee787",
    Token.Generic.Deleted: "#ff7b72",
    Token.Generic.Subheading: "#d2a8ff",
    Token.Generic.Heading: "#d2a8ff",
}


def _formats() -> dict[Any, QTextCharFormat]:
    out = {}
    for token, color in (_DARK if is_dark() else _LIGHT).items():
        fmt = QTextCharFormat()
        fmt.setForeground(QColor(color))
        if token in (Keyword, Token.Generic.Heading, Token.Generic.Subheading):
            fmt.setFontWeight(600)
        out[token] = fmt
    return out


class LazyHighlighter(QObject):
    """Colours a ``QPlainTextEdit`` only where it is shown, one line at a time.

    A ``QSyntaxHighlighter`` walks every block of the document when it is attached, which
    for a 100,000-line HLO costs seconds. This one sets the formats of the visible blocks'
    layouts (what ``QSyntaxHighlighter`` does inside) as they scroll into view, and never
    again for a block it has done. Each line is lexed on its own: the lexers above have no
    state that crosses a line.
    """

    def __init__(self, editor: QPlainTextEdit, lexer: Lexer) -> None:
        super().__init__(editor)
        self.editor = editor
        self.lexer = lexer
        self.formats = _formats()
        self.done: set[int] = set()  # block numbers already coloured
        self._busy = False
        editor.updateRequest.connect(self._shown)
        editor.document().contentsChange.connect(self._edited)

    def reset(self) -> None:
        self.done.clear()
        self.formats = _formats()

    def _edited(self, position: int, removed: int, added: int) -> None:
        if not self._busy and (removed or added) and removed != added:
            self.done.clear()  # new text (markContentsDirty reports removed == added)

    def _format(self, token: Any) -> QTextCharFormat | None:
        while token is not None:
            fmt = self.formats.get(token)
            if fmt is not None:
                return fmt
            token = token.parent
        return None

    @Slot(QRect, int)
    def _shown(self, rect: QRect = QRect(), dy: int = 0) -> None:  # noqa: B008
        if self._busy:
            return
        self.highlight_visible()

    def highlight_visible(self) -> int:
        """Colour the blocks on screen that are not yet; returns how many were done now."""
        editor = self.editor
        block = editor.firstVisibleBlock()
        offset = editor.contentOffset()
        height = editor.viewport().height()
        doc = editor.document()
        count = 0
        self._busy = True
        try:
            while block.isValid():
                top = editor.blockBoundingGeometry(block).translated(offset).top()
                if top > height:
                    break
                number = block.blockNumber()
                if number not in self.done:
                    self.done.add(number)
                    ranges = self._ranges(block.text())
                    if ranges:
                        block.layout().setFormats(ranges)
                        doc.markContentsDirty(block.position(), block.length())
                    count += 1
                block = block.next()
        finally:
            self._busy = False
        return count

    def _ranges(self, text: str) -> list[QTextLayout.FormatRange]:
        ranges = []
        if not text.strip():
            return ranges
        # Lexed with its newline: line-based lexers (a diff's) match up to it.
        for start, token, value in self.lexer.get_tokens_unprocessed(text + "\n"):
            fmt = self._format(token)
            length = min(len(value), len(text) - start)
            if fmt is None or length <= 0:
                continue
            r = QTextLayout.FormatRange()
            r.start, r.length, r.format = start, length, fmt
            ranges.append(r)
        return ranges


def _mono_font() -> Any:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


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
        self.setFont(_mono_font())
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


# -- the jaxpr's equations and their source lines ---------------------------------------------
_WHERE = re.compile(r"#\s+(?P<file>.+?):(?P<line>\d+)(?::\d+)?\s+\((?P<fn>.*)\)\s*$")


@dataclass(frozen=True)
class EquationSpan:
    """One equation in the annotated jaxpr text: its text lines and the user's line."""

    first: int  # text line (block number) of the equation
    last: int  # its last line (params printed over several lines end with ``] args``)
    file: str
    line: int
    function: str


def equation_spans(text: str) -> list[EquationSpan]:
    """Equations of an annotated jaxpr (``pretty_print(source_info=True)``), in text order.

    An equation's first line ends with ``# file:line:column (function)``; when its params
    take several lines (``dot_general[`` … ``] e d``) the span runs to the closing bracket,
    unless another equation starts in between (a scan's body: the body's own equations).
    """
    lines = text.splitlines()
    starts = [(i, _WHERE.search(line)) for i, line in enumerate(lines)]
    starts = [(i, m) for i, m in starts if m is not None]
    first_lines = {i for i, _ in starts}
    spans = []
    for i, m in starts:
        code = lines[i][: m.start()].rstrip()
        last = i
        if code.endswith("["):
            indent = len(code) - len(code.lstrip())
            for j in range(i + 1, len(lines)):
                if j in first_lines:
                    break
                stripped = lines[j].lstrip()
                if stripped.startswith("]") and len(lines[j]) - len(stripped) == indent:
                    last = j
                    break
        spans.append(EquationSpan(i, last, m["file"], int(m["line"]), m["fn"]))
    return spans


def _human(value: float | int | None) -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and value != int(value):
        return f"{value:,.2f}"
    return f"{int(value):,}"


def _bytes(value: float | int | None) -> str:
    if value is None:
        return "—"
    value = float(value)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{value:,.0f} {unit}" if unit == "B" else f"{value:,.1f} {unit}"
        value /= 1024
    return ""


def _ms(value: float | None) -> str:
    return "—" if value is None else format_ms(value)


FIGURE_ORDER = (
    "equations",
    "top_level_equations",
    "stablehlo_ops",
    "hlo_instructions",
    "flops",
    "transcendentals",
    "bytes_accessed",
    "argument_bytes",
    "output_bytes",
    "temp_bytes",
    "generated_code_bytes",
    "trace_ms",
    "lower_ms",
    "compile_ms",
)


def figure_text(name: str, value: Any) -> str:
    if name.endswith("_ms"):
        return _ms(value)
    if name.endswith("bytes") or name == "bytes_accessed":
        return _bytes(value)
    return _human(value)


class _Figures(QObject):
    """The figures' names in the interface language (one ``tr`` context for both windows)."""

    def names(self) -> dict[str, str]:
        return {
            "equations": self.tr("jaxpr equations (sub-graphs once)"),
            "top_level_equations": self.tr("top-level equations"),
            "stablehlo_ops": self.tr("StableHLO operations"),
            "hlo_instructions": self.tr("HLO instructions (optimized)"),
            "flops": self.tr("flops (XLA's estimate)"),
            "transcendentals": self.tr("transcendentals"),
            "bytes_accessed": self.tr("bytes accessed"),
            "argument_bytes": self.tr("argument memory"),
            "output_bytes": self.tr("output memory"),
            "temp_bytes": self.tr("temporary memory"),
            "generated_code_bytes": self.tr("generated code"),
            "trace_ms": self.tr("trace time (when compiled)"),
            "lower_ms": self.tr("lower time"),
            "compile_ms": self.tr("compile time"),
        }


def _table(columns: int) -> QTableWidget:
    table = QTableWidget(0, columns)
    table.verticalHeader().hide()
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
    header = table.horizontalHeader()
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    for c in range(1, columns):
        header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
    return table


def _cell(text: str, right: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


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
        self.box.returnPressed.connect(lambda: self.find())
        self.next.clicked.connect(lambda: self.find())
        self.previous.clicked.connect(lambda: self.find(backward=True))
        back = QShortcut(QKeySequence("Shift+Return"), self.box)
        back.activated.connect(lambda: self.find(backward=True))
        self.retranslate()

    def retranslate(self) -> None:
        self.box.setPlaceholderText(self.tr("Find in this text (Ctrl+F)"))
        self.previous.setText(self.tr("Previous"))
        self.next.setText(self.tr("Next"))

    def find(self, backward: bool = False) -> bool:
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


# -- one card's script ------------------------------------------------------------------------
class ScriptView(Retranslating, QWidget):
    """One card's script: source ↔ jaxpr, StableHLO, HLO, figures; a find bar; compare."""

    compare_requested = Signal(object)  # the other CardView
    part_wanted = Signal(str)  # "stablehlo" / "hlo": its tab is shown, its text unprinted

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.script: Any = None  # jitlab.probe.scripts.Script
        self.why = ""
        self._asked: set[str] = set()  # parts part_wanted was sent for, for this script
        self._spans: list[EquationSpan] | None = []
        self._spans_of = ""  # the annotated jaxpr the spans are read from, on first use
        self.linked_source: list[int] = []  # source blocks marked by the last link
        self.linked_jaxpr: list[int] = []  # jaxpr blocks marked by the last link
        self._others: list[CardView] = []
        self.title = QLabel(self)
        self.title.setObjectName("scriptTitle")
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title.setFont(font)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary = QLabel(self)
        self.summary.setObjectName("scriptSummary")
        self.summary.setWordWrap(True)
        self.notes = QLabel(self)
        self.notes.setObjectName("scriptNotes")
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.compare_label = QLabel(self)
        self.compare_with = QComboBox(self)
        self.compare_with.setObjectName("compareWith")
        self.compare_button = QPushButton(self)
        self.compare_button.setObjectName("compareButton")
        self.compare_button.clicked.connect(self._compare)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.compare_label)
        top.addWidget(self.compare_with)
        top.addWidget(self.compare_button)

        self.source = CodePane(PythonLexer(), self)
        self.source.setObjectName("scriptSource")
        self.jaxpr = CodePane(JaxprLexer(), self)
        self.jaxpr.setObjectName("scriptJaxpr")
        self.source_caption = QLabel(self)
        self.jaxpr_caption = QLabel(self)
        self.link = QLabel(self)  # what the selected line links to
        self.link.setObjectName("scriptLink")
        self.link.setWordWrap(True)
        left = QWidget(self)
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.source_caption)
        lv.addWidget(self.source)
        right = QWidget(self)
        rv = QVBoxLayout(right)
        rv.setContentsMargins(0, 0, 0, 0)
        rv.addWidget(self.jaxpr_caption)
        rv.addWidget(self.jaxpr)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([400, 600])
        linked = QWidget(self)
        kv = QVBoxLayout(linked)
        kv.setContentsMargins(0, 0, 0, 0)
        kv.addWidget(split, 1)
        kv.addWidget(self.link)

        self.stablehlo = CodePane(StableHloLexer(), self)
        self.stablehlo.setObjectName("scriptStableHlo")
        self.hlo = CodePane(HloLexer(), self)
        self.hlo.setObjectName("scriptHlo")
        self.figures = _table(2)
        self.figures.setObjectName("scriptFigures")
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("scriptTabs")
        for widget in (linked, self.stablehlo, self.hlo, self.figures):
            self.tabs.addTab(widget, "")
        self.find_bar = FindBar(self.current_pane, self)
        shortcut = QShortcut(QKeySequence.StandardKey.Find, self)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(self.focus_find)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.notes)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.find_bar)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.source.cursorPositionChanged.connect(self._source_moved)
        self.jaxpr.cursorPositionChanged.connect(self._jaxpr_moved)
        # They show recorded strings (names, files, why no script): as text, never markup.
        for label in (
            self.title,
            self.summary,
            self.notes,
            self.source_caption,
            self.jaxpr_caption,
            self.link,
        ):
            label.setTextFormat(Qt.TextFormat.PlainText)
        self.retranslate()
        self.show_waiting(None)

    # -- filling ------------------------------------------------------------------------
    def show_waiting(self, card: CardView | None) -> None:
        self.script = None
        if card is not None:
            self.title.setText(self.tr("Card #%1").replace("%1", str(card.number)))
        self.summary.setText(self.tr("Writing out the script on the executor…"))
        self.notes.hide()

    def set_script(self, made: ScriptOf, number: int | None = None) -> None:
        """Show a made script (or why there is none)."""
        self.script, self.why = made.script, made.why
        self._number = number
        s = made.script
        card = f"#{number}" if number else "#?"  # the app's numbering, never the core's index
        title = self.tr("%1 · card %2 · compiled by call #%3")
        self.title.setText(
            title.replace("%1", made.function)
            .replace("%2", card)
            .replace("%3", str(made.created_by))
        )
        if s is None:
            self.summary.setText(self.tr("No script: %1").replace("%1", made.why))
            for pane in (self.source, self.jaxpr, self.stablehlo, self.hlo):
                pane.set_text("")
            self.figures.setRowCount(0)
            self.notes.hide()
            self._spans, self._spans_of = [], ""
            return
        self.title.setToolTip(plain.tip(str(s.signature)))
        self.source.set_text(s.source if s.source is not None else s.text("source"))
        jaxpr = s.jaxpr_annotated or s.jaxpr
        if jaxpr is not None and s.source_file:  # the function's own file by its name only
            jaxpr = jaxpr.replace(f"# {s.source_file}:", f"# {os.path.basename(s.source_file)}:")
        self.jaxpr.set_text(jaxpr if jaxpr is not None else s.text("jaxpr"))
        # Read the equations' spans when a line is first linked, not now: on a big jaxpr
        # that parse costs tens of ms the GUI thread need not spend up front.
        self._spans, self._spans_of = None, (jaxpr or "") if s.jaxpr_annotated else ""
        self._asked = set()
        deferred = s.deferred
        for part, pane in self._printed_later():
            pane.set_text("" if part in deferred else s.text(part))
        self._fill_figures()
        self._fill_summary()
        self._fill_notes()
        where = os.path.basename(s.source_file) if s.source_file else "?"
        self.source_caption.setText(
            self.tr("Source — %1, from line %2")
            .replace("%1", where)
            .replace("%2", str(s.source_line or "?"))
        )
        for highlighter in (self.source.highlighter, self.jaxpr.highlighter):
            if highlighter is not None:
                highlighter.highlight_visible()
        self._want(self.tabs.currentWidget())

    def _fill_notes(self) -> None:
        s = self.script
        # A script keeps its notes in English (a recording's too): said in the window's language.
        notes = [messages.reword(note, language(), "script.") for note in s.notes]
        deferred = s.deferred
        for part, why in s.unavailable.items():
            if part not in deferred:  # printed when asked for: not a failure
                notes.append(f"{part}: {why}")
        self.notes.setText("\n".join(notes))
        self.notes.setVisible(bool(notes))

    # -- the StableHLO and a big HLO, printed when their tabs are first shown ------------
    def _printed_later(self) -> tuple[tuple[str, CodePane], ...]:
        """The texts a script window's script may leave to be printed, and their panes."""
        return (("stablehlo", self.stablehlo), ("hlo", self.hlo))

    def pending(self, part: str) -> bool:
        """The script shown was made without the text ``part`` (printed when asked for)."""
        return self.script is not None and part in self.script.deferred

    @property
    def stablehlo_pending(self) -> bool:
        """The script shown was made without its StableHLO text (printed when asked for)."""
        return self.pending("stablehlo")

    def _tab_changed(self, index: int) -> None:
        self._want(self.tabs.widget(index))

    def _want(self, widget: QWidget | None) -> None:
        for part, pane in self._printed_later():
            if widget is pane and self.pending(part) and part not in self._asked:
                self._asked.add(part)
                pane.setPlaceholderText(
                    self.tr("Printing the StableHLO on the executor…")
                    if part == "stablehlo"
                    else self.tr("Writing out the script on the executor…")
                )
                self.part_wanted.emit(part)

    def set_part(self, made: ScriptOf, part: str) -> None:
        """Take the text ``part`` (and its figure) from ``made``, the same card's script with
        that text printed; the other panes, their selection and links stay as they are."""
        s = made.script
        if not self.pending(part):
            return
        pane = dict(self._printed_later())[part]
        if s is None:
            failed = (
                self.tr("No StableHLO: %1") if part == "stablehlo" else self.tr("No script: %1")
            )
            pane.set_text(failed.replace("%1", made.why))
            return
        self.script = self.script.with_part(part, s)
        pane.set_text(self.script.text(part))
        self._fill_figures()
        self._fill_summary()
        self._fill_notes()

    def set_stablehlo(self, made: ScriptOf) -> None:
        """:meth:`set_part` of the StableHLO."""
        self.set_part(made, "stablehlo")

    @property
    def spans(self) -> list[EquationSpan]:
        """The jaxpr's equations with their source lines (parsed on first use)."""
        if self._spans is None:
            self._spans = equation_spans(self._spans_of)
        return self._spans

    def _fill_summary(self) -> None:
        s = self.script
        f = s.figures
        parts = []
        if f is not None:
            parts.append(self.tr("%1 equations").replace("%1", f"{f.equations:,}"))
            if f.hlo_instructions is not None:
                parts.append(
                    self.tr("%1 HLO instructions").replace("%1", f"{f.hlo_instructions:,}")
                )
            if f.flops is not None:
                parts.append(self.tr("%1 flops").replace("%1", _human(f.flops)))
            if f.compile_ms is not None:  # the figure the table and the compare view show
                parts.append(
                    self.tr("%1 to compile").replace("%1", figure_text("compile_ms", f.compile_ms))
                )
        parts.append(self.tr("made in %1").replace("%1", format_ms(s.produce_ms)))
        self.summary.setText(" · ".join(parts))

    def _fill_figures(self) -> None:
        f = self.script.figures if self.script is not None else None
        names = _Figures().names()
        self.figures.setRowCount(0)
        if f is None:
            return
        self.figures.setRowCount(len(FIGURE_ORDER))
        for row, name in enumerate(FIGURE_ORDER):
            self.figures.setItem(row, 0, _cell(names[name]))
            self.figures.setItem(row, 1, _cell(figure_text(name, getattr(f, name)), True))

    def set_others(self, cards: list[CardView], this: CardView | None) -> None:
        """The cards it can be compared with."""
        self._others = [c for c in cards if this is None or c.key != this.key]
        self.compare_with.clear()
        for card in self._others:
            self.compare_with.addItem(f"#{card.number}  {card.key[0]}  {card.signature[:40]}")
        self.compare_with.setEnabled(bool(self._others))
        self.compare_button.setEnabled(bool(self._others))

    def _compare(self) -> None:
        i = self.compare_with.currentIndex()
        if 0 <= i < len(self._others):
            self.compare_requested.emit(self._others[i])

    # -- linking ------------------------------------------------------------------------
    def _source_file_line(self, block: int) -> int | None:
        s = self.script
        if s is None or s.source_line is None:
            return None
        return s.source_line + block

    def _same_file(self, path: str) -> bool:
        s = self.script
        if s is None or not s.source_file:
            return False
        if path == os.path.basename(s.source_file):  # shortened in the text shown
            return True
        try:
            return os.path.samefile(path, s.source_file)
        except OSError:
            return os.path.normpath(path) == os.path.normpath(s.source_file)

    def select_source_line(self, line: int) -> list[int]:
        """The user's ``line`` (in the file) → mark it and its equations; returns their
        first text lines in the jaxpr."""
        s = self.script
        if s is None or s.source_line is None:
            return []
        spans = [sp for sp in self.spans if sp.line == line and self._same_file(sp.file)]
        jaxpr_lines = [n for sp in spans for n in range(sp.first, sp.last + 1)]
        self.linked_jaxpr = jaxpr_lines
        self.linked_source = [line - s.source_line]
        self.jaxpr.mark_lines(jaxpr_lines)
        self.source.mark_lines(self.linked_source, scroll=False)
        n = len(spans)
        self.link.setText(
            (
                self.tr("Line %1 made no equation of this jaxpr.")
                if not n
                else self.tr("Line %1 made one equation of the jaxpr.")
                if n == 1
                else self.tr("Line %1 made %2 equations of the jaxpr.")
            )
            .replace("%1", str(line))
            .replace("%2", str(n))
        )
        return [sp.first for sp in spans]

    def select_equation_at(self, block: int) -> EquationSpan | None:
        """A jaxpr text line → its equation and the source line that made it, marked."""
        span = None
        for sp in self.spans:
            if sp.first <= block <= sp.last and (span is None or sp.first >= span.first):
                span = sp
        if span is None:
            self.link.setText("")
            return None
        self.linked_jaxpr = list(range(span.first, span.last + 1))
        self.jaxpr.mark_lines(self.linked_jaxpr, scroll=False)
        s = self.script
        inside = (
            s is not None
            and s.source_line is not None
            and self._same_file(span.file)
            and 0 <= span.line - s.source_line < self.source.blockCount()
        )
        where = f"{os.path.basename(span.file)}:{span.line} ({span.function})"
        if inside:
            self.linked_source = [span.line - s.source_line]
            self.source.mark_lines(self.linked_source)
            self.link.setText(self.tr("This equation comes from %1.").replace("%1", where))
        else:
            self.linked_source = []
            self.source.mark_lines([])
            self.link.setText(
                self.tr("This equation comes from %1, outside the function shown.").replace(
                    "%1", where
                )
            )
        return span

    def _source_moved(self) -> None:
        if self.source.loading:
            return
        line = self._source_file_line(self.source.current_line())
        if line is not None:
            self.select_source_line(line)

    def _jaxpr_moved(self) -> None:
        if self.jaxpr.loading:
            return
        self.select_equation_at(self.jaxpr.current_line())

    # -- find ---------------------------------------------------------------------------
    def current_pane(self) -> CodePane | None:
        widget = self.tabs.currentWidget()
        if isinstance(widget, CodePane):
            return widget
        if widget is self.figures:
            return None
        return self.source if self.source.hasFocus() else self.jaxpr

    def focus_find(self) -> None:
        self.find_bar.box.setFocus()
        self.find_bar.box.selectAll()

    # -- language -----------------------------------------------------------------------
    def retranslate(self) -> None:
        self.tabs.setTabText(0, self.tr("Source ↔ jaxpr"))
        self.tabs.setTabText(1, self.tr("StableHLO (lowered)"))
        self.tabs.setTabText(2, self.tr("HLO (optimized by XLA)"))
        self.tabs.setTabText(3, self.tr("Figures"))
        self.tabs.setTabToolTip(
            1, self.tr("What jit handed to XLA: the program lowered to StableHLO.")
        )
        self.tabs.setTabToolTip(
            2, self.tr("What XLA made of it after fusing and optimizing: what actually runs.")
        )
        self.jaxpr_caption.setText(self.tr("jaxpr — select a line to see where it came from"))
        self.compare_label.setText(self.tr("Compare with"))
        self.compare_button.setText(self.tr("Compare"))
        self.figures.setHorizontalHeaderLabels([self.tr("Figure"), self.tr("Value")])
        if self.script is not None:
            self._fill_summary()
            self._fill_figures()
            self._fill_notes()


class ScriptWindow(Retranslating, QWidget):
    """A non-modal window around one card's :class:`ScriptView`."""

    def __init__(self, card: CardView, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("scriptWindow")
        self.card = card
        self.view = ScriptView(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.view)
        self.view.show_waiting(card)
        self.resize(1100, 720)
        self.retranslate()

    def retranslate(self) -> None:
        self.setWindowTitle(
            self.tr("Script of card #%1 — %2")
            .replace("%1", str(self.card.number))
            .replace("%2", str(self.card.key[0]))
        )


class ScriptDiffWindow(Retranslating, QWidget):
    """Two cards' scripts compared: the figures before and after, and unified diffs."""

    def __init__(self, a: CardView, b: CardView, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("scriptDiffWindow")
        self.cards = (a, b)
        self.compared: ScriptsCompared | None = None
        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)  # the cards' signatures
        self.title.setWordWrap(True)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.figures = _table(4)
        self.figures.setObjectName("diffFigures")
        self.jaxpr = CodePane(DiffLexer(), self)
        self.jaxpr.setObjectName("diffJaxpr")
        self.stablehlo = CodePane(DiffLexer(), self)
        self.hlo = CodePane(DiffLexer(), self)
        self.tabs = QTabWidget(self)
        for widget in (self.jaxpr, self.stablehlo, self.hlo):
            self.tabs.addTab(widget, "")
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.figures)
        split.addWidget(self.tabs)
        split.setSizes([260, 460])
        self.find_bar = FindBar(lambda: self.tabs.currentWidget(), self)
        shortcut = QShortcut(QKeySequence.StandardKey.Find, self)
        shortcut.activated.connect(lambda: self.find_bar.box.setFocus())
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(split, 1)
        layout.addWidget(self.find_bar)
        self.resize(1000, 720)
        self.retranslate()

    def set_compared(self, compared: ScriptsCompared) -> None:
        self.compared = compared
        diff = compared.diff
        if diff is None:
            why = compared.before.why or compared.after.why
            self.jaxpr.set_text(self.tr("No comparison: %1").replace("%1", why))
            return
        same = self.tr("(identical)")
        a, b = self.cards
        for pane, text in (
            (self.jaxpr, diff.jaxpr_diff),
            (self.stablehlo, diff.stablehlo_diff),
            (self.hlo, diff.hlo_diff),
        ):
            pane.set_text(renumber_diff(text, a, b) or same)
        self._fill()

    def _fill(self) -> None:
        diff = self.compared.diff if self.compared is not None else None
        if diff is None:
            return
        names = _Figures().names()
        by_name = {c.name: c for c in diff.figures}
        self.figures.setRowCount(0)
        rows = [n for n in FIGURE_ORDER if n in by_name]
        self.figures.setRowCount(len(rows))
        for row, name in enumerate(rows):
            c = by_name[name]
            delta = c.delta
            sign = "" if delta is None or delta <= 0 else "+"
            changed = delta is not None and delta != 0
            self.figures.setItem(row, 0, _cell(names[name]))
            self.figures.setItem(row, 1, _cell(figure_text(name, c.before), True))
            self.figures.setItem(row, 2, _cell(figure_text(name, c.after), True))
            text = "—" if delta is None else sign + figure_text(name, delta)
            item = _cell(text if changed or delta is None else "0", True)
            if changed and not name.endswith("_ms"):
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            self.figures.setItem(row, 3, item)

    def retranslate(self) -> None:
        a, b = self.cards
        self.setWindowTitle(
            self.tr("Compare card #%1 with card #%2")
            .replace("%1", str(a.number))
            .replace("%2", str(b.number))
        )
        self.title.setText(
            self.tr("Card #%1 (%2) → card #%3 (%4)")
            .replace("%1", str(a.number))
            .replace("%2", a.signature[:60])
            .replace("%3", str(b.number))
            .replace("%4", b.signature[:60])
        )
        self.tabs.setTabText(0, self.tr("jaxpr diff"))
        self.tabs.setTabText(1, self.tr("StableHLO diff"))
        self.tabs.setTabText(2, self.tr("HLO diff"))
        self.figures.setHorizontalHeaderLabels(
            [self.tr("Figure"), f"#{a.number}", f"#{b.number}", self.tr("Change")]
        )
        self._fill()


def renumber_diff(text: str, a: CardView, b: CardView) -> str:
    """A unified diff whose two header lines name the cards as the app does (``#1``), not
    by the core's 0-based index in their function's holder (``card 0``)."""
    if not text.startswith("--- "):
        return text
    lines = text.split("\n", 2)
    if len(lines) < 3 or not lines[1].startswith("+++ "):
        return text
    head = [
        f"{mark} {card.key[0]} #{card.number} (call #{card.created_by})"
        for mark, card in (("---", a), ("+++", b))
    ]
    return "\n".join([*head, lines[2]])


# -- the book: asks the executor, caches per card, opens the windows ----------------------------
def card_id(card: CardView) -> tuple[str, int, int]:
    """``(function, card index, created_by)``: what the executor finds the card by."""
    return (str(card.key[0]), int(card.key[1]), int(card.created_by))


class _AfterPaint(QObject):
    """Calls ``then`` once ``window`` has been painted (on the next turn of the event loop
    after its first paint), or after ``latest_ms`` if it is not painted by then."""

    def __init__(self, window: QWidget, then: Any, latest_ms: int = 100) -> None:
        super().__init__(window)
        self._then = then
        self._window = window
        window.installEventFilter(self)
        QTimer.singleShot(latest_ms, self, self._fire)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self._then is not None:
            QTimer.singleShot(0, self, self._fire)
        return False

    def _fire(self) -> None:
        then, self._then = self._then, None
        if then is not None:
            self._window.removeEventFilter(self)
            then()
            self.deleteLater()


@dataclass(frozen=True)
class _PartOf:
    """What a pending job is for: the text ``part`` of the card ``key``'s open window."""

    key: tuple[str, int, int]
    part: str


class ScriptBook(QObject):
    """Opens script windows for the kitchen's cards; scripts are made on the executor.

    Each card's script is asked for once and kept until the card holder empties (a reset,
    a variant or scenario switch); the probe keeps it with the card as well. Asking never
    changes what the probe records, so the views' counts stay as they were.
    """

    script_ready = Signal(object)  # ScriptOf, once a window got it
    compared = Signal(object)  # ScriptsCompared

    def __init__(self, state: RunState, executor: Executor, parent: QWidget) -> None:
        super().__init__(parent)
        self.state = state
        self._parent = parent
        self.cache: dict[tuple[str, int, int], ScriptOf] = {}
        self.windows: dict[tuple[str, int, int], ScriptWindow] = {}
        self.diffs: list[ScriptDiffWindow] = []
        self._pending: dict[int, Any] = {}  # token -> what to do with the result
        self.produce_ms: dict[tuple[str, int, int], float] = {}  # asked → shown, per card
        self._asked: dict[int, float] = {}
        self._opening: dict[tuple[str, int, int], float] = {}  # window opened, not asked yet
        self.executor = executor
        self._connect(executor)
        state.subscribe(self._changed)

    def _connect(self, executor: Executor) -> None:
        executor.job_done.connect(self._done)
        executor.replaced.connect(self._follow)

    @Slot(object)
    def _follow(self, executor: Executor) -> None:
        if executor is self.executor:
            return
        old = self.executor
        old.job_done.disconnect(self._done)
        old.replaced.disconnect(self._follow)
        self.executor = executor
        self._connect(executor)

    def _changed(self, change: Change) -> None:
        if change.cleared or change.new_segment:
            self.cache.clear()  # those cards are gone; their windows keep what they show

    # -- asking -------------------------------------------------------------------------
    def open(self, card: CardView) -> ScriptWindow:
        """Open (or raise) the script window of ``card``."""
        key = card_id(card)
        window = self.windows.get(key)
        if window is None:
            window = self._window(card, key)
        window.view.set_others(self._cards(), card)
        window.show()
        window.raise_()
        window.activateWindow()
        made = self.cache.get(key)
        if made is not None:
            window.view.set_script(made, card.number)
        elif (
            window.view.script is None
            and key not in self._pending.values()
            and key not in self._opening
        ):
            # Asked once the window is painted: its first layout and paint (several ms of
            # GUI thread) run before the executor starts making the script, not against it.
            self._opening[key] = time.perf_counter()
            _AfterPaint(window, lambda k=key: self._ask(k))
        return window

    def _ask(self, key: tuple[str, int, int]) -> None:
        opened = self._opening.pop(key, None)
        if opened is None:
            return
        token = self.executor.request_script(*key, view=True)
        self._pending[token] = key
        self._asked[token] = opened

    def _window(self, card: CardView, key: tuple[str, int, int]) -> ScriptWindow:
        window = ScriptWindow(card, self._parent)
        window.view.compare_requested.connect(lambda other, c=card: self.compare(c, other))
        window.view.part_wanted.connect(lambda part, k=key: self.request_part(k, part))
        self.windows[key] = window
        return window

    def request_part(self, key: tuple[str, int, int], part: str) -> int:
        """Ask for the text ``part`` the card's script was made without (a script window
        showed its tab): only that text is printed; the window then fills that pane."""
        window = self.windows.get(key)
        made = self.cache.get(key)
        script = window.view.script if window is not None else None
        if script is None and made is not None:
            script = made.script
        if script is None:
            return 0
        token = self.executor.request_part(*key, script, part)
        self._pending[token] = _PartOf(key, part)
        return token

    def request_stablehlo(self, key: tuple[str, int, int]) -> int:
        """:meth:`request_part` of the StableHLO."""
        return self.request_part(key, "stablehlo")

    def compare(self, a: CardView, b: CardView) -> ScriptDiffWindow:
        """Open a window comparing ``a``'s script with ``b``'s (made on the executor)."""
        window = ScriptDiffWindow(a, b, self._parent)
        self.diffs.append(window)
        window.show()
        token = self.executor.request_comparison(card_id(a), card_id(b))
        self._pending[token] = window
        return window

    def compare_made(
        self, a: CardView, b: CardView, made_a: ScriptOf, made_b: ScriptOf
    ) -> ScriptDiffWindow:
        """Open a window comparing two scripts already made (their cards may have left the
        holder since: a lesson compares the pitfall's card with the fix's)."""
        window = ScriptDiffWindow(a, b, self._parent)
        self.diffs.append(window)
        window.show()
        token = self.executor.request_diff_of(made_a, made_b)
        self._pending[token] = window
        return window

    def show_made(self, card: CardView, made: ScriptOf) -> ScriptWindow:
        """Open a script window showing ``made`` (already made) for ``card``."""
        key = card_id(card)
        window = self.windows.get(key)
        if window is None:
            window = self._window(card, key)
        window.view.set_others(self._cards(), card)
        window.view.set_script(made, card.number)
        window.show()
        window.raise_()
        return window

    def fetch(self, card: CardView, done: Any) -> int:
        """Ask for ``card``'s script without opening a window; ``done(ScriptOf)`` gets it."""
        key = card_id(card)
        made = self.cache.get(key)
        if made is not None and not made.script.deferred:
            done(made)
            return 0
        token = self.executor.request_script(*key, stablehlo=True)  # lessons compare them
        self._pending[token] = done
        return token

    def card_of(self, record: CallRecord) -> CardView | None:
        """The card a call record compiled, as the kitchen numbers it; None when the record
        made no card (a cache hit, an error, an eager call)."""
        if record.card is None or not record.kind.compiled:
            return None
        held = self.state.cards.get((record.function, record.card))
        if held is not None and held.created_by == record.index:
            return held
        for card in self.state.cards.values():  # a card moved aside by a same-named function
            if card.key[:2] == (record.function, record.card) and card.created_by == record.index:
                return card
        sig = record.signature
        return CardView(
            (record.function, record.card),
            str(sig) if sig is not None else "?",
            record.index,
            record.trace_ms + record.lower_ms + record.compile_ms,
            sig=sig,
        )

    def open_record(self, record: CallRecord) -> ScriptWindow | None:
        """Open the script of the card ``record`` compiled (a compile row, a chart point)."""
        card = self.card_of(record)
        return self.open(card) if card is not None else None

    def _cards(self) -> list[CardView]:
        return sorted(self.state.cards.values(), key=lambda c: c.number)

    @Slot(int, object, str)
    def _done(self, token: int, result: Any, error: str) -> None:
        target = self._pending.pop(token, None)
        if target is None:
            return  # another client's job on the shared executor
        asked = self._asked.pop(token, None)
        if isinstance(target, _PartOf):
            made = result if isinstance(result, ScriptOf) else None
            if made is None:
                made = ScriptOf(*target.key, None, _failure(error))
            kept = self.cache.get(target.key)
            if made.script is not None:
                script = made.script
                if kept is not None and kept.script is not None:
                    script = kept.script.with_part(target.part, made.script)
                self.cache[target.key] = ScriptOf(*target.key, script)
            window = self.windows.get(target.key)
            if window is not None:
                window.view.set_part(made, target.part)
            return
        if callable(target) and not isinstance(target, QObject):
            made = result if isinstance(result, ScriptOf) else None
            if made is None:
                made = ScriptOf("?", -1, -1, None, _failure(error))
            elif made.script is not None:
                self.cache[(made.function, made.card, made.created_by)] = made
            target(made)
            return
        if isinstance(target, ScriptDiffWindow):
            if isinstance(result, ScriptsCompared):
                target.set_compared(result)
            else:
                a, b = target.cards
                empty = ScriptOf(*card_id(a), None, _failure(error))
                target.set_compared(ScriptsCompared(empty, ScriptOf(*card_id(b)), None))
            self.compared.emit(target.compared)
            return
        key = target
        made = result if isinstance(result, ScriptOf) else ScriptOf(*key, None, _failure(error))
        if made.script is not None:
            self.cache[key] = made
        window = self.windows.get(key)
        if window is not None:
            window.view.set_script(made, window.card.number)
            if asked is not None:
                self.produce_ms[key] = (time.perf_counter() - asked) * 1e3
        self.script_ready.emit(made)

    # -- the kitchen's right-click menu -------------------------------------------------
    def card_menu(self, card: CardView, where: QPoint) -> QMenu:
        """Read this card's script, or compare it with another card."""
        menu = QMenu(self._parent)
        read = menu.addAction(self.tr("Read its script"))
        read.triggered.connect(lambda: self.open(card))
        others = [c for c in self._cards() if c.key != card.key]
        sub = menu.addMenu(self.tr("Compare with…"))
        sub.setEnabled(bool(others))
        for other in others:
            action = sub.addAction(f"#{other.number}  {other.signature[:50]}")
            action.triggered.connect(lambda _=False, o=other: self.compare(card, o))
        menu.popup(where)
        return menu


# -- the lesson's scripts: the two cards a scenario's ScriptLesson names --------------------------
def ref_matches(ref: CardRef, record: CallRecord, card: CardView | None) -> bool:
    """Did ``record`` compile the card ``ref`` names (its variant, its parameters, and its
    number in the kitchen when the ref gives one)?"""
    if record.variant != ref.variant or not record.kind.compiled or record.card is None:
        return False
    params = record.params or {}
    if any(params.get(name) != value for name, value in dict(ref.params).items()):
        return False
    return ref.number is None or (card is not None and card.number == ref.number)


class LessonScripts(QObject):
    """Keeps the scripts of the cards a scenario's :class:`~jitlab.lab.spec.ScriptLesson`
    names, so the lesson can compare them after the run has moved on.

    A card leaves the run's holder when the learner switches variant (the pitfall's loop, then
    the fix's scan), and its script can only be made while the card is held. So as soon as a
    call compiles a named card, its script is asked for on the executor and kept here (the
    newest such card wins). :meth:`open` shows the diff of the two (or the one named).
    """

    changed = Signal()  # a named card's script arrived, or the scenario changed

    def __init__(self, state: RunState, book: ScriptBook, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.book = book
        self.scenario: type[Scenario] | None = None
        self.made: dict[int, tuple[CardView, ScriptOf]] = {}  # ref index -> its card, script
        self.asking: dict[int, int] = {}  # ref index -> call index whose card is being made
        state.subscribe(self._changed)

    @property
    def refs(self) -> tuple[CardRef, ...]:
        lesson = getattr(self.scenario, "scripts", None)
        return tuple(lesson.compare) if lesson is not None else ()

    def show_scenario(self, scenario: type[Scenario] | None) -> None:
        self.scenario = scenario
        self.made.clear()
        self.asking.clear()
        self.changed.emit()

    def _changed(self, change: Change) -> None:
        if change.cleared:
            self.made.clear()
            self.asking.clear()
            self.changed.emit()
        refs = self.refs
        if not refs:
            return
        for served in change.served:
            record = served.record
            if record.card is None or not record.kind.compiled:
                continue
            card = self.book.card_of(record)
            for i, ref in enumerate(refs):
                if ref_matches(ref, record, card):
                    self._ask(i, card)

    def _ask(self, i: int, card: CardView) -> None:
        self.asking[i] = card.created_by

        def done(made: ScriptOf, i: int = i, card: CardView = card) -> None:
            if self.asking.get(i) != card.created_by:
                return  # a newer card of this ref was asked for since
            del self.asking[i]
            self.made[i] = (card, made)
            self.changed.emit()

        self.book.fetch(card, done)

    # -- what the lesson panel shows ----------------------------------------------------
    def missing(self) -> list[CardRef]:
        """The named cards with no script yet (their calls not made, or made and failed)."""
        return [
            ref
            for i, ref in enumerate(self.refs)
            if i not in self.made or self.made[i][1].script is None
        ]

    @property
    def busy(self) -> bool:
        return bool(self.asking)

    @property
    def ready(self) -> bool:
        return bool(self.refs) and not self.missing()

    def describe(self, ref: CardRef) -> str:
        """A call to make, in the interface language: the variant's title, the values."""
        lang = language()
        title = ref.variant
        for v in getattr(self.scenario, "variants", ()):
            if v.id == ref.variant:
                title = v.title.get(lang)
        values = ", ".join(f"{k} = {v}" for k, v in dict(ref.params).items())
        text = f"“{title}”" + (f" ({values})" if values else "")
        if ref.number is not None:
            text += " " + self.tr("until it makes card #%1").replace("%1", str(ref.number))
        return text

    def status(self) -> str:
        """Empty when :meth:`open` can show the lesson's scripts; else what to do first."""
        refs = self.refs
        if not refs:
            return ""
        failed = [
            made.why
            for i, (card, made) in self.made.items()
            if made.script is None and i < len(refs)
        ]
        missing = self.missing()
        if not missing:
            return ""
        if self.busy and len(self.asking) >= len(missing):
            return self.tr("Writing out the scripts on the executor…")
        text = self.tr("Make these calls first: %1.").replace(
            "%1", self.tr("; ").join(self.describe(r) for r in missing)
        )
        if failed:
            text += " " + self.tr("(No script: %1)").replace("%1", failed[0])
        return text

    def open(self) -> QWidget | None:
        """The diff of the two named cards' scripts (or the one card's script); None while
        a named card has no script yet (:meth:`status` says which calls to make)."""
        if not self.ready:
            return None
        kept = [self.made[i] for i in range(len(self.refs))]
        if len(kept) == 1:
            card, made = kept[0]
            return self.book.show_made(card, made)
        (a, made_a), (b, made_b) = kept
        return self.book.compare_made(a, b, made_a, made_b)


def _failure(error: str) -> str:
    lines = [line for line in error.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "the job failed"
