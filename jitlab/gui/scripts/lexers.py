"""Colours for the script windows' texts: Pygments lexers for jaxprs, StableHLO and HLO
(Pygments has none), and a highlighter that colours only the lines on screen.
"""

from __future__ import annotations

from typing import Any

from pygments.lexer import Lexer, RegexLexer
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
from PySide6.QtCore import QObject, QRect, Slot
from PySide6.QtGui import QColor, QTextCharFormat, QTextLayout
from PySide6.QtWidgets import QPlainTextEdit

from jitlab.gui.style import is_dark

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
        ranges: list[QTextLayout.FormatRange] = []
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
