"""The code that runs and the fix as a diff, in the bottom pane's Code tab."""

from __future__ import annotations

import difflib

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QFontMetricsF, QPainter, QPaintEvent, QPalette, QTextCursor, QTextOption
from PySide6.QtWidgets import QTabWidget, QTextEdit, QVBoxLayout, QWidget
from superqt.utils import CodeSyntaxHighlight

from jitlab.gui.i18n import Retranslating, language
from jitlab.gui.style import fixed_font, is_dark
from jitlab.lab.spec import Scenario


def source_of(scenario: type[Scenario], variant: str, lang: str = "en") -> str:
    """The scenario's own source for a variant (comments in ``lang`` where the scenario
    translates them), or the reason it could not be read."""
    try:
        return scenario().source(variant, lang) or "# (this scenario shows no code)"
    except KeyboardInterrupt:  # Ctrl-C belongs to the user
        raise
    except BaseException as exc:  # zip, C extension… or a plugin's sys.exit(): not our end
        return f"{UNAVAILABLE}{plugin_error(exc)}"


UNAVAILABLE = "# source unavailable: "


def plugin_error(exc: BaseException) -> str:
    """A plugin's exception in words; SystemExit's own str() is a bare code such as ``3``."""
    if not isinstance(exc, Exception):
        return f"{exc!r} raised by the scenario"
    return f"{type(exc).__name__}: {exc}"


def fix_diff(scenario: type[Scenario], lang: str = "en") -> str:
    """The fix as a unified diff against the pitfall: what to change, nothing else."""
    sources = [source_of(scenario, "pitfall", lang), source_of(scenario, "fix", lang)]
    for text in sources:
        if text.startswith(UNAVAILABLE):  # no diff to make: say why, not "the same code"
            return text
    pitfall, fix = (text.splitlines() for text in sources)
    lines = difflib.unified_diff(pitfall, fix, "pitfall", "fix", n=3, lineterm="")
    return "\n".join(lines) or "# the fix runs the same code"


class CodeText(QTextEdit):
    """Read-only code that wraps at the pane's width with a hanging indent.

    A wrapped line goes on under its own text, ``HANG`` characters further in than the code's
    indentation (deeper than the next block level), after a grey ↪ drawn in the margin, so a
    continuation never reads as a line of code at column 0.
    """

    HANG = 6  # characters, past the line's own indentation
    MARK = "↪"

    def __init__(self, prefix: int = 0, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.prefix = prefix  # characters before the code on each line (a diff's +, - or space)
        self.setReadOnly(True)
        self.setAcceptRichText(False)
        self.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setFont(fixed_font())

    def set_code(self, text: str) -> None:
        self.setPlainText(text)
        self._hang()

    def _hang(self) -> None:
        width = QFontMetricsF(self.font()).horizontalAdvance(" ")
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        block = self.document().begin()
        while block.isValid():
            code = block.text()[self.prefix :]
            lead = self.prefix + len(code) - len(code.lstrip(" "))
            hang = (lead + self.HANG) * width
            form = block.blockFormat()
            form.setLeftMargin(hang)
            form.setTextIndent(-hang)  # the first line at column 0, the rest under ``hang``
            cursor.setPosition(block.position())
            cursor.setBlockFormat(form)
            block = block.next()
        cursor.endEditBlock()

    def continuations(self) -> list[tuple[int, QRectF]]:
        """The wrapped lines: (block number, line rectangle in document coordinates)."""
        out = []
        layout = self.document().documentLayout()
        block = self.document().begin()
        while block.isValid():
            lines = block.layout()
            if lines is not None and lines.lineCount() > 1:
                top = layout.blockBoundingRect(block).topLeft()
                for i in range(1, lines.lineCount()):
                    out.append((block.blockNumber(), lines.lineAt(i).rect().translated(top)))
            block = block.next()
        return out

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        marks = self.continuations()
        if not marks:
            return
        painter = QPainter(self.viewport())
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        painter.setFont(self.font())
        metrics = QFontMetricsF(self.font())
        dx = -self.horizontalScrollBar().value()
        dy = -self.verticalScrollBar().value()
        for _, rect in marks:
            x = rect.left() - metrics.horizontalAdvance(self.MARK + " ") + dx
            painter.drawText(QPointF(x, rect.top() + metrics.ascent() + dy), self.MARK)
        painter.end()


class CodeView(Retranslating, QWidget):
    """Two tabs: the variant's code, highlighted; the fix as a diff against the pitfall.

    Comments follow the interface language where the scenario translates them
    (``Scenario.code_comments``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tabs = QTabWidget(self)
        self.code = CodeText(0, self)
        self.code.setObjectName("codeView")
        self.diff = CodeText(1, self)
        self.diff.setObjectName("diffView")
        self.tabs.addTab(self.code, "")
        self.tabs.addTab(self.diff, "")
        self._highlighters: list[CodeSyntaxHighlight] = []
        self._shown: tuple[type[Scenario], str] | None = None
        self.apply_theme()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        self.retranslate()

    def apply_theme(self) -> None:
        theme = "monokai" if is_dark() else "default"
        self._highlighters = [
            CodeSyntaxHighlight(self.code.document(), "python", theme),
            CodeSyntaxHighlight(self.diff.document(), "diff", theme),
        ]

    def show_scenario(self, scenario: type[Scenario], variant: str) -> None:
        self._shown = (scenario, variant)
        lang = language()
        self.code.set_code(source_of(scenario, variant, lang))
        self.diff.set_code(fix_diff(scenario, lang))

    def retranslate(self) -> None:
        self.tabs.setTabText(0, self.tr("Code that runs"))
        self.tabs.setTabText(1, self.tr("Fix vs pitfall (diff)"))
        self.tabs.setTabToolTip(
            0, self.tr("The source of the current variant, exactly as it runs.")
        )
        self.tabs.setTabToolTip(1, self.tr("What the fix changes, as a diff against the pitfall."))
        if self._shown is not None:  # the comments follow the language
            self.show_scenario(*self._shown)
