"""The code that runs, the fix as a diff, what the calls printed, and the last error."""

from __future__ import annotations

import difflib
import html

from PySide6.QtCore import QEvent
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QPlainTextEdit, QTabWidget, QTextEdit, QVBoxLayout, QWidget
from superqt.utils import CodeSyntaxHighlight

from jitlab.core.records import CallRecord
from jitlab.gui.style import is_dark


def _mono(widget: QWidget) -> None:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    widget.setFont(font)


def source_of(scenario: type, variant: str) -> str:
    """The scenario's own source for a variant, or the reason it could not be read."""
    try:
        return scenario().source(variant) or "# (this scenario shows no code)"
    except Exception as exc:  # a plugin whose source is unavailable (zip, C extension…)
        return f"# source unavailable: {type(exc).__name__}: {exc}"


def fix_diff(scenario: type) -> str:
    """The fix as a unified diff against the pitfall: what to change, nothing else."""
    pitfall = source_of(scenario, "pitfall").splitlines()
    fix = source_of(scenario, "fix").splitlines()
    lines = difflib.unified_diff(pitfall, fix, "pitfall", "fix", n=3, lineterm="")
    return "\n".join(lines) or "# the fix runs the same code"


class CodeView(QWidget):
    """Two tabs: the variant's code, highlighted; the fix as a diff against the pitfall."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tabs = QTabWidget(self)
        self.code = QPlainTextEdit(self)
        self.code.setObjectName("codeView")
        self.diff = QPlainTextEdit(self)
        self.diff.setObjectName("diffView")
        for editor in (self.code, self.diff):
            editor.setReadOnly(True)
            editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
            _mono(editor)
        self.tabs.addTab(self.code, "")
        self.tabs.addTab(self.diff, "")
        self._highlighters = []
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

    def show_scenario(self, scenario: type, variant: str) -> None:
        self.code.setPlainText(source_of(scenario, variant))
        self.diff.setPlainText(fix_diff(scenario))

    def retranslate(self) -> None:
        self.tabs.setTabText(0, self.tr("Code that runs"))
        self.tabs.setTabText(1, self.tr("Fix vs pitfall (diff)"))
        self.tabs.setTabToolTip(
            0, self.tr("The source of the current variant, exactly as it runs.")
        )
        self.tabs.setTabToolTip(1, self.tr("What the fix changes, as a diff against the pitfall."))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


class OutputView(QTextEdit):
    """What the calls printed, trace-time lines and runtime lines told apart."""

    TRACE = "#b35c00"
    RUNTIME = "#1f7a3a"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("outputView")
        self.setReadOnly(True)
        _mono(self)
        self.lines: list[tuple[int, str, str]] = []  # (call, when, text)
        self._pending: list[str] = []
        self.retranslate()

    def add(self, record: CallRecord) -> None:
        for line in record.stdout:
            self.lines.append((record.index, line.when, line.text))
            if len(self._pending) < 500:  # a flood of prints: keep the frame short
                tag = self.tr("trace") if line.when == "trace" else self.tr("runtime")
                color = self.TRACE if line.when == "trace" else self.RUNTIME
                badge = "⚙" if line.when == "trace" else "▶"
                self._pending.append(
                    f"<span style='color:{color}'><b>{badge} #{record.index} {tag}</b></span>"
                    f"&nbsp;&nbsp;{html.escape(line.text)}"
                )

    def flush(self) -> None:
        if self._pending:
            self.append("<br>".join(self._pending))
            self._pending = []

    def clear_lines(self) -> None:
        self.lines = []
        self._pending = []
        self.clear()

    def retranslate(self) -> None:
        self.setPlaceholderText(
            self.tr(
                "What the calls print appears here. ⚙ trace: printed while jit traced the "
                "function (happens only when it compiles). ▶ runtime: printed while the "
                "compiled code ran (jax.debug.print)."
            )
        )
        self.setToolTip(
            self.tr(
                "Printed output of the calls: trace-time lines in orange, runtime lines in green."
            )
        )

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


class ErrorView(QTextEdit):
    """The last error in full: type, message and what the scenario was doing."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorView")
        self.setReadOnly(True)
        _mono(self)
        self.record: CallRecord | None = None
        self.retranslate()

    def show_error(self, record: CallRecord) -> None:
        self.record = record
        error = record.error
        if error is None:
            return
        params = ", ".join(f"{k}={v}" for k, v in (record.params or {}).items())
        head = self.tr("Call #%1 (%2) raised:").replace("%1", str(record.index))
        head = head.replace("%2", params)
        self.setHtml(
            f"<h3 style='color:#c0392b'>{html.escape(error.type)}</h3>"
            f"<p>{html.escape(head)}</p>"
            f"<pre>{html.escape(error.message)}</pre>"
        )

    def show_text(self, title: str, text: str) -> None:
        self.setHtml(
            f"<h3 style='color:#c0392b'>{html.escape(title)}</h3><pre>{html.escape(text)}</pre>"
        )

    def retranslate(self) -> None:
        self.setPlaceholderText(
            self.tr("No error so far. A call that raises shows its error here.")
        )
        self.setToolTip(self.tr("The last error a call raised."))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
