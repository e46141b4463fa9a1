"""Fault table, strict JSON: no bare NaN or Infinity in what jitlab writes.

The rule: a float that is not finite (NaN, +inf, -inf) is written as ``null``. Bare
``NaN``/``Infinity`` are not JSON, and strict readers (browsers, jq, most languages) reject
the whole line. Values that cannot be finite are refused where they come in instead:
scenario parameters and ``quiz --seconds``.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from environment_lines import program_lines

from jitlab.lab.discovery import scenarios
from jitlab.lab.engine import Run
from jitlab.recordings.reader import read_recording
from jitlab.records.calls import CallKind, CallRecord, Summary, dumps_strict

pytestmark = pytest.mark.slow

JITLAB = Path(sys.executable).with_name("jitlab")
NON_FINITE = ("nan", "NaN", "inf", "-inf", "Infinity", "-infinity", "1e999")


def strict_loads(text: str) -> object:
    """json.loads that refuses NaN/Infinity, as a strict reader does."""

    def refuse(token: str) -> object:
        raise ValueError(f"bare {token} is not JSON")

    return json.loads(text, parse_constant=refuse)


def jitlab(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(JITLAB), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        timeout=300,
    )


# -- the writer ---------------------------------------------------------------------------
def test_dumps_strict_writes_non_finite_floats_as_null():
    class Opaque:
        def __str__(self) -> str:
            return "opaque"

    line = {
        "type": "call",
        "values": [math.nan, math.inf, -math.inf, 1.5, np.float64("nan"), (2, -math.inf)],
        "nested": {"loss": math.nan, "ok": True, "n": 3, "text": "NaN stays a string"},
        "other": Opaque(),
    }
    text = dumps_strict(line)
    assert "\n" not in text
    assert strict_loads(text) == {
        "type": "call",
        "values": [None, None, None, 1.5, None, [2, None]],
        "nested": {"loss": None, "ok": True, "n": 3, "text": "NaN stays a string"},
        "other": "opaque",
    }
    assert dumps_strict({"zh": "编译"}) == '{"zh": "编译"}'  # UTF-8 kept, as watch writes it


def test_records_and_summaries_are_strict_json_themselves():
    """Whoever dumps a record (an export, a plugin) gets strict JSON with plain json.dumps."""
    record = CallRecord(
        index=0,
        function="f",
        kind=CallKind.COMPILE,
        latency_ms=1.0,
        params={"lr": math.nan},
        notes={"loss": math.nan, "history": [1.0, math.inf], "array": np.array([np.nan])},
    )
    data = json.loads(json.dumps(record.to_json(), allow_nan=False))
    assert data["params"] == {"lr": None}
    assert data["notes"]["loss"] is None and data["notes"]["history"] == [1.0, None]
    json.dumps(Summary.of([record]).to_json(), allow_nan=False)


# A real computation that gives NaN and infinity, reported by the scenario's facts().
NAN_PLUGIN = """
import jax
import jax.numpy as jnp

from jitlab.lab.scenario import Lesson, Pitfall, Scenario, Text, Variant

T = Text("x", "x")


class LogOfNegative(Scenario):
    id = "log-of-negative"
    pitfall = Pitfall.SIDE_EFFECTS
    title = T
    question = T
    lesson = Lesson(T, T, T, T)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))

    def setup(self, lab, variant):
        probe = lab.probe(jax.jit(lambda x: (jnp.log(x), 1.0 / (x + 1.0))))
        self.out = None

        def step(values):
            self.out = probe(jnp.float32(-1.0))

        return step

    def facts(self):
        log, inverse = self.out
        return {"log": float(log), "inverse": float(inverse), "both": [float(log), 1.0]}
"""


@pytest.mark.usefixtures("installed_plugins")
def test_run_json_lines_are_strict_when_a_scenario_computes_nan(tmp_path: Path):
    package = tmp_path / "nan_plugin"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(NAN_PLUGIN))
    dist = tmp_path / "nan_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: nan-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[jitlab.scenarios]\nnan = nan_plugin:LogOfNegative\n")
    done = jitlab("run", "log-of-negative", "--json", env={"PYTHONPATH": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    record, summary = [strict_loads(line) for line in done.stdout.splitlines()]
    assert record["kind"] == "compile"
    assert record["notes"] == {"log": None, "inverse": None, "both": [None, 1.0]}
    assert summary["summary"]["calls"] == 1


def test_a_watch_recording_of_nan_values_reads_strictly(tmp_path: Path):
    """A program whose jitted values are NaN and whose static argument is NaN."""
    import jax
    import jax.numpy as jnp

    import jitlab

    path = tmp_path / "run.jsonl"
    with jitlab.watch(path):
        f = jax.jit(lambda x, scale: jnp.log(x) * scale, static_argnums=1)
        f(jnp.float32(-1.0), math.nan).block_until_ready()
        f(jnp.ones(2), math.inf).block_until_ready()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert all(isinstance(strict_loads(line), dict) for line in lines)
    recording, _ = read_recording(path)
    assert len(recording.calls) == 2 and recording.bad_lines == 0


# -- the readers of values that cannot be finite ------------------------------------------
def float_params() -> list[tuple[str, str]]:
    return [(cls.id, p.name) for cls in scenarios().values() for p in cls.params if p.type is float]


def test_every_float_parameter_refuses_nan_and_infinities():
    found = float_params()
    assert found, "no built-in scenario has a float parameter any more"
    for scenario_id, name in found:
        param = scenarios()[scenario_id].param(name)
        for text in NON_FINITE:
            with pytest.raises(ValueError, match=f"^{name} must be"):
                param.parse(text)
        run = Run(scenarios()[scenario_id])
        with pytest.raises(ValueError):
            run.params({name: math.nan})  # the GUI and the engine check too


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "1e999"])
def test_run_refuses_a_non_finite_parameter_in_one_line(text: str):
    scenario_id, name = float_params()[0]
    done = jitlab("run", scenario_id, "--param", f"{name}={text}")
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = program_lines(done.stderr)
    assert line.startswith(f"jitlab: error: {name} must be")


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "-1", "0"])
def test_quiz_seconds_refuses_what_is_not_a_positive_finite_time(text: str):
    done = jitlab("quiz", "--interview", "1", f"--seconds={text}", "--answer", "1")
    assert done.returncode == 2, done.stdout
    (line,) = program_lines(done.stderr)
    assert line.startswith("jitlab: error: --seconds must be")
