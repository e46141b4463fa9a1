"""A jitted function called from a host callback of another jitted function (issue 51 row 6):
``jax.pure_callback``, ``jax.experimental.io_callback`` and ``jax.debug.callback`` run the
program's Python while the outer call runs (on CPU, on the calling thread, inside it). A call
made there is a call of its own, not one inlined into the outer function's trace: its
compiles are recorded as JAX's own log (``JAX_LOG_COMPILES``) counts them, whether the outer
call compiled in that call or was a cache hit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

JITLAB = [sys.executable, "-m", "jitlab.cli"]
TIMEOUT = 300

PROGRAM = """
import sys
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental import io_callback

@jax.jit
def helper(x):
    return x * 3

sizes = iter([2, 3, 3, 5, 6, 6, 7])

def host(x):  # the program's Python, run while the outer call runs
    helper(jnp.ones(next(sizes), jnp.float32))  # a new shape: a compile, or a hit
    return np.asarray(helper(jnp.asarray(x)))

KIND = sys.argv[1]

@jax.jit
def outer(x):
    shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
    if KIND == "pure":
        return jax.pure_callback(host, shape, x)
    if KIND == "io":
        return io_callback(host, shape, x)
    jax.debug.callback(host, x)
    return x + 1

for n in (3, 4, 3):  # the last call: outer hits, helper compiles inside it
    jax.block_until_ready(outer(jnp.ones(n, jnp.float32)))
print("done")
"""


def logged(stderr: str) -> Counter[str]:
    found = Counter()
    for line in stderr.splitlines():
        if "Compiling jit(" in line:
            found[line.split("Compiling jit(", 1)[1].split(")", 1)[0]] += 1
    return Counter({k: v for k, v in found.items() if k in ("outer", "helper")})


@pytest.mark.parametrize("kind", ["pure", "io", "debug"])
def test_a_jitted_call_inside_a_host_callback_is_recorded_as_jax_logged_it(tmp_path, kind):
    (tmp_path / "prog.py").write_text(PROGRAM)
    env = {**os.environ, "JAX_LOG_COMPILES": "1"}
    argv = [*JITLAB, "watch", "--out", "run.jsonl", "--", "python", "prog.py", kind]
    done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT)  # fmt: skip
    assert done.returncode == 0 and done.stdout == "done\n", done.stderr[-3000:]
    lines = [json.loads(x) for x in Path(tmp_path / "run.jsonl").read_text().splitlines()]
    recorded = Counter(x["function"] for x in lines if x["type"] == "call")
    jax_says = logged(done.stderr)
    assert jax_says["helper"] >= 4 and jax_says["outer"] == 2  # the program did compile them
    assert recorded == jax_says
