"""An array committed to another device: JAX compiles the function again (pjit_test.py's
test_pjit_different_device_recompilation), with no trace event and no explanation: only the
backend compile fires. jitlab must count that compile and name the device, never a hit.

Run in a child process: two CPU devices need XLA_FLAGS set before JAX starts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow

_CHILD = textwrap.dedent(
    """
    import json, logging, os
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
    os.environ["JAX_PLATFORMS"] = "cpu"  # CPU devices, on a GPU machine too
    import jax, jax.numpy as jnp
    from jitlab.records.change_words import reason_text
    from jitlab.probe.probe import Probe
    from jitlab.watching.recorder import watch

    compiles = []  # JAX's own log: one line per backend compile

    class Log(logging.Handler):
        def emit(self, record):
            message = record.getMessage()
            if message.startswith("Finished XLA compilation of jit("):
                compiles.append(message.split("jit(")[1].split(")")[0])

    logging.getLogger("jax").addHandler(Log(logging.DEBUG))
    jax.config.update("jax_log_compiles", True)
    jax.config.update("jax_explain_cache_misses", True)
    a = jax.device_put(jnp.ones(3), jax.devices()[0])
    b = jax.device_put(jnp.ones(3), jax.devices()[1])

    def account(records):
        return [
            (r.kind.value, [(c.kind.value, c.path, c.before, c.after) for c in r.reason.items]
             if r.reason else [], reason_text(r.reason))
            for r in records
        ]

    def probed(x):
        return x

    f = Probe(jax.jit(probed))
    f(a); f(b); f(b); f(a)
    out = {"probe": account(f.records), "probe_cache": f.function._cache_size()}
    out["probe_zh"] = reason_text(f.records[1].reason, "zh")

    with watch() as recorder:
        def watched(x):
            return x

        g = jax.jit(watched)
        g(a); g(b); g(b); g(a)
    out["watch"] = account(c.record for c in recorder.calls if c.record.function == "watched")
    out["watch_cache"] = g._cache_size()
    out["jax"] = compiles
    print("RESULT" + json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def child() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("RESULT")]
    return json.loads(line.removeprefix("RESULT"))


@pytest.mark.parametrize("mode", ["probe", "watch"])
def test_a_call_on_another_device_is_a_recompile_as_jax_logs(child, mode):
    name = {"probe": "probed", "watch": "watched"}[mode]
    assert child["jax"].count(name) == 2  # JAX compiled for device 0, then for device 1
    assert child[f"{mode}_cache"] == 2
    kinds = [kind for kind, _, _ in child[mode]]
    # A watch files compiles only (its hits are counted, not recorded).
    hits = ["cache_hit", "cache_hit"] if mode == "probe" else []
    assert kinds == ["compile", "recompile", *hits]
    assert sum(kind in ("compile", "recompile") for kind in kinds) == child["jax"].count(name)


@pytest.mark.parametrize("mode", ["probe", "watch"])
def test_the_reason_names_the_device(child, mode):
    _, changes, text = child[mode][1]
    assert changes == [["sharding", "x", "cpu:0", "cpu:1"]]
    assert text == "device of x: cpu:1 ← cpu:0"


def test_the_reason_in_chinese(child):
    assert child["probe_zh"] == "x 的设备变了：cpu:1 ← cpu:0"
