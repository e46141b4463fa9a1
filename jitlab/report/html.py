"""The report's small pieces of HTML: escaped text, times, "not recorded" (JAX-free)."""

from __future__ import annotations

import datetime
from html import escape

from jitlab.records.messages import (
    say,
)
from jitlab.records.text import visible


def esc(value: object) -> str:
    """Any text from a recording, safe inside HTML text and quoted attributes: markup
    escaped, and each control or format character written out (a right-to-left override
    would reorder the line, a zero-width space hide text; see
    :func:`jitlab.records.text.visible`). Line breaks stay: ``<pre>`` texts keep theirs."""
    return escape(visible(str(value), limit=None, lines=True), quote=True)


def when_text(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def or_missing(value: object, lang: str = "en") -> str:
    if value is None or value == "":
        return f'<span class="missing">{say("report.not_recorded", lang)}</span>'
    return esc(value)
