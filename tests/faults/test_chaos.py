"""Chaos (issue 51): other people's example programs (``tests/real/programs``) run plainly and
under ``jitlab watch``, with faults injected at moments a seeded schedule draws — signals
(a SIGTERM handler chained to the one it replaced, SIGUSR1), a thread that ends while the
program runs and every thread but main joined at the end, nested faces (the program inside
a budget or a watch block, a Probe first, a budget in an exit function), stderr moved to a
log, and an exec at the end (:mod:`chaos`). Each watched run is compared with its plain run:
exit status and stdout byte for byte, stderr (and the log) less JAX's compile log and
jitlab's table; JAX compiled the same functions, and the recording counts, per function,
what JAX's own log (``JAX_LOG_COMPILES``) says it compiled."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from jitlab.recordings.reader import read_recording
from jitlab.recordings.summary import summarize

sys.path.insert(0, str(Path(__file__).parents[1]))  # the real programs' list and comparisons
from real.test_programs import PROGRAMS, Ran

pytestmark = pytest.mark.slow

CHAOS = Path(__file__).parent / "chaos.py"
TIMEOUT = 300  # a run that takes longer is taken for a hang (no duration is asserted)
# Quick standalone programs: two sharding examples, and one that dies of a JAX error (exit 1).
CHOICES = [
    ("jax_pjit_devices.py", []),
    ("jax_pjit_sharding.py", []),
    ("jax_jit_docs_error.py", ["a", "b"]),
]
KINDS = ["sigterm", "sigusr1", "thread", "stderr", "face", "atexit", "exec"]
FACES = ["budget", "watch", "probe"]
CASES = 6


def schedule(seed: int) -> tuple[str, list[str], list[dict]]:
    """The program and the faults of case ``seed``: two or three, each at a moment drawn
    within the program's first seconds."""
    draw = random.Random(seed)
    program, args = CHOICES[seed % len(CHOICES)]
    faults = []
    for kind in draw.sample(KINDS, draw.randint(2, 3)):
        fault: dict = {"kind": kind, "at": round(draw.uniform(0.0, 3.0), 3)}
        if kind == "face":
            fault["face"] = draw.choice(FACES)
        faults.append(fault)
    return program, args, faults


def run(argv: list[str], cwd: Path) -> Ran:
    env = {**os.environ, "JAX_LOG_COMPILES": "1", "JAX_PLATFORMS": "cpu", "COLUMNS": "200"}
    env.pop("XLA_FLAGS", None)  # the programs that need devices set it themselves
    try:
        done = subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"no end after {TIMEOUT} s (a hang): {exc.stdout!r} {exc.stderr!r}"[-3000:])
    return Ran(done.returncode, done.stdout, done.stderr)


@pytest.mark.parametrize("seed", range(CASES))
def test_a_program_with_faults_injected_runs_watched_as_plain_and_as_jax_logged(tmp_path, seed):
    program, args, faults = schedule(seed)
    ran: dict[str, Ran] = {}
    logs: dict[str, Ran] = {}
    for how in ("plain", "watched"):
        folder = tmp_path / how
        folder.mkdir()
        plan = json.dumps({"faults": faults, "out": str(folder)})
        command = [str(CHAOS), plan, str(PROGRAMS / program), *args]
        if how == "watched":
            command = ["-m", "jitlab.cli", "watch", "--out", "run.jsonl", "--", "python", *command]
        ran[how] = run([sys.executable, *command], folder)
        log = folder / "program.log"  # the program's stderr, when the schedule moved it there
        logs[how] = Ran(0, "", log.read_text() if log.exists() else ran[how].stderr)
    plain, watched = ran["plain"], ran["watched"]
    said = f"{program} {faults}\n{watched.stderr[-3000:]}"
    assert watched.returncode == plain.returncode, said
    assert watched.stdout == plain.stdout, said
    assert "chaos:" in plain.stdout
    assert watched.program_stderr() == plain.program_stderr(), said
    assert logs["watched"].program_stderr() == logs["plain"].program_stderr(), said
    # JAX compiled what it compiled without jitlab; the recording counts it, per function
    assert logs["watched"].jax_compiles == logs["plain"].jax_compiles, said
    recording, _ = read_recording(tmp_path / "watched" / "run.jsonl")
    assert recording.ended, said
    counted: Counter[str] = Counter()
    for row in summarize(recording, include_internal=False):
        counted[row.function] += row.executables
    assert counted and all(
        logs["watched"].jax_compiles[name] == n for name, n in counted.items()
    ), (counted, logs["watched"].jax_compiles, said)
