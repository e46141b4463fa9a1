"""User-facing text in both languages, as data."""

from __future__ import annotations

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
