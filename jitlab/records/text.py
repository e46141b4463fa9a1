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
