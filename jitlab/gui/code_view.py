"""The code that runs, the fix as a diff, what the calls printed, and the last error."""

from __future__ import annotations

import difflib
import html
from pathlib import Path

from PySide6.QtCore import QEvent
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QPlainTextEdit, QTabWidget, QTextEdit, QVBoxLayout, QWidget
from superqt.utils import CodeSyntaxHighlight, qthrottled

from jitlab.core.records import CallRecord
from jitlab.core.spec import Scenario
from jitlab.gui.i18n import language, translate
from jitlab.gui.model import Change, RunState
from jitlab.gui.style import is_dark

FLUSH_MS = 200  # bound to a run: printed lines appended at most 5 times a second in a flood


def _short_facts(notes: dict | None, limit: int = 60) -> str:
    """Scenario facts on one line, leaving out the big ones the error view lays out."""
    if not notes:
        return ""
    parts = []
    for key, value in notes.items():
        if key in ("anatomy", "eager", "fixed_jaxpr", "error", "result") or value is None:
            continue
        if key.endswith("_error"):  # shown whole, on a line of its own (OutputView.add)
            continue
        text = " ".join(str(value).split())
        parts.append(f"{key}={text if len(text) <= limit else text[: limit - 1] + '…'}")
    return ", ".join(parts)


def _mono(widget: QWidget) -> None:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    widget.setFont(font)


def source_of(scenario: type[Scenario], variant: str) -> str:
    """The scenario's own source for a variant, or the reason it could not be read."""
    try:
        return scenario().source(variant) or "# (this scenario shows no code)"
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


def fix_diff(scenario: type[Scenario]) -> str:
    """The fix as a unified diff against the pitfall: what to change, nothing else."""
    sources = [source_of(scenario, "pitfall"), source_of(scenario, "fix")]
    for text in sources:
        if text.startswith(UNAVAILABLE):  # no diff to make: say why, not "the same code"
            return text
    pitfall, fix = (text.splitlines() for text in sources)
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

    def show_scenario(self, scenario: type[Scenario], variant: str) -> None:
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

    NOTE = "#6b6f76"
    WARN = "#b7791f"

    def bind(self, state: RunState) -> None:
        """Follow a run model: what each served call printed or noted."""
        self._flush_later = qthrottled(self.flush, timeout=FLUSH_MS, parent=self)
        state.subscribe(self._changed)

    def _changed(self, change: Change) -> None:
        if change.cleared:
            self.clear_lines()
        for served in change.served:
            if served.record.stdout or served.record.notes:  # printed, or the scenario noted
                self.add(served.record)
        if self._pending:
            self._flush_later()

    def add(self, record: CallRecord) -> None:
        for key, value in (record.notes or {}).items():
            if key.endswith("_error") and value and len(self._pending) < 500:
                # Something went wrong beside the call (a cache the disk refused…): whole.
                self._pending.append(
                    f"<span style='color:{self.WARN}'><b>⚠ #{record.index} "
                    f"{html.escape(key)}</b>&nbsp;&nbsp;{html.escape(str(value))}</span>"
                )
        facts = _short_facts(record.notes)
        if facts and len(self._pending) < 500:
            # What the scenario observed outside the jitted code (a counter, a list, a cache).
            noted = self.tr("noted")
            self._pending.append(
                f"<span style='color:{self.NOTE}'>· #{record.index} {noted}"
                f"&nbsp;&nbsp;{html.escape(facts)}</span>"
            )
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

    def bind(self, state: RunState) -> None:
        """Follow a run model: the newest error a call raised, or the worker's own failure."""
        state.subscribe(self._changed)

    def _changed(self, change: Change) -> None:
        if change.cleared:
            self.record = None
            self.clear()
        errors = [s.record for s in change.served if s.record.error is not None]
        if errors:
            self.show_error(errors[-1])  # one per frame: the others are in the log
        if change.failure:
            self.show_text(translate("MainWindow", "Internal error"), change.failure)

    def show_error(self, record: CallRecord) -> None:
        self.record = record
        error = record.error
        if error is None:
            return
        params = ", ".join(f"{k}={v}" for k, v in (record.params or {}).items())
        head = self.tr("Call #%1 (%2) raised:").replace("%1", str(record.index))
        head = head.replace("%2", params)
        lines = error.message.splitlines()
        message = "\n".join(line[:160] for line in lines[:6]) + ("\n…" if len(lines) > 6 else "")
        notes = record.notes or {}
        if isinstance(notes.get("anatomy"), dict):
            # Taken apart first; JAX's own words after, for reference.
            raw = self.tr("JAX's message")
            self.setHtml(
                f"<h3 style='color:#c0392b'>{html.escape(error.type)}</h3>"
                f"<p>{html.escape(head)}<br><b>{html.escape(notes['anatomy'].get('headline', ''))}"
                f"</b></p>{self._anatomy_html(notes)}<h4>{raw}</h4><pre>{html.escape(message)}</pre>"
            )
            return
        self.setHtml(
            f"<h3 style='color:#c0392b'>{html.escape(error.type)}</h3>"
            f"<p>{html.escape(head)}</p>"
            f"<pre>{html.escape(message)}</pre>"
        )

    def _anatomy_html(self, notes: dict) -> str:
        """The error taken apart in three layers, its fix, the eager re-run, the fixed jaxpr."""
        lang = language()
        a = notes["anatomy"]
        esc = html.escape
        stack = a.get("stack") or []
        frames = []
        for i, f in enumerate(stack):
            text = esc(f"{Path(f['file']).name}:{f['line']} in {f['function']}: {f['code']}")
            last = i == len(stack) - 1
            frames.append(
                f"<b style='color:#c0392b'>→ {text}</b>" if last else f"&nbsp;&nbsp;{text}"
            )
        ctx = a.get("context") or {}
        context = [esc(f"{ctx.get('phase', '')} {ctx.get('function') or ''}").strip()]
        if ctx.get("location"):
            context[0] += esc(f" ({ctx['location']})")
        if ctx.get("arguments"):
            context.append(
                self.tr("argument(s): %1").replace("%1", esc(", ".join(ctx["arguments"])))
            )
        if ctx.get("operation"):
            context.append(self.tr("operation: %1").replace("%1", esc(ctx["operation"])))
        values = [
            esc(v["text"] if v.get("source") == "message" else f"{v['source']}: {v['text']}")
            for v in a.get("abstract_values") or []
        ]
        titles = (
            self.tr("① Python stack — your frames only"),
            self.tr("② Tracing context"),
            self.tr("③ Abstract values"),
            self.tr("Category and fix"),
            self.tr("The same call under jax.disable_jit()"),
            self.tr("jax.make_jaxpr of the fixed function"),
        )
        out = [
            f"<h4>{titles[0]}</h4>",
            "<br>".join(frames) or "-",
            f"<h4>{titles[1]}</h4>",
            "<br>".join(context) or "-",
            f"<h4>{titles[2]}</h4>",
            "<br>".join(values) or "-",
            f"<h4>{titles[3]}</h4>",
            f"<b>{esc((a.get('category_title') or {}).get(lang[:2], ''))}</b><br>",
            esc((a.get("fix") or {}).get(lang[:2], "")),
        ]
        eager = notes.get("eager")
        if isinstance(eager, dict):
            out.append(f"<h4>{titles[4]}</h4>")
            if eager.get("ok"):
                out.append(
                    esc(self.tr("Runs without error: the problem is tracing, not the math."))
                )
            else:
                out.append(esc(f"{eager.get('error_type')}: {eager.get('message') or ''}"))
                if eager.get("frame"):
                    out.append(f"<br><b>→ {esc(eager['frame'])}</b>")
        if notes.get("fixed_jaxpr"):
            out.append(f"<h4>{titles[5]}</h4>")
            out.append(f"<pre>{esc(notes['fixed_jaxpr'])}</pre>")
        return "".join(out)

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
