"""One call in words: the rich-text card the chart, the log and the summary show for a
call (its kind, phases, signature, reason, error), every recorded string escaped."""

from __future__ import annotations

import html
from collections.abc import Iterable

from PySide6.QtCore import QT_TRANSLATE_NOOP

from jitlab.gui.i18n import language, translate
from jitlab.gui.style import KIND_COLORS, kind_name
from jitlab.gui.views.reasons import error_words, reason_text
from jitlab.lab.spec import Param, values_text
from jitlab.records.calls import CallRecord
from jitlab.records.text import format_ms


def values_of(record: CallRecord, params: Iterable[Param] = ()) -> str:
    """The call's values as the lesson's controls name them, in the interface language
    (``params``: the scenario's; a recording's own names stay as written)."""
    return values_text(params, record.params or {}, language())


def describe(record: CallRecord, params: Iterable[Param] = ()) -> str:
    """A rich-text card for one call: kind, phases, signature, reason, error."""
    label = {
        "variant": translate("CallCard", "variant"),
        "trace": translate("CallCard", "trace"),
        "lower": translate("CallCard", "lower"),
        "compile": translate("CallCard", "compile"),
        "execute": translate("CallCard", "execute"),
        "signature": translate("CallCard", "signature"),
        "why": translate("CallCard", "why"),
    }
    color = KIND_COLORS[record.kind]
    # A recording's parameters are its own strings: escaped, as every recorded text here.
    values = _escape(values_of(record, params))
    rows = [
        f"<b>#{record.index}</b> · <span style='color:{color}'><b>"
        f"{kind_name(record.kind)}</b></span> · {format_ms(record.latency_ms)}",
        f"{label['variant']}: {_variant(record.variant)} · {values}",
        f"{label['trace']} {format_ms(record.trace_ms)} · {label['lower']} "
        f"{format_ms(record.lower_ms)} · {label['compile']} {format_ms(record.compile_ms)}"
        f" · {label['execute']} {format_ms(record.execute_ms)}",
    ]
    if record.signature is not None:
        sig = _escape(str(record.signature))
        if len(sig) > 300:
            sig = sig[:300] + "…"
        rows.append(f"{label['signature']}: <tt>{sig}</tt>")
    if record.reason is not None:
        rows.append(f"{label['why']}: {_escape(reason_text(record.reason))}")
    if record.error is not None:
        words = error_words(record)  # in Chinese: what the headline means, then JAX's text
        if words:
            rows.append(f"<b>{_escape(record.error.type)}</b>: {_escape(words)}")
        rows.append(f"<b>{_escape(record.error.type)}</b>: {_escape(record.error.message[:300])}")
    return "<br>".join(rows)


_VARIANTS = {
    "pitfall": QT_TRANSLATE_NOOP("CallCard", "pitfall"),
    "fix": QT_TRANSLATE_NOOP("CallCard", "fix"),
}


def _variant(variant: str | None) -> str:
    """The two variants every scenario has, in words; another is named by its id, as the
    variant menu and ``--variant`` spell it."""
    if not variant:
        return "-"
    words = _VARIANTS.get(variant)
    return translate("CallCard", str(words)) if words else _escape(variant)


# Between two legend entries: a plain space is where the row may wrap.
LEGEND_GAP = "&nbsp;&nbsp; "
WORD_JOINER = "\u2060"  # no line break here, in any script (Unicode line breaking: WJ)


def unbroken(text: str) -> str:
    """``text`` as HTML that never wraps: spaces become ``&nbsp;``, and a word joiner sits
    between characters (Chinese may otherwise break between any two)."""
    return "&nbsp;".join(_escape(WORD_JOINER.join(word)) for word in text.split(" "))


def _escape(text: str) -> str:
    return html.escape(text, quote=False)
