"""side-effects: Python side effects happen at trace time; the fixes work on every call.

Real JAX throughout: the records come from probed calls, the facts from the module state.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from jitlab.cli import main
from jitlab.lab.discovery import scenarios
from jitlab.lab.engine import Run
from jitlab.records.calls import CallKind

pytestmark = pytest.mark.slow

SCENARIO = "side-effects"


@pytest.fixture(scope="module")
def cls():
    return scenarios()[SCENARIO]


def kinds(run):
    return [r.kind for r in run.records]


def lines(record, when):
    return [line.text for line in record.stdout if line.when == when]


def test_pitfall_print_once_counter_one_list_one_tracer(cls):
    run = Run(cls, "pitfall")
    for scale in (1.0, 2.0, 3.0, 4.0, 5.0):
        run.step({"length": 4, "scale": scale})
    assert kinds(run) == [CallKind.COMPILE] + [CallKind.CACHE_HIT] * 4
    trace_lines = [text for r in run.records for text in lines(r, "trace")]
    assert len(trace_lines) == 1 and "counter = 1" in trace_lines[0]
    assert all(not r.stdout for r in run.records[1:])  # silence after the first call
    facts = run.scenario.facts()
    assert facts["counter"] == 1
    assert len(facts["seen"]) == 1 and "Tracer" in facts["seen"][0]
    assert "float32[4]" in facts["seen"][0]
    # The program itself is right: it is only the Python side effects that are gone.
    assert facts["result"] == [10.0, 20.0, 30.0, 40.0]


def test_pitfall_new_shape_retraces_and_side_effects_happen_again(cls):
    run = Run(cls, "pitfall")
    run.play([{"length": 4}, {"length": 4}, {"length": 8}, {"length": 4}])
    assert kinds(run) == [
        CallKind.COMPILE,
        CallKind.CACHE_HIT,
        CallKind.RECOMPILE,
        CallKind.CACHE_HIT,
    ]
    assert "counter = 2" in lines(run.records[2], "trace")[0]
    facts = run.scenario.facts()
    assert facts["counter"] == 2 and len(facts["seen"]) == 2


def test_a_new_run_starts_from_clean_state(cls):
    run = Run(cls, "pitfall")
    run.play([{}, {}])
    again = Run(cls, "pitfall")
    again.step({})
    assert again.records[0].kind is CallKind.COMPILE  # caches cleared: traced anew
    assert again.scenario.facts()["counter"] == 1


def test_fix_debug_print_every_call_and_count_returned(cls):
    run = Run(cls, "fix")
    for scale in (1.0, 2.0, 3.0, 4.0, 5.0):
        run.step({"length": 4, "scale": scale})
    assert kinds(run) == [CallKind.COMPILE] + [CallKind.CACHE_HIT] * 4
    for number, record in enumerate(run.records, start=1):
        runtime = lines(record, "runtime")
        assert len(runtime) == 1
        assert f"x[0] = {float(number)}" in runtime[0]
        assert f"count = {number}" in runtime[0]
        assert not lines(record, "trace")
    assert run.scenario.facts()["count"] == 5


def test_global_read_is_frozen_until_a_retrace(cls):
    run = Run(cls, "global-read")
    results = []
    for length, scale in ((4, 1.0), (4, 2.0), (4, 3.0), (8, 3.0), (4, 3.0)):
        run.step({"length": length, "scale": scale})
        results.append(run.scenario.facts()["result"][0])
    assert kinds(run) == [
        CallKind.COMPILE,
        CallKind.CACHE_HIT,
        CallKind.CACHE_HIT,
        CallKind.RECOMPILE,
        CallKind.CACHE_HIT,
    ]
    # x[0] is 1: the result is the scale the program was traced with, not the global.
    assert results == [1.0, 1.0, 1.0, 3.0, 1.0]
    assert run.scenario.facts()["SCALE"] == 3.0
    printed = [lines(r, "runtime")[0] for r in run.records]
    assert printed[1].endswith("SCALE = 1.0")  # the global is 2.0 by now
    assert printed[3].endswith("SCALE = 3.0")


def test_global_arg_follows_every_value_with_one_compile(cls):
    run = Run(cls, "global-arg")
    results = []
    for scale in (1.0, 2.0, 3.0, -1.5):
        run.step({"length": 4, "scale": scale})
        results.append(run.scenario.facts()["result"])
    assert kinds(run) == [CallKind.COMPILE] + [CallKind.CACHE_HIT] * 3
    np.testing.assert_allclose([r[0] for r in results], [1.0, 2.0, 3.0, -1.5])
    assert len(run.cards) == 1


def test_code_shown_is_the_code_that_runs(cls):
    scenario = cls()
    assert "counter += 1" in scenario.source("pitfall")
    assert "seen.append(x)" in scenario.source("pitfall")
    assert "jax.debug.print" in scenario.source("fix")
    assert "return x * 2, count + 1" in scenario.source("fix")
    assert "x * SCALE" in scenario.source("global-read")
    assert "scale" in scenario.source("global-arg")


@pytest.mark.parametrize("variant", ["pitfall", "fix", "global-read", "global-arg"])
def test_cli_runs_each_variant_json(variant, capsys):
    assert main(["run", SCENARIO, "--variant", variant, "--param", "scale=1,2", "--json"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    calls, summary = out[:-1], out[-1]["summary"]
    assert [c["kind"] for c in calls] == ["compile", "cache_hit"]
    assert summary["calls"] == 2 and summary["errors"] == 0


def test_cli_subprocess_list_and_autoplay():
    listing = subprocess.run(
        [sys.executable, "-m", "jitlab.cli", "list"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert listing.returncode == 0, listing.stderr
    assert SCENARIO in listing.stdout
    played = subprocess.run(
        [sys.executable, "-m", "jitlab.cli", "run", SCENARIO, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert played.returncode == 0, played.stderr
    records = [json.loads(line) for line in played.stdout.splitlines()[:-1]]
    trace_lines = [o for r in records for o in r["stdout"] if o["when"] == "trace"]
    # Autoplay of the pitfall: six calls, two traces (length 4, then length 8).
    assert len(records) == 6 and len(trace_lines) == 2
