"""A real `jitlab watch --warn-after 2` of a small program that states both diagnoses
(recompile-limit on a function named ``<b>x</b>``, identity-static and recompile-limit on
``step``), run once, with JAX's own compile log (JAX_LOG_COMPILES=1) in the same run: the
faces' tests (report, `jitlab open`, notebook, watch's end table) read what it recorded."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

JITLAB = str(Path(sys.executable).with_name("jitlab"))
HOSTILE = "<b>x</b>"  # a function name that is markup: shown as written, never rendered

PROGRAM = f"""
import jax, jax.numpy as jnp

class Config:  # no __eq__ / __hash__: compared and hashed by identity
    def __init__(self, scale):
        self.scale = scale
    def __repr__(self):
        return f"Config(scale={{self.scale}})"

def grow(x):
    return x * 2

grow.__name__ = grow.__qualname__ = {HOSTILE!r}

def step(x, cfg):
    return x * cfg.scale

grow_j = jax.jit(grow)
step_j = jax.jit(step, static_argnums=1)
for n in range(1, 5):
    grow_j(jnp.ones(n))               # a new shape each call: past 2 compiles
for epoch in range(3):
    step_j(jnp.ones(3), Config(2.0))  # equal content, a new object each time
print("done", flush=True)
"""


@dataclass(frozen=True)
class Watched:
    path: Path  # the recording
    stderr: str  # what jitlab watch (and JAX's compile log) said


def jax_compiles(stderr: str, name: str) -> int:
    """Compiles of ``name`` in JAX's own log (JAX_LOG_COMPILES=1)."""
    return len(re.findall(rf"Compiling jit\({re.escape(name)}\) with", stderr))


def watch(folder: Path, lang: str = "en") -> Watched:
    program = folder / "prog.py"
    program.write_text(PROGRAM)
    out = folder / "rec.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JITLAB_", "JAX_"))}
    env |= {"JAX_PLATFORMS": "cpu", "JAX_LOG_COMPILES": "1", "COLUMNS": "200"}
    argv = [JITLAB, "--lang", lang, "watch", "--warn-after", "2", "--out", str(out), "--"]
    done = subprocess.run(
        [*argv, sys.executable, str(program)],
        capture_output=True,
        text=True,
        env=env,
        cwd=folder,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # The recompiles happened: JAX compiled grow 4 times and step 3 times.
    assert jax_compiles(done.stderr, HOSTILE) == 4
    assert jax_compiles(done.stderr, "step") == 3
    return Watched(out, done.stderr)
