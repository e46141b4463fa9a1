"""The ``jitlab_lesson`` fixture of jitlab's pytest plugin: a plugin author tests a lesson in a
few lines (its verdict, its question's count, an exercise's answer), and a mistake in the
spec or in the lesson's own code fails the test with its file and line."""

from __future__ import annotations

import sys
from pathlib import Path

import jax  # noqa: F401  # before pytester's in-process run, which forgets what it imported
import pytest

sys.path.insert(0, str(Path(__file__).parent / "faults"))
from padding_lesson import padding

# The lesson of tests/faults/padding_lesson.py, and two that go wrong.
LESSON = (
    padding()
    + """

class Misspelt(Padding):
    id = "misspelt"
    title = "Pad to one shape"


class Raising(Padding):
    id = "raising"

    def setup(self, lab, variant):
        return {}[variant]
"""
)

TESTS = """

def test_the_lesson(jitlab_lesson):
    lesson = jitlab_lesson(Padding)
    verdict = lesson.verdict()
    assert verdict.better == "fix"
    assert (verdict.pitfall.compiles, verdict.fix.compiles) == (3, 1)
    assert lesson.question() == 2
    assert lesson.answer("two-shapes") == 2


def test_a_spec_mistake(jitlab_lesson):
    jitlab_lesson(Misspelt)


def test_its_own_code_raising(jitlab_lesson):
    jitlab_lesson(Raising).verdict()


def test_an_unknown_id(jitlab_lesson):
    jitlab_lesson("no-such-lesson")
"""


def test_an_author_tests_a_lesson_in_a_few_lines(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_lesson=LESSON + TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider", "-q", "-p", "no:xdist")
    result.assert_outcomes(passed=1, failed=3)
    out = result.stdout.str()
    # The spec's problem, with its file, line, class and attribute, without a traceback.
    assert "The spec has 1 problem:" in out
    assert "test_lesson.py:49: Misspelt.title: must be Text(en, zh)" in out
    # The lesson's own exception, with its line: not a verdict that only says calls failed.
    assert "the scenario's own code raised KeyError" in out
    assert "setup raised it at test_lesson.py:56, in setup: return {}[variant]" in out
    assert "no scenario file or scenario named 'no-such-lesson'" in out
