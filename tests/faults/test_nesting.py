"""Every face nested in every other (issue 51 row 1): a ``jitlab.watch()`` block, a
``jitlab.budget`` and a ``Probe`` inside ``jitlab watch``, inside a ``jitlab.watch()`` block
and inside a budget, each outer face entered before JAX's backend started (where a budget's
contract check used to compile through the watch's own stand-in and wait forever on its own
lock). Real programs in subprocesses; a timeout is the hang detector. Each face counts the
compiles JAX's own log (``JAX_LOG_COMPILES``) shows, and a watch to a file another watch of
the process is writing is refused in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

JITLAB = [sys.executable, "-m", "jitlab.cli"]
HANG = 300  # seconds: a run that takes longer is taken for a hang (no duration is asserted)

HEAD = """\
import json, os, sys
import numpy as np
import jax
import jitlab
out = os.environ["OUT"]
seen = {}
def g(x):
    return x * 2 + 1
def of_g(calls):
    return len([c for c in calls if c.record.function == "g"])
"""

OUTERS = {
    "cli": ("", ""),  # the program runs under `jitlab watch`: no code of its own
    "watch": (
        'with jitlab.watch(os.path.join(out, "outer.jsonl")) as outer:',
        'seen["outer"] = of_g(outer.compiles)',
    ),
    "budget": ("with jitlab.budget(10) as outer:", 'seen["outer"] = of_g(outer.compiles)'),
}

INNERS = {
    "watch": """\
with jitlab.watch(os.path.join(out, "inner.jsonl")) as inner:
    gj = jax.jit(g)
    gj(np.ones(3, np.float32)); gj(np.ones(4, np.float32))
seen["inner"] = of_g(inner.compiles)
""",
    "budget": """\
gj = jax.jit(g)
try:
    with jitlab.budget(1) as inner:
        gj(np.ones(3, np.float32)); gj(np.ones(4, np.float32))
except jitlab.CompileBudgetExceeded:
    seen["raised"] = True
seen["inner"] = of_g(inner.compiles)
""",
    "probe": """\
p = jitlab.Probe(g)
p(np.ones(3, np.float32)); p(np.ones(4, np.float32))
seen["inner"] = [r.kind.value for r in p.records]
""",
}


def program(outer: str, inner: str) -> str:
    enter, after = OUTERS[outer]
    body = INNERS[inner]
    if enter:
        body = f"{enter}\n{textwrap.indent(body, '    ')}{after}\n"
    return HEAD + body + 'print("seen " + json.dumps(seen))\n'


def run_watched(tmp_path: Path, outer: str, source: str) -> tuple[dict, str]:
    """Run ``source`` (under ``jitlab watch`` for the outer face "cli"): what it saw, and
    its stderr. A run that does not end is a hang."""
    (tmp_path / "prog.py").write_text(source)
    argv = [sys.executable, "prog.py"]
    if outer == "cli":
        argv = [*JITLAB, "watch", "--out", "outer.jsonl", "--", "python", "prog.py"]
    env = {**os.environ, "OUT": str(tmp_path), "JAX_LOG_COMPILES": "1"}
    try:
        done = subprocess.run(
            argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=HANG
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"hung (no end after {HANG} s): {exc.stderr!r}"[-2000:])
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("seen "))
    return json.loads(line[len("seen ") :]), done.stderr


def jax_logged(stderr: str, name: str) -> int:
    """Compiles of ``name`` in JAX's own log (``JAX_LOG_COMPILES``)."""
    return stderr.count(f"Compiling jit({name}) ")


@pytest.mark.parametrize("inner", sorted(INNERS))
@pytest.mark.parametrize("outer", sorted(OUTERS))
def test_every_face_nests_in_every_other_and_counts_what_jax_logged(tmp_path, outer, inner):
    seen, stderr = run_watched(tmp_path, outer, program(outer, inner))
    assert jax_logged(stderr, "g") == 2
    if inner == "probe":
        assert seen["inner"] == ["compile", "recompile"]
    else:
        assert seen["inner"] == 2
    if inner == "budget":
        assert seen.get("raised")  # a budget of 1 saw both compiles and failed
    if outer == "cli":
        lines = [json.loads(x) for x in (tmp_path / "outer.jsonl").read_text().splitlines()]
        calls = [x for x in lines if x["type"] == "call" and x["function"] == "g"]
        assert len(calls) == 2 and lines[-1]["type"] == "end"
    else:
        assert seen["outer"] == 2


def test_a_watch_to_the_file_another_watch_is_writing_is_refused_in_one_line(tmp_path):
    source = HEAD + textwrap.dedent(
        """\
        path = os.path.join(out, "run.jsonl")
        with jitlab.watch(path):
            jax.jit(g)(np.ones(3, np.float32))
            try:
                with jitlab.watch(path):
                    pass
            except Exception as exc:
                seen["refused"] = [type(exc).__name__, str(exc)]
        print("seen " + json.dumps(seen))
        """
    )
    (tmp_path / "prog.py").write_text(source)
    env = {**os.environ, "OUT": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "prog.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=HANG,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.split("seen ", 1)[1])
    kind, said = seen["refused"]
    assert kind == "FileExistsError" and len(said.splitlines()) == 1 and "run.jsonl" in said, said
    lines = [json.loads(x) for x in (tmp_path / "run.jsonl").read_text().splitlines()]
    assert [x["type"] for x in lines].count("start") == 1  # the outer's recording, whole
    assert lines[-1]["type"] == "end"
    assert not list(tmp_path.glob("run.pid*.jsonl"))  # no provisional file either
