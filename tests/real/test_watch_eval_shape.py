"""``jax.eval_shape`` of a watched function (issue 41 item 3, under the watch).

JAX calls ``.trace`` directly only on a real ``jax.jit`` object; the watch's stand-in is not
one, so ``eval_shape`` traces its own ``jit(standin)`` and, inside it, the jitted function
once more: a program that turned JAX's explanations on read two TRACING CACHE MISS warnings
a call (one "at :", no call site) where plain python logs one. Cases from jax-ml/jax
``tests/api_test.py`` (``test_eval_shape``, ``test_eval_shape_trace_cache_share``), run plain
and watched in the same test, compared line for line with JAX's own log.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from jitlab.probe import _jax
from jitlab.records.calls import CallKind
from jitlab.watching.recorder import watch

from .conftest import jax_account

pytestmark = pytest.mark.slow

JITLAB = [sys.executable, "-m", "jitlab.cli"]

# Each line JAX logs is one line of stderr (its message as a repr), marked as JAX's.
PROGRAM = textwrap.dedent(
    """
    import functools, logging, jax, jax.numpy as jnp
    logging.basicConfig(level=logging.WARNING, format="JAXLOG %(name)s %(message)r")
    jax.config.update("jax_explain_cache_misses", True)

    def doubled(x):
        return x * 2

    j = jax.jit(doubled)
    print(jax.eval_shape(j, jnp.ones(3)).shape)  # never seen
    print(jax.eval_shape(j, jnp.ones(4)).shape)  # a new shape
    print(jax.eval_shape(j, jnp.ones(4)).shape)  # seen: no miss
    print(j(jnp.ones(4)))  # traced by eval_shape already: compiled, no miss
    print(j(jnp.ones(5)))  # a new shape: traced and compiled

    def outer(x):  # the program's own function calling the jitted one: two traces, as plain
        return j(x) + 1

    print(jax.eval_shape(outer, jnp.ones(6)).shape)
    print(jax.eval_shape(functools.partial(j), jnp.ones(7)).shape)  # JAX traces j twice itself
    """
)


def _jax_lines(stderr: str) -> list[str]:
    """JAX's log lines, a function object's id left out (it differs between processes)."""
    return [
        re.sub(r"id=\d+", "id=…", line) for line in stderr.splitlines() if line.startswith("JAXLOG")
    ]


def _run(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        argv,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr
    return done


def test_a_watched_program_logs_what_plain_python_logs_under_eval_shape(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    plain = _run([sys.executable, "prog.py"], tmp_path)
    compiles = _run([sys.executable, "prog.py"], tmp_path, JAX_LOG_COMPILES="1")
    watched = _run([*JITLAB, "watch", "--out", "rec.jsonl", "--", "python", "prog.py"], tmp_path)

    assert watched.stdout.startswith(plain.stdout)  # the program's own output, then the table
    jax_said = _jax_lines(plain.stderr)
    misses = [line for line in jax_said if "TRACING CACHE MISS" in line]
    if _jax.EVAL_SHAPE_TRACES_A_JIT_ONCE:  # JAX 0.6 traces each eval_shape'd jit twice itself
        # never seen, a new shape, j(5), outer and j inside it, partial(j) and j inside it
        assert len(misses) == 7
        assert sum("TRACING CACHE MISS at :" in line for line in misses) == 1  # partial's
    assert _jax_lines(watched.stderr) == jax_said

    # jitlab's account of doubled agrees with JAX_LOG_COMPILES of the plain run.
    log = compiles.stderr
    lines = [json.loads(line) for line in (tmp_path / "rec.jsonl").read_text().splitlines()]
    calls = [line for line in lines if line["type"] == "call" and line["function"] == "doubled"]
    compiled = [c for c in calls if c["kind"] != "traced"]
    assert len(compiled) == log.count("Compiling jit(doubled)") == 2
    # Before its first compile JAX traced doubled twice at top level (eval_shape's), one
    # line each; jitlab filed those two calls as traced, and no more.
    before = log.split("Compiling jit(doubled)", 1)[0]
    first = calls.index(compiled[0])
    assert [c["kind"] for c in calls[:first]] == ["traced"] * before.count(
        "Finished tracing doubled for jit"
    )
    assert first == 2 or not _jax.EVAL_SHAPE_TRACES_A_JIT_ONCE


def test_eval_shape_of_a_function_jitted_in_a_watch_block_logs_as_jax():
    # The same in-process: jax.jit inside ``with watch()`` is the stand-in; JAX's log
    # shows one miss per new shape, as for the plain jit of the same code before the block.
    def make():
        def tripled(x):
            return x * 3

        return tripled

    with jax_account() as log:
        plain = jax.jit(make())
        for n in (3, 4, 4):
            jax.eval_shape(plain, jnp.ones(n))
        jax_misses = list(log.misses)
        log.misses.clear()
        with watch() as recorder:
            watched = jax.jit(make())
            shapes = [jax.eval_shape(watched, jnp.ones(n)).shape for n in (3, 4, 4)]
        watch_misses = list(log.misses)
    assert shapes == [(3,), (4,), (4,)]
    if _jax.EVAL_SHAPE_TRACES_A_JIT_ONCE:  # else (JAX 0.6) twice each, as under the watch
        assert len(jax_misses) == 2
    assert len(watch_misses) == len(jax_misses)

    def words(message: str) -> str:  # but for the call site's line and the object's id
        return re.sub(r"id=\d+", "id=…", message.split("\n", 1)[1])

    assert [words(m) for m in watch_misses] == [words(m) for m in jax_misses]
    kinds = [c.record.kind for c in recorder.calls if c.record.function == "tripled"]
    assert kinds == [CallKind.TRACED, CallKind.TRACED]
