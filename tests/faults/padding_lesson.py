"""A small, complete lesson as source text, for the tests of `jitlab check` and of the
``jitlab_lesson`` fixture: padding to one shape compiles once where raw sizes compile per
size. ``EXPECTED`` (the exercise's expected answer) and ``FIX_PADS`` are filled in by each
test; its texts hold "[red]…[/red]" to show they are printed, never rendered as markup."""

from __future__ import annotations

PADDING = """
import jax.numpy as jnp

from jitlab.lab.scenario import (
    AnswerKind, Chapter, Comparison, Exercise, Lesson, Measure, Param, QuestionRun, Scenario,
    Text, Variant, compile_answer,
)

T = Text("[red]not markup[/red]", "不是标记")


def two_shapes(lab):
    f = lab.jit(lambda x: x * 2)
    f(jnp.ones(2))
    f(jnp.ones(3))


class Padding(Scenario):
    id = "padding"
    chapter = Chapter(9, Text("9 · Padding", "9 · 补齐"))
    title = Text("Pad to one shape", "补齐到同一形状")
    question = T
    lesson = Lesson(T, T, T, T)
    params = (Param("size", 2, T, T, minimum=1, maximum=8),)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))
    comparisons = (Comparison(Measure.COMPILES, ({"size": 2}, {"size": 3}, {"size": 5})),)
    question_run = QuestionRun("pitfall", ({"size": 2}, {"size": 3}))
    exercises = (
        Exercise(
            id="two-shapes",
            title=T,
            question=T,
            explanation=T,
            kind=AnswerKind.NUMBER,
            expected=EXPECTED,
            snippet=two_shapes,
            settle=compile_answer,
        ),
    )

    def setup(self, lab, variant):
        probe = lab.probe(lambda x: x + 1)
        if variant == "fix" and FIX_PADS:
            return lambda values: probe(jnp.ones(8))
        return lambda values: probe(jnp.ones(values["size"]))
"""


def padding(expected: int = 2, fix_pads: bool = True) -> str:
    """The lesson's source, its exercise expecting ``expected``; its fix pads or not."""
    return PADDING.replace("EXPECTED", str(expected)).replace("FIX_PADS", str(fix_pads))
