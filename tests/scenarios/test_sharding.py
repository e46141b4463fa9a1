"""sharding: a layout change recompiles with no tracing miss; jitlab names it; the fix holds.

The pytest process has one CPU device (its backend started long ago), so the real runs go
through the CLI in a subprocess, which asks XLA for 8 devices before JAX starts.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from jitlab.lab.discovery import scenarios
from jitlab.lab.engine import Run
from jitlab.records.calls import CallKind

pytestmark = pytest.mark.slow

LAYOUTS = "rows,rows,features,rows,replicated,rows"


def cli_run(variant: str, layouts: str = LAYOUTS) -> list[dict]:
    command = [sys.executable, "-m", "jitlab.cli", "run", "sharding", "--variant", variant]
    params = ["--param", f"layout={layouts}", "--param", "depth=2", "--param", "rows=64"]
    done = subprocess.run(
        [*command, "--json", *params],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert "summary" in lines[-1]
    return lines[:-1]


@pytest.fixture(scope="module")
def pitfall():
    return cli_run("pitfall")


def test_pitfall_recompiles_per_layout(pitfall):
    assert [r["kind"] for r in pitfall] == [
        "compile",
        "cache_hit",
        "recompile",
        "cache_hit",
        "recompile",
        "cache_hit",
    ]
    shardings = [arg["sharding"] for arg in pitfall[2]["signature"]["args"] if arg["path"] == "x"]
    assert shardings == ["P(None, 'data') on mesh(data=8)"]
    # The scenario's facts travel with the record as notes.
    notes = pitfall[2]["notes"]
    assert notes["devices"] == 8 and notes["layout_arrived"] == "P(None, 'data')"
    assert notes["shard_shape"] == [64, 8]  # 64 features split over 8 devices


def test_sharding_recompile_is_silent_in_jax_and_named_by_jitlab(pitfall):
    for record in (pitfall[2], pitfall[4]):
        reason = record["reason"]
        # No tracing miss: JAX neither retraced nor explained; only lowering + compile ran.
        assert reason["jax"] is None or "TRACING CACHE MISS" not in reason["jax"]
        assert record["trace_ms"] == 0.0
        assert record["compile_ms"] > 0.0
        assert any(change.startswith("sharding of x changed") for change in reason["changes"])
    assert "P() on mesh(data=8) ← P(None, 'data') on mesh(data=8)" in pitfall[4]["reason"]["text"]


def test_fix_compiles_once_whatever_arrives():
    records = cli_run("fix", "rows,features,replicated,single,rows")
    assert [r["kind"] for r in records] == ["compile"] + ["cache_hit"] * 4


def test_explicit_axes_jax_explains_the_type_change():
    records = cli_run("explicit-axes", "rows,features")
    assert [r["kind"] for r in records] == ["compile", "recompile"]
    assert "TRACING CACHE MISS" in (records[1]["reason"]["jax"] or "")
    assert records[1]["reason"]["changes"][0].startswith("sharding of x changed")


def test_one_device_gives_a_clear_error():
    import jax

    if jax.device_count() >= 2:
        pytest.skip("this process already has several devices")
    record = Run(scenarios()["sharding"], "pitfall").step()
    assert record.kind is CallKind.ERROR
    assert "at least 2 devices" in record.error.message
    assert "xla_force_host_platform_device_count" in record.error.message
