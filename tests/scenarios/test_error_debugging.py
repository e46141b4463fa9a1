"""error-debugging: four real failures, each taken apart, replayed eagerly, and fixed."""

from __future__ import annotations

import pytest

from jitlab.lab.discovery import scenarios
from jitlab.lab.engine import Run
from jitlab.records.calls import CallKind

EXPECTED = {
    "control-flow": ("TracerBoolConversionError", "control-flow", "center"),
    "concrete-value": ("ConcretizationTypeError", "concrete-value", "tile_rows"),
    "shape": ("TypeError", "shape", "project"),
    "static-argument": ("ValueError", "static-argument", "call_broken"),
}


@pytest.fixture(scope="module")
def cls():
    return scenarios()["error-debugging"]


@pytest.fixture(scope="module")
def pitfall(cls):
    run = Run(cls, "pitfall")
    facts = {}
    for error in EXPECTED:
        record = run.step({"error": error})
        facts[error] = (record, run.scenario.facts())
    return facts


@pytest.mark.parametrize("error", list(EXPECTED))
def test_each_error_is_real_and_dissected(pitfall, error):
    record, facts = pitfall[error]
    error_type, category, innermost = EXPECTED[error]
    assert record.kind is CallKind.ERROR
    assert record.error.type == error_type
    anatomy = facts["anatomy"]
    assert anatomy["category"] == category
    assert anatomy["stack"][-1]["function"] == innermost
    assert all("site-packages" not in frame["file"] for frame in anatomy["stack"])
    assert anatomy["fix"]["en"] and anatomy["fix"]["zh"]
    assert facts["fixed_jaxpr"].startswith("{ lambda")


def test_tracing_context_and_abstract_values(pitfall):
    _, facts = pitfall["control-flow"]
    context = facts["anatomy"]["context"]
    assert context["function"] == "center" and context["arguments"] == ["x"]
    values = [v["text"] for v in facts["anatomy"]["abstract_values"]]
    assert "float32[8,32]" in values  # x, as the seed's example: float32[8, 32]
    _, facts = pitfall["concrete-value"]
    assert facts["anatomy"]["context"]["arguments"] == ["n"]
    _, facts = pitfall["shape"]
    shapes = [v["text"] for v in facts["anatomy"]["abstract_values"]]
    assert "(32,)" in shapes and "(4,)" in shapes and "float32[4,32]" in shapes


def test_disable_jit_replay(pitfall):
    # A real bug fails again, at the plain Python line; tracing errors vanish without jit.
    shape = pitfall["shape"][1]["eager"]
    assert not shape["ok"] and "project" in shape["frame"] and "x @ w" in shape["frame"]
    for error in ("control-flow", "concrete-value", "static-argument"):
        assert pitfall[error][1]["eager"]["ok"], error


def test_fixed_jaxprs_show_the_fix(pitfall):
    assert "select_n" in pitfall["control-flow"][1]["fixed_jaxpr"]  # jnp.where in the graph
    assert "f32[24,32]" in pitfall["concrete-value"][1]["fixed_jaxpr"]  # 8 rows × n=3
    assert "transpose" in pitfall["shape"][1]["fixed_jaxpr"]


def test_fix_variant_compiles_once_each_then_hits(cls):
    run = Run(cls, "fix")
    records = run.play({"error": error} for error in EXPECTED for _ in range(2))
    assert [r.kind.value for r in records] == ["compile", "cache_hit"] * 4
    assert [r.function for r in records[::2]] == [
        "center_fixed",
        "tile_rows_fixed",
        "project_fixed",
        "apply_gains_fixed",
    ]
    assert run.scenario.facts()["anatomy"] is None


def test_probe_does_not_call_an_eager_run_a_cache_hit():
    import jax
    import jax.numpy as jnp

    from jitlab.probe.probe import Probe

    probe = Probe(lambda x: x * 2)
    with jax.disable_jit():
        probe(jnp.ones(3))
    assert probe.last.kind is not CallKind.CACHE_HIT
