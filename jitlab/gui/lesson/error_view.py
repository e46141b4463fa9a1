"""The last error a call raised: its anatomy, the user's frame, and JAX's own words; or, when
the scenario's own code raised (its setup or step, outside any probed call), that exception,
said as the scenario's, with its file and line."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextOption
from PySide6.QtWidgets import QTextEdit, QWidget

from jitlab.gui.i18n import Retranslating, language, translate
from jitlab.gui.style import fixed_font
from jitlab.gui.views.call_text import values_of
from jitlab.gui.views.model import Change, RunState
from jitlab.gui.views.reasons import error_words
from jitlab.lab.raised import Raised
from jitlab.records.calls import CallRecord
from jitlab.records.error_words import operation_words
from jitlab.records.text import format_ms

_RED = "#c0392b"
_GREY = "#6b6f76"
_LABEL = "#2c6fbb"
_TIGHT = "margin-top:0px; margin-bottom:2px;"
_GAP = "margin-top:8px; margin-bottom:1px;"


def _fixed_family() -> str:
    return fixed_font().family()


def _inline(code: str) -> str:
    """A bit of code inside a line of prose: monospace, escaped."""
    return f"<span style=\"font-family:'{_fixed_family()}'\">{html.escape(code)}</span>"


def _code(text: str) -> str:
    """A block of code or JAX's message: monospace, line breaks kept, long lines wrapped."""
    return (
        f"<p style=\"{_TIGHT} white-space:pre-wrap; font-family:'{_fixed_family()}'\">"
        f"{html.escape(text)}</p>"
    )


class ErrorView(Retranslating, QTextEdit):
    """The last error: a short what / where / why / fix first, the details and JAX's own
    words below, every line wrapped to the pane (it is often only a few lines tall)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorView")
        self.setReadOnly(True)
        # Prose in the interface font; only code and JAX's message are monospace (_code).
        self.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.document().setDocumentMargin(4)
        self.record: CallRecord | None = None
        self.state: RunState | None = None  # the run it follows: its scenario's parameters
        self.retranslate()

    def bind(self, state: RunState) -> None:
        """Follow a run model: the newest error a call raised, or the worker's own failure."""
        self.state = state
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
        esc = html.escape
        params = values_of(record, self.state.params if self.state else ())
        if params:
            head = self.tr("Call #%1 (%2) raised:").replace("%2", params)
        else:  # a scenario without parameters: the call by its number alone
            head = self.tr("Call #%1 raised:")
        head = head.replace("%1", str(record.index))
        # The same figure as the call's mark on the chart and its row in the log.
        spent = self.tr("failed after %1").replace("%1", format_ms(record.latency_ms))
        notes = record.notes or {}
        anatomy = notes.get("anatomy") if isinstance(notes.get("anatomy"), dict) else None
        lines = error.message.splitlines()
        headline = (anatomy or {}).get("headline") or (lines[0] if lines else "")
        what = f"<b style='color:{_RED}'>{esc(error.type)}</b>&nbsp; "
        explained = self.explained(record)
        if explained:  # our words first; JAX's own headline kept, word for word, below
            what += f"<b>{esc(explained)}</b><br>{_inline(headline)}"
        else:
            what += f"<b>{esc(headline)}</b>"
        what += f"<span style='color:{_GREY}'> · {esc(spent)}</span>"
        rows = [self._row(self.tr("What"), what)]
        raised = Raised.from_json(notes.get("scenario_error"))
        if raised is not None:  # the scenario's own code raised: its line, and whose it is
            place = esc(f"{raised.place} · {raised.function}()")
            rows.append(self._row(self.tr("Where"), f"{place}&nbsp;&nbsp;{_inline(raised.code)}"))
            whose = self.tr("Raised by the scenario's own code (%1), not by JAX.")
            rows.append(self._row(self.tr("Why"), esc(whose.replace("%1", raised.during))))
        elif anatomy is not None:
            rows += self._summary(anatomy)
        # A table: the labels in one column, so a wrapped line stays under its own text.
        out = [f"<table cellspacing='0' cellpadding='1' width='100%'>{''.join(rows)}</table>"]
        if anatomy is not None:
            out.append(self._details(notes))
        if raised is not None:
            raw = esc(self.tr("The scenario's exception"))
        else:
            raw = esc(self.tr("JAX's message"))
        out.append(
            f"<p style='{_GAP}'><b>{raw}</b>&nbsp;&nbsp;<span style='color:{_GREY}'>"
            f"{esc(head)}</span></p>"
        )
        out.append(_code(error.message))
        self.setHtml("".join(out))

    @staticmethod
    def explained(record: CallRecord) -> str:
        """JAX's headline in the interface language, where it is not English ("" else)."""
        return error_words(record)

    @staticmethod
    def _row(label: str, body: str) -> str:
        """One row of the summary: a short bold label, then its text (which may wrap)."""
        return (
            f"<tr><td style='white-space:nowrap'><b style='color:{_LABEL}'>"
            f"{html.escape(label)}</b>&nbsp;</td><td width='100%'>{body}</td></tr>"
        )

    def _summary(self, a: dict) -> list[str]:
        """Where (the failing line of your code), why (the category), and the usual fix."""
        lang = language()[:2]
        esc = html.escape
        out = []
        stack = a.get("stack") or []
        if stack:
            f = stack[-1]
            place = esc(f"{Path(f['file']).name}:{f['line']} · {f['function']}()")
            code = f["code"].split("  # ")[0]  # the line without its comment (details: whole)
            out.append(self._row(self.tr("Where"), f"{place}&nbsp;&nbsp;{_inline(code)}"))
        why = esc((a.get("category_title") or {}).get(lang, ""))
        ctx = a.get("context") or {}
        if ctx.get("arguments"):
            needed = self.tr("argument(s): %1").replace("%1", ", ".join(ctx["arguments"]))
            why += f"<span style='color:{_GREY}'> · {esc(needed)}</span>"
        out.append(self._row(self.tr("Why"), why))
        out.append(self._row(self.tr("Fix"), esc((a.get("fix") or {}).get(lang, ""))))
        return out

    def _details(self, notes: dict) -> str:
        """The error taken apart in three layers, the eager re-run, the fixed jaxpr."""
        a = notes["anatomy"]
        esc = html.escape
        stack = a.get("stack") or []
        frames = []
        for i, f in enumerate(stack):
            code = f["code"].split("  # ")[0]  # the line without its comment (the code pane has it)
            text = f"{Path(f['file']).name}:{f['line']} in {f['function']}: {code}"
            if i == len(stack) - 1:
                frames.append(f"<b style='color:{_RED}'>→ {_inline(text)}</b>")
            else:
                frames.append(f"&nbsp;&nbsp;{_inline(text)}")
        ctx = a.get("context") or {}
        phases = {  # the anatomy's phase, in the interface language
            "tracing": self.tr("while tracing"),
            "before tracing": self.tr("before tracing"),
            "running": self.tr("while running"),
        }
        phase = str(ctx.get("phase") or "")
        context = [esc(f"{phases.get(phase, phase)} {ctx.get('function') or ''}").strip()]
        if ctx.get("location"):
            context[0] += esc(f" ({ctx['location']})")
        if ctx.get("arguments"):
            context.append(
                esc(self.tr("argument(s): %1").replace("%1", ", ".join(ctx["arguments"])))
            )
        if ctx.get("operation"):
            operation = operation_words(str(ctx["operation"]), language()[:2])
            context.append(esc(self.tr("operation: %1").replace("%1", operation)))
        values = [
            _inline(v["text"] if v.get("source") == "message" else f"{v['source']}: {v['text']}")
            for v in a.get("abstract_values") or []
        ]
        titles = (
            self.tr("① Python stack — your frames only"),
            self.tr("② Tracing context"),
            self.tr("③ Abstract values"),
            self.tr("The same call under jax.disable_jit()"),
            self.tr("jax.make_jaxpr of the fixed function"),
        )
        out = []
        # Each layer one paragraph, its title leading (the stack's frames under it, one a
        # line): the three fit under the summary at 1024×640 without scrolling.
        for i, (title, body) in enumerate(zip(titles, (frames, context, values), strict=False)):
            joint = "<br>" if i == 0 and body else "&nbsp; "
            text = ("<br>" if i == 0 else " · ").join(body) or "-"
            out.append(f"<p style='{_GAP}'><b>{esc(title)}</b>{joint}{text}</p>")
        eager = notes.get("eager")
        if isinstance(eager, dict):
            out.append(f"<p style='{_GAP}'><b>{esc(titles[3])}</b></p>")
            if eager.get("ok"):
                said = esc(self.tr("Runs without error: the problem is tracing, not the math."))
            else:
                said = esc(f"{eager.get('error_type')}: {eager.get('message') or ''}")
                if eager.get("frame"):
                    said += f"<br><b>→ {_inline(eager['frame'])}</b>"
            out.append(f"<p style='{_TIGHT}'>{said}</p>")
        if notes.get("fixed_jaxpr"):
            out.append(f"<p style='{_GAP}'><b>{esc(titles[4])}</b></p>")
            out.append(_code(notes["fixed_jaxpr"]))
        return "".join(out)

    def show_text(self, title: str, text: str) -> None:
        self.record = None
        self.setHtml(
            f"<p style='{_TIGHT}'><b style='color:{_RED}'>{html.escape(title)}</b></p>{_code(text)}"
        )

    def retranslate(self) -> None:
        self.setPlaceholderText(
            self.tr("No error so far. A call that raises shows its error here.")
        )
        self.setToolTip(self.tr("The last error a call raised."))
        if self.record is not None:  # the labels and the fix follow the language
            self.show_error(self.record)
