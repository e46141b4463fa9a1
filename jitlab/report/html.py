"""The report's small pieces of HTML: escaped text, times, "not recorded" (JAX-free)."""

from __future__ import annotations

import datetime
from html import escape

from jitlab.records.messages import (
    say,
)
from jitlab.records.text import visible_value


def esc(value: object, lang: str = "en") -> str:
    """Any text from a recording, safe inside HTML text and quoted attributes: markup
    escaped, each control or format character written out (a right-to-left override would
    reorder the line, a zero-width space hide text), a one-line text longer than a field's
    bound elided around its length, said in ``lang`` (see
    :func:`jitlab.records.text.visible_value`); a text of lines whole, breaks kept."""
    return escape(visible_value(str(value), lang), quote=True)


def when_text(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def or_missing(value: object, lang: str = "en") -> str:
    if value is None or value == "":
        return f'<span class="missing">{say("report.not_recorded", lang)}</span>'
    return esc(value, lang)
