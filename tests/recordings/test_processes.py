"""Probe behaviour that needs a fresh process: simulated devices and the persistent cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def run_python(code: str, env: dict[str, str] | None = None) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def test_sharding_change_recompiles_without_a_tracing_miss_and_is_named():
    records = run_python(
        """
        import json
        import jax, jax.numpy as jnp, numpy as np
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
        from jitlab import Probe
        from jitlab.records.change_words import call_json

        assert len(jax.devices()) == 8
        mesh = Mesh(np.array(jax.devices()), ("x",))  # Auto axes: sharding not in the type
        probe = Probe(lambda x: x * 2)
        a = jnp.ones((16, 8))
        probe(a)
        probe(jax.device_put(a, NamedSharding(mesh, P("x"))))
        probe(jax.device_put(a, NamedSharding(mesh, P(None, "x"))))
        probe(jax.device_put(a, NamedSharding(mesh, P("x"))))
        for r in probe.records:
            print(json.dumps(call_json(r)))
        """,
        env={"XLA_FLAGS": "--xla_force_host_platform_device_count=8", "JAX_PLATFORMS": "cpu"},
    )
    assert [r["kind"] for r in records] == ["compile", "recompile", "recompile", "cache_hit"]
    for r in records[1:3]:
        assert any(c.startswith("sharding of x changed") for c in r["reason"]["changes"])
    # Between two shardings of the same mesh JAX neither retraces nor explains: only
    # jitlab's own signature ledger can name the cause.
    assert records[2]["trace_ms"] == 0 and records[2]["lower_ms"] > 0
    assert records[2]["reason"]["jax"] is None
    assert records[1]["signature"]["args"][0]["sharding"] == "P('x',) on mesh(x=8)"
    assert records[0]["signature"]["args"][0]["sharding"] is None


PERSISTENT = """
import json, sys
import jax, jax.numpy as jnp
jax.config.update("jax_compilation_cache_dir", sys.argv[1])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
from jitlab import Probe
from jitlab.records.change_words import call_json

def model(x):
    for _ in range(3):
        x = jnp.tanh(x @ x.T) @ x
    return x.sum()

probe = Probe(model)
probe(jnp.ones((32, 32)))
probe(jnp.ones((32, 32)))
for r in probe.records:
    print(json.dumps(call_json(r)))
"""


def test_persistent_cache_hit_in_a_second_process(tmp_path: Path):
    def run() -> list[dict]:
        done = subprocess.run(
            [sys.executable, "-c", PERSISTENT, str(tmp_path / "cache")],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in done.stdout.splitlines()]

    cold = run()
    warm = run()
    assert [r["kind"] for r in cold] == ["compile", "cache_hit"]
    assert [r["kind"] for r in warm] == ["persistent_hit", "cache_hit"]
    assert warm[0]["trace_ms"] > 0 and warm[0]["lower_ms"] > 0  # still traced and lowered
    assert "persistent cache" in warm[0]["reason"]["text"]
    assert any((tmp_path / "cache").iterdir())
