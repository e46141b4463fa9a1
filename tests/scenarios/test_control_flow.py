"""control-flow: if on a tracer fails, lax.cond / jnp.where / a static if work, and a Python
loop is unrolled into the graph while lax.scan keeps one copy. Real JAX throughout; the
loop comparison asserts on graph sizes, not on timings."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jax
import numpy as np
import pytest

from jitlab.cli import main
from jitlab.lab.discovery import scenarios
from jitlab.lab.engine import Run
from jitlab.records.calls import CallKind
from jitlab.records.change_words import reason_words

pytestmark = pytest.mark.slow

SCENARIO = "control-flow"


@pytest.fixture(scope="module")
def cls():
    return scenarios()[SCENARIO]


@pytest.fixture(scope="module")
def module(cls):
    return sys.modules[cls.__module__]


def kinds(run):
    return [r.kind for r in run.records]


def lines(record, when):
    return [line.text for line in record.stdout if line.when == when]


def test_pitfall_python_if_on_a_tracer_is_an_error_record(cls):
    run = Run(cls, "pitfall")
    record = run.step({"x": 3.0})
    assert record.kind is CallKind.ERROR
    assert record.error.type == "TracerBoolConversionError"
    assert isinstance(record.error.exception, jax.errors.TracerBoolConversionError)
    assert "argument x" in record.error.message
    assert run.step({"x": -3.0}).kind is CallKind.ERROR  # nothing was cached


def test_fix_lax_cond_traces_both_branches_runs_one(cls):
    run = Run(cls, "fix")
    for x in (3.0, -2.0, 0.5):
        run.step({"x": x})
    assert kinds(run) == [CallKind.COMPILE, CallKind.CACHE_HIT, CallKind.CACHE_HIT]
    first = run.records[0]
    # Printed lines in names and values, no English prose (issue 42: English under --lang zh)
    assert lines(first, "trace") == ["positive()", "negative()"]
    assert lines(first, "runtime") == ["positive(): x = 3.0"]
    assert lines(run.records[1], "runtime") == ["negative(): x = -2.0"]
    assert lines(run.records[2], "runtime") == ["positive(): x = 0.5"]
    assert all(not lines(r, "trace") for r in run.records[1:])
    assert run.scenario.facts()["result"] == [1.0]


def test_lax_cond_has_both_branches_in_the_jaxpr(module):
    closed = jax.make_jaxpr(module.sign_cond)(3.0)
    conds = [e for e in closed.jaxpr.eqns if e.primitive.name == "cond"]
    assert len(conds) == 1 and len(conds[0].params["branches"]) == 2
    text = str(closed)
    assert "positive(): x =" in text and "negative(): x =" in text
    f = jax.jit(module.sign_cond)
    assert float(f(3.0)) == 1.0 and float(f(-2.0)) == -1.0


def test_where_chooses_per_element(cls):
    run = Run(cls, "where")
    run.play([{"x": 3.0}, {"x": -1.0}])
    assert kinds(run) == [CallKind.COMPILE, CallKind.CACHE_HIT]
    # xs = x * [-1, -0.5, 0, 0.5, 1]; zero is not > 0.
    assert run.scenario.facts()["result"] == [1.0, 1.0, -1.0, -1.0, -1.0]


def test_static_if_compiles_per_value_with_only_that_branch(cls, module):
    run = Run(cls, "static-if")
    for x, kind in ((3.0, "relu"), (-1.0, "relu"), (3.0, "tanh"), (2.0, "relu")):
        run.step({"x": x, "activation": kind})
    assert kinds(run) == [
        CallKind.COMPILE,
        CallKind.CACHE_HIT,
        CallKind.RECOMPILE,
        CallKind.CACHE_HIT,
    ]
    assert "static kind: 'tanh' ← 'relu'" in reason_words(run.records[2].reason)
    np.testing.assert_allclose(run.scenario.facts()["result"], [0.0, 0.0, 0.0, 1.0, 2.0])
    xs = np.ones(5, np.float32)
    relu = jax.make_jaxpr(module.activate, static_argnums=1)(xs, "relu")
    tanh = jax.make_jaxpr(module.activate, static_argnums=1)(xs, "tanh")
    assert {e.primitive.name for e in relu.jaxpr.eqns} == {"max"}
    assert {e.primitive.name for e in tanh.jaxpr.eqns} == {"tanh"}


def test_unrolled_graph_grows_with_steps_scan_stays_flat(module):
    h = np.zeros(module.WIDTH, np.float32)
    w = module.recurrent_weights()
    sizes = {}
    for name, fn in (("unrolled", module.rnn_unrolled), ("scan", module.rnn_scan)):
        sizes[name] = {
            steps: len(jax.make_jaxpr(fn, static_argnums=2)(h, w, steps).jaxpr.eqns)
            for steps in (4, 8, 16)
        }
    assert sizes["unrolled"][8] == 2 * sizes["unrolled"][4]
    assert sizes["unrolled"][16] == 4 * sizes["unrolled"][4]
    assert sizes["scan"][4] == sizes["scan"][8] == sizes["scan"][16] == 1
    # What XLA is handed grows the same way: the lowered StableHLO text.
    hlo = {
        (name, steps): len(jax.jit(fn, static_argnums=2).lower(h, w, steps).as_text())
        for name, fn in (("unrolled", module.rnn_unrolled), ("scan", module.rnn_scan))
        for steps in (4, 16)
    }
    assert hlo[("unrolled", 16)] > 3 * hlo[("unrolled", 4)]
    assert abs(hlo[("scan", 16)] - hlo[("scan", 4)]) <= 8  # only the trip count changes
    # Same numbers either way.
    np.testing.assert_allclose(
        jax.jit(module.rnn_unrolled, static_argnums=2)(h + 0.5, w, 16),
        jax.jit(module.rnn_scan, static_argnums=2)(h + 0.5, w, 16),
        rtol=1e-5,
        atol=1e-6,
    )


def test_loop_variants_through_the_engine(cls):
    graph = {}
    for variant in ("unrolled-loop", "scan", "fori-loop"):
        run = Run(cls, variant)
        graph[variant] = []
        for steps in (2, 4, 8):
            run.step({"steps": steps, "x": 0.5})
            graph[variant].append(run.scenario.facts()["graph_equations"])
        if variant == "fori-loop":
            assert kinds(run) == [CallKind.COMPILE, CallKind.CACHE_HIT, CallKind.CACHE_HIT]
        else:  # steps is static for both: each new length compiles once
            assert kinds(run) == [CallKind.COMPILE, CallKind.RECOMPILE, CallKind.RECOMPILE]
            assert "static steps: 4 ← 2" in reason_words(run.records[1].reason)
    assert graph["unrolled-loop"] == [6, 12, 24]  # dot, add, tanh per step
    assert graph["scan"][0] == graph["scan"][1] == graph["scan"][2]
    assert graph["fori-loop"][0] == graph["fori-loop"][2]


def test_code_shown_is_the_code_that_runs(cls):
    scenario = cls()
    assert "if x > 0:" in scenario.source("pitfall")
    assert "lax.cond(x > 0, positive, negative, x)" in scenario.source("fix")
    assert "jnp.where" in scenario.source("where")
    assert 'if kind == "relu"' in scenario.source("static-if")
    assert "for _ in range(steps)" in scenario.source("unrolled-loop")
    assert "lax.scan" in scenario.source("scan")
    assert "lax.fori_loop" in scenario.source("fori-loop")


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        ("pitfall", ["error", "error"]),
        ("fix", ["compile", "cache_hit"]),
        ("where", ["compile", "cache_hit"]),
        ("static-if", ["compile", "cache_hit"]),
        ("unrolled-loop", ["compile", "cache_hit"]),
        ("scan", ["compile", "cache_hit"]),
        ("fori-loop", ["compile", "cache_hit"]),
    ],
)
def test_cli_runs_each_variant_json(variant, expected, capsys):
    argv = ["run", SCENARIO, "--variant", variant, "--param", "x=1,-1", "--param", "steps=4"]
    assert main([*argv, "--json"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [c["kind"] for c in out[:-1]] == expected
    if variant == "pitfall":
        assert out[0]["error"]["type"] == "TracerBoolConversionError"


def test_cli_subprocess_list_and_run():
    env = {**os.environ, "COLUMNS": "200"}
    listing = subprocess.run(
        [sys.executable, "-m", "jitlab.cli", "list"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert listing.returncode == 0, listing.stderr
    assert SCENARIO in listing.stdout
    played = subprocess.run(
        [sys.executable, "-m", "jitlab.cli", "run", SCENARIO, "--variant", "fix", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert played.returncode == 0, played.stderr
    records = [json.loads(line) for line in played.stdout.splitlines()[:-1]]
    assert [r["kind"] for r in records] == ["compile", "cache_hit", "cache_hit"]
