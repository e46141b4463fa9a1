"""static-args: traced n fails, static n works and compiles per value, arrays are refused,
and a hashable value marked static compiles once per distinct value. Real JAX throughout."""

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

SCENARIO = "static-args"


@pytest.fixture(scope="module")
def cls():
    return scenarios()[SCENARIO]


@pytest.fixture(scope="module")
def module(cls):
    return sys.modules[cls.__module__]


def kinds(run):
    return [r.kind for r in run.records]


def test_pitfall_traced_n_is_a_concretization_error_record(cls):
    run = Run(cls, "pitfall")
    record = run.step({"n": 3})
    assert record.kind is CallKind.ERROR
    assert record.error.type == "ConcretizationTypeError"
    assert isinstance(record.error.exception, jax.errors.ConcretizationTypeError)
    assert "argument n" in record.error.message  # JAX names the argument whose value it needed
    assert record.trace_ms > 0  # it failed while tracing, before anything was compiled
    assert run.scenario.facts()["result"] is None
    # A failed trace leaves nothing cached: the next call fails the same way.
    assert run.step({"n": 3}).kind is CallKind.ERROR
    assert run.cards == []
    # Nothing compiled, so no count of JAX's cache is offered as a fact (issue 42: Output said
    # "JAX's own cache holds 1 compiled program" after this call).
    assert "jax_cache_size" not in run.scenario.facts()


def test_fix_static_n_returns_the_repeats(cls):
    run = Run(cls, "fix")
    record = run.step({"n": 3, "scale": 1.0})
    assert record.kind is CallKind.COMPILE
    np.testing.assert_array_equal(run.scenario.facts()["result"], [1, 1, 1, 2, 2, 2])
    assert dict(record.signature.statics) == {"n": "3"}


def test_fix_compiles_once_per_distinct_n(cls):
    run = Run(cls, "fix")
    for n in (3, 4, 3, 2, 4, 2, 3):
        run.step({"n": n})
    assert kinds(run) == [
        CallKind.COMPILE,
        CallKind.RECOMPILE,
        CallKind.CACHE_HIT,
        CallKind.RECOMPILE,
        CallKind.CACHE_HIT,
        CallKind.CACHE_HIT,
        CallKind.CACHE_HIT,
    ]
    assert len(run.cards) == 3
    assert run.scenario.facts()["jax_cache_size"] == 3  # JAX's own cache agrees
    assert "static n: 4 ← 3" in reason_words(run.records[1].reason)


def test_fix_traced_scale_never_recompiles(cls):
    run = Run(cls, "fix")
    for scale in (1.0, 1.5, 2.0, 7.25):
        run.step({"n": 2, "scale": scale})
    assert kinds(run) == [CallKind.COMPILE] + [CallKind.CACHE_HIT] * 3
    np.testing.assert_allclose(run.scenario.facts()["result"], [7.25, 7.25, 14.5, 14.5])


def test_static_array_is_refused_as_unhashable(cls):
    run = Run(cls, "static-array")
    record = run.step({"n": 3, "scale": 2.0})
    assert record.kind is CallKind.ERROR
    assert record.error.type == "ValueError"
    assert "Non-hashable static arguments" in record.error.message
    assert "unhashable type" in record.error.message
    assert record.trace_ms == 0  # refused before any tracing


def test_static_float_recompiles_for_every_distinct_value(cls):
    run = Run(cls, "static-explosion")
    scales = (1.0, 1.5, 2.0, 2.5, 3.0, 1.5)
    for scale in scales:
        run.step({"n": 3, "scale": scale})
    assert kinds(run) == [CallKind.COMPILE] + [CallKind.RECOMPILE] * 4 + [CallKind.CACHE_HIT]
    assert run.scenario.facts()["jax_cache_size"] == 5
    assert "static scale: 1.5 ← 1.0" in reason_words(run.records[1].reason)
    np.testing.assert_allclose(run.scenario.facts()["result"], [1.5] * 3 + [3.0] * 3)


def test_a_tuple_marked_static_also_compiles_per_distinct_value(module):
    # The “make the array hashable” workaround: the same explosion, one program per content.
    # JAX's cache for a function is shared by every jax.jit of it: count from a clean start.
    jax.clear_caches()
    f = module.jit_n_and_scale_static()
    for factors in ((1.0, 1.0), (1.0, 2.0), (1.0, 1.0), (3.0, 2.0)):
        f(module.X, n=2, scale=factors)
    assert f._cache_size() == 3
    # The same factors as a traced array: one program serves every content.
    jax.clear_caches()
    traced = module.jit_n_static()
    for scale in (1.0, 2.0, 3.0):
        traced(module.X, n=2, scale=np.full(2, scale, np.float32))
    assert traced._cache_size() == 1


def test_code_shown_is_the_code_that_runs(cls):
    scenario = cls()
    assert "jnp.repeat" in scenario.source("pitfall")
    assert 'static_argnames=("n",)' in scenario.source("fix")
    assert 'static_argnames=("n", "scale")' in scenario.source("static-array")
    assert "float(scale)" in scenario.source("static-explosion")


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        ("pitfall", ["error", "error"]),
        ("fix", ["compile", "recompile"]),
        ("static-array", ["error", "error"]),
        ("static-explosion", ["compile", "recompile"]),
    ],
)
def test_cli_runs_each_variant_json(variant, expected, capsys):
    argv = ["run", SCENARIO, "--variant", variant, "--param", "n=2,3", "--param", "scale=1,2"]
    assert main([*argv, "--json"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [c["kind"] for c in out[:-1]] == expected
    if expected[0] == "error":
        assert out[0]["error"]["type"] in ("ConcretizationTypeError", "ValueError")


def test_cli_subprocess_list_and_autoplay():
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
    assert [r["kind"] for r in records] == [
        "compile",
        "recompile",
        "cache_hit",
        "recompile",
        "cache_hit",
    ]
