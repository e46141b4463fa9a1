"""The follower, driven without Qt: a real recording (``jitlab.watch()`` in a process of its
own) followed as it grows, a line cut mid-way, a file rewritten, two processes' files merged."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jitlab.recordings import follower as fl
from jitlab.recordings.follower import Follower
from jitlab.recordings.processes import merge
from jitlab.recordings.reader import read_recording
from jitlab.recordings.summary import summarize

pytestmark = pytest.mark.slow

PROGRAM = textwrap.dedent(
    """
    import sys
    import jax, jax.numpy as jnp
    import jitlab

    path, extra = sys.argv[1], int(sys.argv[2])
    with jitlab.watch(path):
        @jax.jit
        def step(x):
            return (x * 2).sum()

        @jax.jit
        def scale(x, k):
            return x * k

        for n in (4, 5, 6, 4, 5, 7, 4) + ((11,) if extra else ()):  # shapes change
            step(jnp.ones(n)).block_until_ready()
        for _ in range(5):
            scale(jnp.ones(3), 2.0).block_until_ready()
    """
)


def _record(path: Path, extra: bool = False) -> Path:
    """A recording written by jitlab.watch() around a real jitted program."""
    program = path.parent / "program.py"
    program.write_text(PROGRAM, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(program), str(path), str(int(extra))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _record(tmp_path_factory.mktemp("follow") / "run.jsonl")


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("job")
    first = _record(folder / "run.p0.jsonl")
    second = _record(folder / "run.p1.jsonl", extra=True)  # one more shape
    return [first, second]


def _read_all(follower: Follower) -> None:
    while True:
        read = follower.read()
        assert not read.reload
        if not read.more:
            break
    assert follower.update() is None


def test_a_whole_recording_reads_as_the_reader_does(recording: Path) -> None:
    follower = Follower([recording])
    _read_all(follower)
    expected = summarize(read_recording(recording)[0])
    assert [s for _, s in follower.rows] == expected
    assert follower.ended and not follower.partial_line and follower.bad_lines == 0
    assert {lane[0] for lane, _ in follower.rows} >= {"step", "scale"}
    step = follower.calls_of(("step", next(s.defined_at for s in expected if s.function == "step")))
    assert [call.record.kind.compiled for call in step].count(True) == 4  # 4, 5, 6, 7
    assert follower.progress() == 1.0


def test_a_growing_file_is_followed_and_a_cut_line_waits_for_its_end(
    recording: Path, tmp_path: Path
) -> None:
    data = recording.read_bytes()
    lines = data.splitlines(keepends=True)
    path = tmp_path / "growing.jsonl"
    path.write_bytes(b"".join(lines[:3]))
    follower = Follower([path])
    assert follower.read().changed
    follower.update()
    seen = len(follower.recording.calls)
    assert not follower.ended

    # The program writes on: half a line (it is still being written), then the rest.
    rest = b"".join(lines[3:])
    cut = len(lines[3]) // 2
    with path.open("ab") as f:
        f.write(rest[:cut])
    assert follower.read().changed  # only the cut line: said, not counted
    assert follower.partial_line and len(follower.recording.calls) == seen
    with path.open("ab") as f:
        f.write(rest[cut:])
    _read_all(follower)
    assert not follower.partial_line and follower.ended
    assert follower.bad_lines == 0
    assert [s for _, s in follower.rows] == summarize(read_recording(recording)[0])
    assert not follower.read().changed  # nothing new


def test_a_file_killed_mid_line_keeps_what_was_written(recording: Path, tmp_path: Path) -> None:
    data = recording.read_bytes()
    path = tmp_path / "killed.jsonl"
    path.write_bytes(data[: len(data) * 2 // 3])
    follower = Follower([path])
    _read_all(follower)
    assert not follower.ended and follower.unended == [path]
    whole = read_recording(path)[0]
    assert follower.partial_line == whole.partial_line
    assert [s for _, s in follower.rows] == summarize(whole)


def test_a_long_file_is_read_a_piece_at_a_time(
    recording: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fl, "READ_BYTES", 512)
    follower = Follower([recording])
    offsets = []
    while True:
        read = follower.read(budget_ms=0.0)
        offsets.append(follower.sources[0].offset)
        if not read.more:
            break
    assert len(offsets) > 2 and 0 < offsets[0] < recording.stat().st_size
    follower.update()
    assert [s for _, s in follower.rows] == summarize(read_recording(recording)[0])


def test_a_rewritten_file_is_read_again(recording: Path, tmp_path: Path) -> None:
    path = tmp_path / "again.jsonl"
    path.write_bytes(recording.read_bytes())
    follower = Follower([path])
    _read_all(follower)
    path.write_bytes(recording.read_bytes()[:200])  # a new run: a shorter file
    assert follower.read().reload
    follower.reset()
    assert follower.reloads == 1 and not follower.recording.calls
    _read_all(follower)
    assert follower.sources[0].offset <= 200


def test_a_missing_file_is_waited_for(tmp_path: Path, recording: Path) -> None:
    path = tmp_path / "later.jsonl"
    follower = Follower([path])
    assert not follower.read().changed and follower.missing == [path]
    path.write_bytes(recording.read_bytes())
    _read_all(follower)
    assert follower.missing == [] and follower.ended


def test_two_processes_files_merge_side_by_side(job: list[Path]) -> None:
    follower = Follower(list(reversed(job)))  # any order
    _read_all(follower)
    lanes = [lane for lane, _ in follower.rows]
    assert {lane[2] for lane in lanes} == {0, 1}
    assert {lane[0] for lane in lanes} >= {"step", "scale"}
    expected = merge([(i, read_recording(job[i])[0]) for i in (1, 0)])  # in the order given
    assert follower.divergences == expected.divergences
    (divergence,) = follower.divergences
    assert divergence.function == "step" and divergence.processes == (1,)
    step_1 = next(lane for lane in lanes if lane[0] == "step" and lane[2] == 1)
    assert follower.diverged(step_1) is divergence
    assert follower.diverged_function((*step_1[:2], 0))
    assert follower.source_of(step_1).path == job[1]
    assert len(follower.calls_of(step_1)) == len(follower.calls_of((*step_1[:2], 0))) + 1


def test_a_long_jobs_divergences_are_looked_for_a_slice_at_a_time(
    job: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = Follower(job)
    _read_all(whole)
    monkeypatch.setattr(fl, "MERGE_AT_ONCE", 0)
    follower = Follower(job)
    while follower.read().more:
        pass
    assert follower.update(loading=True) is None and follower.divergences == ()
    search = follower.update()  # read: now looked for, a slice per turn
    assert search is not None
    while not search.step(budget_ms=0.0):
        pass
    assert search.found and follower.divergences == whole.divergences
    assert follower.update() is None  # nothing new: not looked for again
    # A search made stale by a reload says it is over and sets nothing.
    follower.divergences_at = -1
    stale = follower.update()
    assert stale is not None
    follower.reset()
    assert stale.step() and not stale.found
