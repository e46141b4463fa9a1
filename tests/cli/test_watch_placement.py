"""`jitlab watch -- python prog.py` on a real terminal, for a program that calls one function
with an array left uncommitted, then committed to ``cpu:0``, then to ``cpu:1``: three
executables in JAX's own log (``JAX_LOG_COMPILES=1``, in the same run), three signatures in
the watch's table — and in `jitlab summary` of the recording — each naming where it lay.

Every command runs a real `jitlab` (and real JAX, on two simulated CPU devices) in a process
of its own, with a timeout.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

JITLAB = str(Path(sys.executable).with_name("jitlab"))
sys.path.insert(0, str(Path(__file__).parents[1] / "faults"))
from ptyrun import run_on_pty, screen, terminal  # noqa: E402

PROGRAM = """\
import jax
import jax.numpy as jnp


@jax.jit
def scale(x):
    return x * 2


x = jnp.ones(3)
cpu0, cpu1 = jax.devices()[:2]
for value in (x, jax.device_put(x, cpu0), jax.device_put(x, cpu1), x):
    scale(value).block_until_ready()
"""

DEVICES = {"XLA_FLAGS": "--xla_force_host_platform_device_count=2", "JAX_PLATFORMS": "cpu"}


def test_the_watch_table_counts_one_signature_per_executable(tmp_path: Path):
    (tmp_path / "prog.py").write_text(PROGRAM, encoding="utf-8")
    env = {**terminal(), **DEVICES, "JAX_LOG_COMPILES": "1"}
    result = run_on_pty(
        [
            JITLAB,
            "watch",
            "--out",
            str(tmp_path / "run.jsonl"),
            "--",
            sys.executable,
            str(tmp_path / "prog.py"),
        ],
        env=env,
        timeout=180,
        columns=160,
    )
    lines = screen(result.output)
    assert result.status == 0, "\n".join(lines[-40:])
    jax_compiles = sum("Finished XLA compilation of jit(scale)" in line for line in lines)
    assert jax_compiles == 3  # JAX's own count, in the same run
    (row,) = [line for line in lines if re.match(r"[│|] scale ", line)]
    cells = [c.strip() for c in re.split(r"[│|]", row)[1:-1]]
    compiles, recompiles, hits, _ms, signatures = cells[1:6]
    assert (compiles, recompiles, hits, signatures) == ("3", "2", "1", "3"), row

    # `jitlab summary` of the recording: the same count, and the three texts apart.
    done = subprocess.run(
        [JITLAB, "summary", "--json", str(tmp_path / "run.jsonl")],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (scale,) = [f for f in json.loads(done.stdout)["functions"] if f["function"] == "scale"]
    assert scale["processes"]["0"]["compiles"] == 3
    assert scale["processes"]["0"]["signatures"] == [
        "x: f32[3]",
        "x: f32[3] @ cpu:0",
        "x: f32[3] @ cpu:1",
    ]


COMMITTING = """\
import sys

import jax
import jax.numpy as jnp


@jax.jit
def scale(x):
    return x * 2


x = jnp.ones(3)
scale(x)
if sys.argv[1:] == ["commit"]:  # the same array, committed to its device: another program
    scale(jax.device_put(x, jax.devices()[0]))
"""


def test_diff_names_the_signature_a_committed_array_added(tmp_path: Path):
    (tmp_path / "prog.py").write_text(COMMITTING, encoding="utf-8")
    for name, args in (("base.jsonl", []), ("new.jsonl", ["commit"])):
        watched = subprocess.run(
            [JITLAB, "watch", "--out", name, "--", sys.executable, "prog.py", *args],
            capture_output=True,
            text=True,
            timeout=180,
            cwd=tmp_path,
            env={**os.environ, "JAX_PLATFORMS": "cpu"},  # its device: cpu:0, on any machine
            check=False,
        )
        assert watched.returncode == 0, watched.stderr
    done = subprocess.run(
        [JITLAB, "diff", "--json", "base.jsonl", "new.jsonl"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 1, done.stderr  # one more compile than the base run
    (scale,) = json.loads(done.stdout)["functions"]
    assert scale["compiles"] == {"base": 1, "new": 2}
    assert scale["signatures_added"] == ["x: f32[3] @ cpu:0"]  # was: none, it read alike
