"""User-facing text in both languages, as data."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Text:
    """A piece of user-facing text in both languages."""

    en: str
    zh: str

    def get(self, language: str) -> str:
        return self.zh if language.startswith("zh") else self.en


def format_ms(ms: float) -> str:
    """A duration as the app, the report and the CLI print it: 0.42 ms, 37 ms, 1.25 s."""
    if ms >= 1000:
        return f"{ms / 1000:.2f} s"
    if ms >= 10:
        return f"{ms:.0f} ms"
    return f"{ms:.2f} ms"


_ZH_NUMBERS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7}
_ZH_NUMBERS.update({"八": 8, "九": 9, "十": 10})


def prediction_number(text: str) -> int | None:
    """The first count a learner's prediction names: "2 compiles", "两次", "三" (None when it
    names none). The app's summary page and a lesson notebook's verdict both read it."""
    match = re.search(r"\d+|[零一二两三四五六七八九十]", text)
    if match is None:
        return None
    token = match.group()
    return int(token) if token.isdigit() else _ZH_NUMBERS[token]


def format_bytes(value: object) -> str:
    """A byte count as people read it (``1.5 MiB``); ``?`` where JAX gave none."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return "?"
    size, unit = float(value), "B"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            break
        size /= 1024
    return f"{value} B" if unit == "B" else f"{size:.1f} {unit}"
