"""What every built-in scenario owes its users, checked once for all of them.

The built-ins are whatever discovery finds in the built-ins' folder (``scenarios/``, or
``$JITLAB_SCENARIOS``), and what they owe is :func:`validate` with ``builtin=True``: adding
a built-in is its one file (``tests/lab/test_one_file.py`` tries it on a copy).
"""

from __future__ import annotations

import pytest

from jitlab.lab.discovery import discover
from jitlab.lab.scenario import validate

ENTRIES = [e for e in discover(entry_points=False) if e.origin.startswith("builtin:")]
ALL = {e.name: e.scenario for e in ENTRIES if e.scenario is not None}


def test_every_builtin_file_loads():
    assert [(e.name, e.error) for e in ENTRIES if e.scenario is None] == []
    assert len(ALL) >= 7


@pytest.mark.parametrize("sid", sorted(ALL))
def test_every_builtin_keeps_what_a_builtin_owes(sid: str):
    assert validate(ALL[sid], builtin=True) == []


@pytest.mark.parametrize("sid", sorted(ALL))
def test_lesson_in_both_languages(sid: str):
    cls = ALL[sid]
    for text in (cls.title, cls.question, *vars(cls.lesson).values()):
        assert text.en.strip() and text.zh.strip()
    for variant in cls.variants:
        assert variant.title.en.strip() and variant.title.zh.strip()
