"""The ``jitlab_lesson`` fixture of jitlab's pytest plugin: a plugin author tests a lesson in a
few lines (its verdict, its question's count, an exercise's answer), and a mistake in the
spec or in the lesson's own code fails the test with its file and line."""

from __future__ import annotations

import jax  # noqa: F401  # before pytester's in-process run, which forgets what it imported
import pytest

LESSON = """
import jax.numpy as jnp

from jitlab.lab.scenario import (
    AnswerKind, Chapter, Comparison, Exercise, Lesson, Measure, Param, QuestionRun, Scenario,
    Text, Variant, compile_answer,
)

T = Text("x", "x")


def two_shapes(lab):
    f = lab.jit(lambda x: x * 2)
    f(jnp.ones(2))
    f(jnp.ones(3))


class Padding(Scenario):
    id = "padding"
    chapter = Chapter(9, Text("9 · Padding", "9 · 补齐"))
    title = T
    question = T
    lesson = Lesson(T, T, T, T)
    params = (Param("size", 2, T, T, minimum=1, maximum=8),)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))
    comparisons = (Comparison(Measure.COMPILES, ({"size": 2}, {"size": 3}, {"size": 5})),)
    question_run = QuestionRun("pitfall", ({"size": 2}, {"size": 3}))
    exercises = (
        Exercise(
            id="two-shapes", title=T, question=T, explanation=T, kind=AnswerKind.NUMBER,
            expected=2, snippet=two_shapes, settle=compile_answer,
        ),
    )

    def setup(self, lab, variant):
        probe = lab.probe(lambda x: x + 1)
        if variant == "fix":
            return lambda values: probe(jnp.ones(8))
        return lambda values: probe(jnp.ones(values["size"]))


class Misspelt(Padding):
    id = "misspelt"
    title = "Pad to one shape"


class Raising(Padding):
    id = "raising"

    def setup(self, lab, variant):
        return {}[variant]
"""

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
    assert "test_lesson.py:43: Misspelt.title: must be Text(en, zh)" in out
    # The lesson's own exception, with its line: not a verdict that only says calls failed.
    assert "the scenario's own code raised KeyError" in out
    assert "setup raised it at test_lesson.py:50, in setup: return {}[variant]" in out
    assert "no scenario file or scenario named 'no-such-lesson'" in out
