"""What every built-in scenario owes its users, checked once for all of them."""

from __future__ import annotations

import pytest

from jitlab.lab.discovery import scenarios

ALL = scenarios()


@pytest.mark.parametrize("sid", sorted(ALL))
def test_lesson_in_both_languages(sid: str):
    cls = ALL[sid]
    for text in (cls.title, cls.question, *vars(cls.lesson).values()):
        assert text.en.strip() and text.zh.strip()
    for variant in cls.variants:
        assert variant.title.en.strip() and variant.title.zh.strip()


@pytest.mark.parametrize("sid", sorted(ALL))
def test_every_variant_shows_the_code_it_runs(sid: str):
    scenario = ALL[sid]()
    for variant in scenario.variant_ids():
        assert "def " in scenario.source(variant), variant
