"""The scripts jobs the app's executor runs (jitlab.lab.jobs), without Qt: a card's script,
its texts printed later, two cards compared. Real JAX, a real engine Run; what a script says
is checked against what JAX itself traces and lowers for the same shapes."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jitlab.lab import jobs
from jitlab.lab.engine import Run
from jitlab.lab.scenario import Lesson, Param, Pitfall, Scenario, Text, Variant

T = Text("x", "x")


def square(x):
    return x * x


class Square(Scenario):
    """Each new ``n`` is a new shape: a card of its own."""

    id = "jobs-square"
    pitfall = Pitfall.DYNAMIC_SHAPES
    title = Text("Squares", "平方")
    question = T
    lesson = Lesson(T, T, T, T)
    params = (Param("n", 4, Text("n", "n"), T, minimum=1, maximum=100),)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))

    def setup(self, lab, variant):
        f = lab.probe(square)
        return lambda values: f(jnp.ones(values["n"]))


@pytest.fixture
def run() -> Run:
    """Calls with n = 3, 5, 3: two compiles (cards 0 and 1), then a cache hit on card 0."""
    run = Run(Square)
    for n in (3, 5, 3):
        run.step({"n": n})
    return run


def card_of(run: Run, n: int) -> tuple[str, int, int]:
    """(function, card, created_by) of the card the call with ``n`` compiled, as the GUI
    knows it from the call's record."""
    record = next(r for r in run.records if r.params["n"] == n and r.kind.compiled)
    assert record.card is not None
    return record.function, record.card, record.index


def jaxpr_of(n: int) -> str:
    return str(jax.make_jaxpr(square)(jnp.ones(n)))


def test_a_cards_script_is_the_program_jax_traces_for_its_shapes(run) -> None:
    for n in (3, 5):
        made = jobs.card_script(run, *card_of(run, n))
        assert made.why == "" and made.script is not None
        assert made.script.jaxpr == jaxpr_of(n)
        assert made.script.stablehlo == jax.jit(square).lower(jnp.ones(n)).as_text()


def test_a_windows_script_leaves_texts_out_and_each_is_printed_on_its_own(run) -> None:
    key = card_of(run, 5)
    first = jobs.card_script(run, *key, view=True)
    assert first.script is not None
    assert first.script.jaxpr is None and first.script.stablehlo is None
    assert {"jaxpr", "stablehlo"} <= set(first.script.deferred)
    printed = jobs.part_script(run, *key, first.script, "jaxpr")
    assert printed.script is not None and printed.script.jaxpr == jaxpr_of(5)
    assert "jaxpr" not in printed.script.deferred and printed.script.stablehlo is None
    both = jobs.part_script(run, *key, printed.script, "stablehlo")
    assert both.script is not None
    assert both.script.stablehlo == jax.jit(square).lower(jnp.ones(5)).as_text()
    assert both.script.jaxpr == jaxpr_of(5)  # the text printed before is kept


def test_two_cards_compared_differ_in_their_shapes_and_one_with_itself_in_nothing(run) -> None:
    three, five = card_of(run, 3), card_of(run, 5)
    compared = jobs.compare_scripts(run, three, five)
    assert compared.diff is not None and not compared.diff.same_jaxpr
    removed = [line[1:] for line in compared.diff.jaxpr_diff.splitlines() if line[:2] == "-{"]
    added = [line[1:] for line in compared.diff.jaxpr_diff.splitlines() if line[:2] == "+{"]
    assert removed == [jaxpr_of(3)] and added == [jaxpr_of(5)]
    # The same comparison of scripts already made (the GUI keeps them across a switch).
    again = jobs.diff_made(compared.before, compared.after)
    assert again.diff is not None and again.diff.jaxpr_diff == compared.diff.jaxpr_diff
    same = jobs.compare_scripts(run, three, three)
    assert same.diff is not None and same.diff.same_jaxpr and same.diff.jaxpr_diff == ""


def test_a_card_gone_from_the_holder_has_no_script_and_says_why(run) -> None:
    three, five = card_of(run, 3), card_of(run, 5)
    kept = jobs.card_script(run, *three), jobs.card_script(run, *five)
    run.reset()  # the card holder empties (JAX's caches are cleared before the next call)
    gone = jobs.card_script(run, *three)
    assert gone.script is None and gone.why == jobs.GONE
    compared = jobs.compare_scripts(run, three, five)
    assert compared.diff is None and compared.before.why == compared.after.why == jobs.GONE
    assert jobs.part_script(run, *five, kept[1].script, "hlo").why == jobs.GONE
    # Scripts made before the reset still compare: no JAX is needed for that.
    assert jobs.diff_made(*kept).diff is not None
    # Before any scenario is chosen there is no run at all.
    assert jobs.card_script(None, *three).why == jobs.GONE
