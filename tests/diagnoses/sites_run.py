"""A real `jitlab watch` of a small program whose compiles come from several lines: a
helper called from a function and from the module (a call path two and three lines deep),
a direct call, and a function named ``<b>x</b>`` whose five executables JAX keeps alive; run
once with JAX's own compile log (JAX_LOG_COMPILES=1). The faces' call-site and live-executable
tests read what it recorded."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from diagnosed_run import HOSTILE, JITLAB, jax_compiles

PROGRAM = f"""
import jax, jax.numpy as jnp

def grow(x):
    return x * 2

grow.__name__ = grow.__qualname__ = {HOSTILE!r}
grow_j = jax.jit(grow)

@jax.jit
def step(x):
    return jnp.tanh(x) * 2

def helper(n):
    return step(jnp.ones(n))            # HELPER

def train():
    for n in range(5, 8):
        helper(n)                       # VIA_TRAIN

kept = []
for n in range(1, 6):
    kept.append(grow_j(jnp.ones(n)))    # GROW
for n in range(1, 4):
    step(jnp.ones(n))                   # DIRECT
train()                                 # TRAIN
helper(9)                               # VIA_MODULE
for _ in range(3):
    step(jnp.ones(9))                   # HITS
print("done", flush=True)
"""


@dataclass(frozen=True)
class Sited:
    path: Path  # the recording
    program: Path
    stderr: str

    def line(self, marker: str) -> str:
        """``file:line`` of the program's line marked ``marker``."""
        lines = self.program.read_text().splitlines()
        (number,) = [i for i, text in enumerate(lines, 1) if f"# {marker}" in text]
        return f"{self.program}:{number}"


def watch_sites(folder: Path) -> Sited:
    program = folder / "prog.py"
    program.write_text(PROGRAM)
    out = folder / "rec.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JITLAB_", "JAX_"))}
    env |= {"JAX_PLATFORMS": "cpu", "JAX_LOG_COMPILES": "1", "COLUMNS": "200"}
    done = subprocess.run(
        [JITLAB, "watch", "--out", str(out), "--", sys.executable, str(program)],
        capture_output=True,
        text=True,
        env=env,
        cwd=folder,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # What JAX itself compiled: grow 5 times, step 3 + 3 + 1 times.
    assert jax_compiles(done.stderr, HOSTILE) == 5
    assert jax_compiles(done.stderr, "step") == 7
    return Sited(out, program, done.stderr)
