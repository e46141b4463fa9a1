"""Text that fits its room, or says where it was cut.

- :class:`FittedText`: a plain-text label that shows what fits its height: the lines that
  fit, the last one ending in "…", the whole text in its tooltip. A word-wrapped QLabel in a
  short pane is cut at its bottom edge: the end of its sentence, often the conclusion,
  silently gone.
- :func:`elide_at_words`: one line cut at a word, never inside a number ("#10" read as "#1").
- :func:`breakable` and :class:`BreakingLabel`: a long unbroken token (a function called
  ``a_very_long_function_name_without_any_breaks``, a deep path) gets zero-width break
  opportunities, so a narrow column wraps it instead of growing past its edge; a
  :class:`BreakingLabel` copies its selection without them.
"""

from __future__ import annotations

import html
import math
import re

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QContextMenuEvent,
    QFontMetrics,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QResizeEvent,
    QShowEvent,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import QLabel, QMenu, QSizePolicy, QWidget

from jitlab.gui import plain

ELLIPSIS = "…"
BREAK = "\u200b"  # zero-width space: a line may break here, nothing shows
_LONG = re.compile(r"\S{17,}")  # a token this long may not fit a column in one line
_BREAK_AFTER = re.compile(r"([._(/,=\\])(?=\S)")
_TAG = re.compile(r"(<[^>]*>)")
# A run of ASCII still this long: a break every 24 characters (Chinese breaks anywhere).
_RUN = re.compile(r"[!-~]{24}(?=[!-~])")


def breakable(text: str) -> str:
    """``text`` with a zero-width break opportunity after the dots, underscores, slashes and
    brackets of its long tokens (``jax_persistent_cache_min_compile_time_secs``), and every
    24 characters of an ASCII run that still has none, so a narrow column wraps them instead of
    cutting them at its right edge."""
    text = _LONG.sub(lambda m: _BREAK_AFTER.sub("\\1" + BREAK, m.group(0)), text)
    return _RUN.sub(lambda m: m.group(0) + BREAK, text)


class BreakingLabel(QLabel):
    """A selectable rich-text label whose long unbroken tokens wrap (:func:`breakable`, on
    its text between the tags); :meth:`text` and a copied selection are as written, without
    the breaks it shows."""

    def setText(self, text: str) -> None:
        parts = _TAG.split(text)  # text, tag, text, …: a tag (an href) is left whole
        for i in range(0, len(parts), 2):
            parts[i] = html.escape(breakable(html.unescape(parts[i])), quote=False)
        super().setText("".join(parts))

    def text(self) -> str:
        """The text as written: without the breaks it shows (as a copy gives it)."""
        return super().text().replace(BREAK, "")

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy) and self.hasSelectedText():
            self.copy_selection()
            return
        super().keyPressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        if not self.hasSelectedText():
            super().contextMenuEvent(event)
            return
        menu = QMenu(self)
        menu.addAction(self.tr("Copy"), self.copy_selection)
        menu.exec(event.globalPos())

    def copy_selection(self) -> None:
        QGuiApplication.clipboard().setText(self.selectedText().replace(BREAK, ""))


class FittedText(QLabel):
    """Plain text, word-wrapped, at least ``min_lines`` lines tall; where the layout gives it
    less height than the text needs, the lines that fit, the last elided, the whole text in
    the tooltip (after the label's own tip)."""

    def __init__(self, parent: QWidget | None = None, min_lines: int = 2) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)  # recorded reasons, errors: as text
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        # The layout gives it the room that is left: its text is fitted to that, never the
        # room to its text (which a long reason would take from the panes around it).
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self._full = ""
        self._tip = ""
        self.min_lines = min_lines
        self.elided = False
        self._fit_min()

    def _fit_min(self) -> None:
        margins = self.contentsMargins()
        # A line as tall as Chinese makes it (a fallback font's line is taller than the
        # label's own font says).
        tallest = max(height for _, height in self._layout("Ag国", 10_000))
        self.setMinimumHeight(tallest * self.min_lines + margins.top() + margins.bottom())

    def hasHeightForWidth(self) -> bool:
        """No: its height is the room the layout leaves it (its text's, asked of a wrapped
        label, made the pane's layout squeeze the picture and the counters above it)."""
        return False

    def full_text(self) -> str:
        return self._full

    def setText(self, text: str) -> None:
        if text == self._full and self.text():
            return
        self._full = text
        self._fit()

    def setToolTip(self, tip: str) -> None:
        self._tip = tip
        self._show_tip()

    def _show_tip(self) -> None:
        if self.elided:
            whole = plain.tip(self._full)
            super().setToolTip(f"{whole}\n\n{self._tip}" if self._tip else whole)
        else:
            super().setToolTip(self._tip)

    def changeEvent(self, event: object) -> None:
        super().changeEvent(event)  # type: ignore[arg-type]
        self._fit_min()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _layout(self, text: str, width: int) -> list[tuple[str, int]]:
        """``text``'s lines and their heights as wrapped at ``width`` pixels (as Qt wraps a
        word-wrapped label: at word boundaries, inside a word only where it alone is
        wider)."""
        out: list[tuple[str, int]] = []
        for paragraph in text.split("\n"):
            layout = QTextLayout(paragraph, self.font())
            option = QTextOption()
            option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
            layout.setTextOption(option)
            layout.beginLayout()
            while True:
                line = layout.createLine()
                if not line.isValid():
                    break
                line.setLineWidth(width)
                start, length = line.textStart(), line.textLength()
                out.append((paragraph[start : start + length], math.ceil(line.height())))
            layout.endLayout()
        return out

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fit()

    def height_for(self, width: int, lines: int) -> int:
        """The height of the whole text's first ``lines`` lines at ``width`` pixels (at
        least :attr:`min_lines`' worth: the label's minimum)."""
        margins = self.contentsMargins()
        width -= margins.left() + margins.right()
        heights = [height for _, height in self._layout(self._full, max(width, 1))][:lines]
        return max(sum(heights) + margins.top() + margins.bottom(), self.minimumHeight())

    def _fit(self) -> None:
        rect = self.contentsRect()
        width = rect.width()
        if width <= 0 or not self.isVisible():  # fitted once it is laid out and shown
            self.elided = False
            super().setText(self._full)
            self._show_tip()
            return
        lines = self._layout(self._full, width)
        room, used = 0, 0
        for _, height in lines:
            if used + height > rect.height():
                break
            room, used = room + 1, used + height
        room = max(1, room)
        self.elided = len(lines) > room
        if not self.elided:
            shown = self._full
        else:
            kept = [line.rstrip(" ") for line, _ in lines[: room - 1]]
            rest = "".join(line for line, _ in lines[room - 1 :])
            last = self.fontMetrics().elidedText(
                rest, Qt.TextElideMode.ElideRight, width - self.fontMetrics().averageCharWidth()
            )
            if not last.endswith(ELLIPSIS):
                last += ELLIPSIS
            shown = "\n".join([*kept, last])
        if shown != self.text():
            super().setText(shown)
        self._show_tip()


def _may_cut(before: str, after: str) -> bool:
    """A line may end between these two characters: at a space, or between two characters
    that are not ASCII letters, digits or ``#`` (Chinese breaks between any two; "#10" and
    "card" never)."""
    if before == " " or after == " ":
        return True
    return not (_in_word(before) or _in_word(after))


def _in_word(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c in "#_.")


def elide_at_words(metrics: QFontMetrics, text: str, width: int) -> str:
    """``text`` where it fits ``width`` pixels, else its longest start that ends at a word and
    fits with "…" after it (never a number cut to its first digits: "#10" read as "#1")."""
    if metrics.horizontalAdvance(text) <= width:
        return text
    for end in range(len(text) - 1, 0, -1):
        if not _may_cut(text[end - 1], text[end]):
            continue
        shown = text[:end].rstrip(" ") + ELLIPSIS
        if metrics.horizontalAdvance(shown) <= width:
            return shown
    return ELLIPSIS
