"""Watching real programs: recordings, crash safety, compile budgets, bucket suggestions."""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jitlab.recordings.buckets import suggest_buckets
from jitlab.recordings.reader import read_recording
from jitlab.recordings.summary import summarize
from jitlab.records.change_words import reason_words
from jitlab.watching import standin
from jitlab.watching.budget import CompileBudgetExceeded, budget
from jitlab.watching.recorder import watch

pytestmark = pytest.mark.slow

TRAIN = """
import sys
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def train_step(w, x, y):
    def loss(w):
        return jnp.mean((x @ w - y) ** 2)

    value, grad = jax.value_and_grad(loss)(w)
    return w - 0.1 * grad, value


data = np.random.default_rng(0).normal(size=(100, 8)).astype(np.float32)
target = data.sum(axis=1)
w = jnp.zeros(8)
for epoch in range(int(sys.argv[1])):
    for start in range(0, 100, 32):  # 32, 32, 32, then a last partial batch of 4
        w, value = train_step(w, data[start : start + 32], target[start : start + 32])
# A dtype drift: someone feeds half precision.
w, value = train_step(w, data[:32].astype(np.float16), target[:32])
print("final loss", float(value))
"""


def jitlab(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jitlab.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
    )


def test_watch_a_training_script_names_both_recompiles(tmp_path: Path):
    (tmp_path / "train.py").write_text(TRAIN)
    done = jitlab("watch", "--out", "run.jsonl", "--", "python", "train.py", "3", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "final loss" in done.stdout  # the program ran unchanged, its output intact
    recording, _ = read_recording(tmp_path / "run.jsonl")
    assert recording.start.argv == ("train.py", "3") and recording.ended
    calls = [c for c in recording.calls if c.record.function == "train_step"]
    assert [c.record.kind for c in calls] == ["compile", "recompile", "recompile"]
    partial, drift = reason_words(calls[1].record.reason), reason_words(calls[2].record.reason)
    assert "x: f32[4,8] ← f32[32,8]" in partial and "y: f32[4] ← f32[32]" in partial
    assert drift == ("x: f16[32,8] ← f32[32,8]",)
    assert calls[0].defined_at.endswith("train.py:8")
    assert calls[1].called_from.endswith("train.py:22")
    (summary,) = summarize(recording)
    assert summary.hits == 3 * 4 + 1 - 3  # 13 calls, 3 of them compiled
    assert len(summary.signatures) == 3
    # The summary table on stderr names the function and what differed.
    assert "train_step" in done.stderr and "f16[32,8] ← f32[32,8]" in done.stderr


def test_a_recording_reads_into_the_probes_typed_records(tmp_path: Path):
    """Each call line is the probe's CallRecord (typed kind, signature, reason), with what
    only a recording knows beside it; per function, the counts are the probe's Summary."""
    from jitlab.records.calls import CallKind, CallRecord, Summary
    from jitlab.records.changes import ChangeKind
    from jitlab.records.lines import RecordedCall

    path = tmp_path / "run.jsonl"
    with watch(path):
        double = jax.jit(lambda x: x * 2)
        double(jnp.ones(4)).block_until_ready()
        double(jnp.ones(4)).block_until_ready()
        double(jnp.ones(8)).block_until_ready()
        recompiled_at = f"{Path(__file__).name}:{sys._getframe().f_lineno - 1}"
    recording, _ = read_recording(path)
    calls = [c for c in recording.calls if not c.internal]
    assert all(isinstance(c, RecordedCall) and isinstance(c.record, CallRecord) for c in calls)
    assert [c.record.kind for c in calls] == [CallKind.COMPILE, CallKind.RECOMPILE]
    shapes = [[leaf.shape for leaf in c.record.signature.leaves] for c in calls]
    assert shapes == [[(4,)], [(8,)]]
    assert calls[1].record.reason.kinds() == (ChangeKind.SHAPE,)
    assert calls[1].called_from.endswith(recompiled_at), calls[1].called_from
    assert not calls[1].events_only and calls[0].t <= calls[1].t
    (summary,) = summarize(recording, include_internal=False)
    assert summary.totals == Summary.of([c.record for c in calls])
    assert (summary.executables, summary.hits) == (2, 1)


def test_hits_are_aggregated_not_one_line_per_call(tmp_path: Path):
    path = tmp_path / "loop.jsonl"
    with watch(path):

        @jax.jit
        def tiny(x):
            return x + 1

        x = jnp.ones(3)
        for _ in range(3000):
            x = tiny(x)
    lines = path.read_text().splitlines()
    assert len(lines) < 10
    recording, _ = read_recording(path)
    assert recording.hits[("tiny", recording.calls[0].defined_at)] == 2999


LOOP_FOREVER = """
import jax, jax.numpy as jnp

@jax.jit
def f(x):
    return x * 2

for n in (1, 2, 3):
    f(jnp.ones(n))
print("ready", flush=True)
while True:
    f(jnp.ones(3))
"""


def test_a_killed_program_leaves_a_readable_recording(tmp_path: Path):
    (tmp_path / "loop.py").write_text(LOOP_FOREVER)
    process = subprocess.Popen(
        [sys.executable, "-m", "jitlab.cli", "watch", "--out", "run.jsonl", "--", "loop.py"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    path = tmp_path / "run.jsonl"
    try:
        assert process.stdout.readline().strip() == "ready"
        # The watch writes aggregated hit counts periodically: kill once one reached the file.
        deadline = time.monotonic() + 60
        while '"type": "hits"' not in path.read_text():
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        process.stdout.close()  # else a ResourceWarning (an error in this suite)
    recording, _ = read_recording(path)
    assert not recording.ended
    assert [c.record.kind for c in recording.calls] == ["compile", "recompile", "recompile"]
    ((name, _where), hits), *others = recording.hits.items()
    assert name == "f" and hits > 0 and others == []  # the loop's hits, counted while it ran
    # Cut the file mid-line, as a kill during a write would: it still opens.
    data = path.read_bytes()
    path.write_bytes(data + b'{"type": "call", "function": "f", "ki')
    again, offset = read_recording(path)
    assert again.partial_line and len(again.calls) == 3 and again.bad_lines == 0
    assert offset == len(data)


def test_following_a_growing_recording(tmp_path: Path):
    path = tmp_path / "live.jsonl"
    path.write_text(json.dumps({"type": "start"}) + "\n")
    recording, offset = read_recording(path)
    with path.open("a") as f:
        f.write(json.dumps({"type": "call", "function": "g", "kind": "compile"}) + "\n")
        f.write('{"type": "call", "func')
    recording, offset = read_recording(path, offset, recording)
    assert len(recording.calls) == 1 and recording.partial_line
    with path.open("a") as f:
        f.write('tion": "g", "kind": "recompile"}\n')
    recording, offset = read_recording(path, offset, recording)
    assert [c.record.kind for c in recording.calls] == ["compile", "recompile"]


@jax.jit
def warmed(x):
    return jnp.sin(x) * 2


def test_budget_passes_when_nothing_compiles():
    warmed(jnp.ones(4))  # warm-up
    with budget(0) as guard:
        for _ in range(5):
            warmed(jnp.ones(4))
    assert guard.compiles == []


def test_budget_fails_on_the_extra_compile_with_its_reason():
    warmed(jnp.ones(4))
    with pytest.raises(CompileBudgetExceeded) as failure, budget(0):
        warmed(jnp.ones(4))
        warmed(jnp.ones(5))  # a new shape: the one extra compile
    message = str(failure.value)
    assert message.startswith("1 compile(s) where the budget allows 0")
    assert "warmed recompile" in message and "x: f32[5] ← f32[4]" in message
    assert "test_watch.py" in message  # the call site


def test_budget_counts_functions_jitted_inside_and_ignores_jax_internals():
    with budget(1) as guard:
        inside = jax.jit(lambda x: x - 1)
        inside(jnp.ones(2))
        jnp.ones(13)  # JAX compiles a kernel for itself: not the user's compile
    assert len(guard.compiles) == 1


PYTEST_FILE = """
import jax, jax.numpy as jnp, pytest

@jax.jit
def f(x):
    return x * 3

def test_fixture_ok(compile_budget):
    f(jnp.ones(2))
    with compile_budget(0):
        f(jnp.ones(2))

def test_fixture_fails(compile_budget):
    f(jnp.ones(2))
    with compile_budget(0):
        f(jnp.ones(7))

@pytest.mark.compile_budget(max_compiles=1)
def test_marker_ok():
    f(jnp.ones(11))

@pytest.mark.compile_budget(max_compiles=1)
def test_marker_fails():
    f(jnp.ones(12))
    f(jnp.ones(13))
"""


def test_pytest_fixture_and_marker(pytester: pytest.Pytester):
    # In process: the plugin is found through its pytest11 entry point, as in a user's run.
    pytester.makepyfile(test_budgeted=PYTEST_FILE)
    result = pytester.runpytest("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2)
    out = result.stdout.str()
    assert "FAILED test_budgeted.py::test_fixture_fails" in out
    assert "FAILED test_budgeted.py::test_marker_fails" in out
    assert "x: f32[7] ← f32[2]" in out and "x: f32[13] ← f32[" in out


def brute_force_padding(sizes: list[int], k: int) -> int:
    values = sorted(set(sizes))
    best = None
    for r in range(1, min(k, len(values)) + 1):
        for chosen in itertools.combinations(values, r):
            if max(values) not in chosen:
                continue
            pad = sum(min(b for b in chosen if b >= n) - n for n in sizes)
            best = pad if best is None else min(best, pad)
    return best


def padding(sizes: list[int], buckets: list[int]) -> int:
    return sum(min(b for b in buckets if b >= n) - n for n in sizes)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 64), min_size=1, max_size=25), st.integers(1, 5))
def test_suggested_buckets_cover_every_size_with_least_padding(sizes, k):
    buckets = suggest_buckets(sizes, k)
    assert 1 <= len(buckets) <= k
    assert max(buckets) == max(sizes)
    assert padding(sizes, buckets) == brute_force_padding(sizes, k)


def test_suggested_buckets_example():
    sizes = [32] * 30 + [4] * 3 + [17, 20, 31]
    assert suggest_buckets(sizes, 1) == [32]
    assert suggest_buckets(sizes, 2) == [4, 32]


def test_a_function_jitted_before_the_watch_counts_its_compiles(tmp_path: Path):
    @jax.jit
    def early(x):
        return x * 5

    early(jnp.ones(1))
    with watch(tmp_path / "early.jsonl") as recorder:
        for n in (2, 3, 3, 4):
            early(jnp.ones(n))
    lines = [c for c in recorder.calls if c.record.function == "early"]
    assert [c.record.index for c in lines] == [0, 1, 2]
    assert [c.record.kind.value for c in lines] == ["recompile"] * 3  # it compiled before the watch
    assert reason_words(lines[0].record.reason) == ("x: f32[2] ← f32[1]",)
    (stats,) = [s for s in recorder.stats.values() if s.name == "early"]
    assert stats.compiles == 3 and stats.hits is None  # hits are not seen for these


def test_a_script_that_raises_still_leaves_its_recording_and_summary(tmp_path: Path):
    (tmp_path / "boom.py").write_text(
        "import jax, jax.numpy as jnp\n"
        "f = jax.jit(lambda x: x + 1)\n"
        "f(jnp.ones(2))\n"
        "raise RuntimeError('the training loop fell over')\n"
    )
    done = jitlab("watch", "--out", "boom.jsonl", "--", "python", "boom.py", cwd=tmp_path)
    assert done.returncode == 1
    assert "RuntimeError: the training loop fell over" in done.stderr
    assert "jitlab watch" in done.stderr  # the summary table still comes
    recording, _ = read_recording(tmp_path / "boom.jsonl")
    assert recording.ended and [c.record.kind for c in recording.calls] == ["compile"]


def test_a_watched_call_that_fails_or_is_interrupted_leaves_the_next_counted():
    """A watched hit is only counted (the least it can cost); a call that fails while
    tracing is filed and raised, one interrupted while tracing (a Ctrl-C) leaves nothing
    behind on the thread, and the calls after both are counted as they should be."""
    interrupt = {"now": False}
    with watch() as recorder:

        @jax.jit
        def interrupted_step(x):
            if interrupt["now"]:
                raise KeyboardInterrupt  # as a Ctrl-C landing while JAX traces
            return x * 2

        interrupted_step(jnp.ones(2))
        interrupted_step(jnp.ones(2))  # a hit
        with pytest.raises(TypeError):
            interrupted_step("not an array")  # fails while JAX checks the arguments
        interrupt["now"] = True
        with pytest.raises(KeyboardInterrupt):
            interrupted_step(jnp.ones(5))  # a new shape: traces, and is interrupted
        interrupt["now"] = False
        interrupted_step(
            jnp.ones(2)
        )  # hits again, counted (not taken for a call inlined in a trace)
        interrupted_step(jnp.ones(3))  # and a real recompile is still seen as one
        (stats,) = [s for s in recorder.stats.values() if s.name == "interrupted_step"]
        kinds = [c.record.kind.value for c in recorder.calls if c.record.function == stats.name]
    assert stats.hits == 2
    # the interrupted call is not filed (a Ctrl-C ends the call before anything is known)
    assert kinds == ["compile", "error", "recompile"]
    assert standin._dispatched_at == {}  # nor its start kept
