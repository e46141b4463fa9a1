"""jitlab's own start-up check (the contract's known compile) leaves no entry in the user's
persistent compilation cache (issue 52, item 8). The cache set by environment variables, as
users set it; the same program run plain and watched, in fresh processes, the cache's
entries counted: the same count, none of the check's. Each of the check's three ways is
taken: a fork (``jitlab watch``), a fresh interpreter (a thread already running when
``jitlab.watch()`` starts), and in this very process (JAX's backend already up)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

JITLAB = str(Path(sys.executable).with_name("jitlab"))

PROGRAM = """
import sys, threading
import jax, jax.numpy as jnp

WAY = sys.argv[1] if len(sys.argv) > 1 else "plain"

@jax.jit
def f(x):
    return jnp.tanh(x) * 2

def work():
    f(jnp.ones(3)).block_until_ready()
    f(jnp.ones(5)).block_until_ready()

if WAY in ("plain", "cli"):
    work()
else:
    import jitlab
    if WAY == "thread":  # another thread running: the check runs in a fresh interpreter
        stop = threading.Event()
        threading.Thread(target=stop.wait, daemon=True).start()
    if WAY == "backend":  # JAX's backend up: the check compiles in this process
        jax.devices()
    with jitlab.watch("rec.jsonl"):
        work()
    if WAY == "thread":
        stop.set()
print("done", flush=True)
"""


def _run(folder: Path, way: str) -> list[str]:
    cache = folder / f"cache-{way}"
    program = folder / "prog.py"
    program.write_text(PROGRAM, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JITLAB_", "JAX_"))}
    env |= {
        "JAX_PLATFORMS": "cpu",
        "JAX_COMPILATION_CACHE_DIR": str(cache),  # as users set it: by environment
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
        "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "-1",
    }
    argv = [sys.executable, str(program), way]
    if way == "cli":
        argv = [JITLAB, "watch", "--out", str(folder / "cli.jsonl"), "--", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=folder, timeout=300)
    assert done.returncode == 0 and "done" in done.stdout, done.stderr[-3000:]
    return sorted(p.name for p in cache.iterdir() if not p.name.endswith("-atime"))


def test_the_check_writes_nothing_into_the_users_persistent_cache(tmp_path: Path) -> None:
    plain = _run(tmp_path, "plain")
    # f twice and jnp.ones' kernels: what the program itself stores
    assert sum(name.startswith("jit_f-") for name in plain) == 2
    for way in ("cli", "thread", "backend"):
        watched = _run(tmp_path, way)
        assert not [n for n in watched if "jitlab" in n], way  # none of the check's entries
        assert len(watched) == len(plain), (way, watched, plain)
        # the same programs as the plain run stored (the keys hold the cache's own path)
        assert sorted(n.split("-")[0] for n in watched) == sorted(n.split("-")[0] for n in plain)


def test_writes_off_holds_for_the_calling_thread_only(tmp_path: Path) -> None:
    # The seam's contract (jitlab.probe._jax.persistent_cache_writes_off), on this JAX.
    code = """
import os, threading, jax, jax.numpy as jnp
from jitlab.probe import _jax
def g(x): return x * 3
with _jax.persistent_cache_writes_off():
    jax.jit(g)(jnp.ones(3)).block_until_ready()
    inside = sorted(os.listdir(os.environ["JAX_COMPILATION_CACHE_DIR"]))
    done = []
    other = threading.Thread(target=lambda: done.append(jax.jit(lambda x: x - 1)(jnp.ones(2))))
    other.start(); other.join()
after = sorted(os.listdir(os.environ["JAX_COMPILATION_CACHE_DIR"]))
print([n.split("-")[0] for n in inside]); print([n.split("-")[0] for n in after])
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JITLAB_", "JAX_"))}
    env |= {
        "JAX_PLATFORMS": "cpu",
        "JAX_COMPILATION_CACHE_DIR": str(tmp_path / "cache"),
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
        "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "-1",
    }
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    inside, after = done.stdout.splitlines()
    assert inside == "[]"  # the calling thread wrote nothing (jnp.ones' kernel neither)
    assert "jit__lambda" in after  # the other thread wrote as before
