"""One recording per process of a real ``jax.distributed`` job, and ``jitlab summary`` over them.

The jobs are real: local CPU processes joined through ``jax.distributed.initialize`` (gloo
collectives), each under ``python -m jitlab.cli watch`` (see ``distributed.py``).
"""

from __future__ import annotations

import fcntl
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from jitlab.cli import main
from jitlab.probe import _jax
from jitlab.recordings.processes import merge, process_of
from jitlab.recordings.reader import read_recording

sys.path.insert(0, str(Path(__file__).parent))
import distributed
from recorded import call_line

pytestmark = pytest.mark.slow

PREPROCESS_CALL = next(
    n
    for n, text in enumerate(Path(distributed.__file__).read_text().splitlines(), 1)
    if "preprocess(np.full" in text
)

SINGLE = """
import jax, jax.numpy as jnp

@jax.jit
def step(x):
    return x * 2

step(jnp.ones(3)); step(jnp.ones(4)); step(jnp.ones(4))
"""


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def watch_alone(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    program = tmp_path / "single.py"
    program.write_text(SINGLE)
    command = distributed.watch_command(tmp_path / "run.jsonl", str(program))
    return subprocess.run(
        command, env=distributed.clean_env(**env), capture_output=True, text=True, timeout=60
    )


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two processes, their index given only to ``jax.distributed.initialize`` in code."""
    out = tmp_path_factory.mktemp("job") / "run.jsonl"
    distributed.run_job(out, processes=2)
    return out.parent


def test_each_process_of_a_job_writes_its_own_recording(job: Path) -> None:
    # No launcher variable: each file began under a provisional name (run.jsonl for the
    # first to lock it, run.pid<PID>.jsonl for the other) and was renamed at the first compile.
    assert sorted(p.name for p in job.iterdir()) == ["run.p0.jsonl", "run.p1.jsonl"]
    for index in (0, 1):
        written = lines(job / f"run.p{index}.jsonl")
        assert all(line["process"] == index for line in written)
        start, info = written[0], written[1]
        assert start["type"] == "start" and start["processes"] == 2 and start["host"]
        assert info["type"] == "process"
        assert (info["processes"], info["local_devices"], info["devices"]) == (2, 1, 2)
        assert written[-1]["type"] == "end"
        recording, _ = read_recording(job / f"run.p{index}.jsonl")
        assert recording.process is not None and recording.process.index == index
        assert recording.bad_lines == 0 and recording.ended


def test_the_summary_names_the_process_that_diverged(job: Path, capsys) -> None:
    files = [str(job / "run.p1.jsonl"), str(job / "run.p0.jsonl")]  # any order
    assert main(["summary", *files, "--json"]) == 1
    merged = json.loads(capsys.readouterr().out)
    assert merged["processes"] == [0, 1]
    [divergence] = merged["divergences"]
    assert divergence["function"] == "preprocess"
    assert divergence["signature"] == "x: f32[7,8]"
    assert (divergence["processes"], divergence["others"]) == ([1], [0])
    assert divergence["fields"] == ["x: f32[8,8] → f32[7,8]"]
    first = divergence["first"]
    assert first["process"] == 1 and first["compile_number"] == 2
    assert first["called_from"].endswith(f"distributed.py:{PREPROCESS_CALL}")
    by_name = {f["function"]: f["processes"] for f in merged["functions"]}
    # The sharded step compiled once in each process: counted once per process, no divergence.
    assert [by_name["train_step"][p]["compiles"] for p in "01"] == [1, 1]
    assert [by_name["preprocess"][p]["compiles"] for p in "01"] == [1, 2]
    # Each process's array committed to its own device: one program each, each naming its
    # device, and no divergence (the only one is preprocess's, above).
    mine = by_name["on_my_device"]
    texts = [text for p in "01" for text in mine[p]["signatures"]]
    assert len(texts) == 2 and texts[0] != texts[1], texts  # cpu:0, and process 1's (cpu:2048)
    assert all(re.fullmatch(r"x: f32\[8\] @ cpu:\d+", text) for text in texts), texts

    assert main(["summary", *files]) == 1
    text = " ".join(capsys.readouterr().out.split())
    assert "process 1 compiled preprocess for x: f32[7,8]; process 0 did not" in text


def test_a_launchers_index_names_the_file_from_the_start(tmp_path: Path) -> None:
    result = watch_alone(tmp_path, SLURM_PROCID="1", SLURM_NTASKS="2")
    assert result.returncode == 0, result.stderr
    assert [p.name for p in tmp_path.glob("run*")] == ["run.p1.jsonl"]
    written = lines(tmp_path / "run.p1.jsonl")
    assert all(line["process"] == 1 for line in written)
    assert (written[0]["process"], written[0]["processes"]) == (1, 2)
    # JAX itself runs alone here; the launcher's index stands, the devices are this process's.
    info = next(line for line in written if line["type"] == "process")
    assert (info["processes"], info["local_devices"]) == (2, 1)


def test_a_single_process_writes_run_jsonl_as_before(tmp_path: Path) -> None:
    result = watch_alone(tmp_path, SLURM_PROCID="0", SLURM_NTASKS="1")  # a job of one
    assert result.returncode == 0, result.stderr
    assert [p.name for p in tmp_path.glob("run*")] == ["run.jsonl"]
    written = lines(tmp_path / "run.jsonl")
    assert not any("process" in line for line in written)
    assert {line["type"] for line in written} == {"start", "call", "hits", "notice", "end"}
    # the one notice: JAX's own compiles (jnp.ones) left out of the listing, counted
    assert [line["notice"] for line in written if line["type"] == "notice"] == ["internal_left_out"]
    recording, _ = read_recording(tmp_path / "run.jsonl")
    assert recording.process is None and len(recording.calls) == 2


def test_a_second_writer_of_the_same_file_gets_a_provisional_one(tmp_path: Path) -> None:
    # Another process holds run.jsonl: this one must not write into it.
    held = (tmp_path / "run.jsonl").open("a")
    held.write("theirs\n")
    held.flush()
    fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        result = watch_alone(tmp_path)
    finally:
        held.close()
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "run.jsonl").read_text() == "theirs\n"
    [mine] = tmp_path.glob("run.pid*.jsonl")
    recording, _ = read_recording(mine)
    assert len(recording.calls) == 2 and recording.ended and recording.process is None
    assert str(mine) in " ".join(result.stderr.split())  # the summary names where it went


def test_the_launcher_variables_are_those_jax_reads() -> None:
    from jax._src.clusters import ompi_cluster, slurm_cluster

    pairs = dict(_jax.LAUNCHER_PROCESS_VARIABLES)
    assert pairs[slurm_cluster._PROCESS_ID] == slurm_cluster._PROCESS_COUNT
    assert pairs[ompi_cluster._PROCESS_ID] == ompi_cluster._PROCESS_COUNT


# -- merging, on written recordings --------------------------------------------------------------
def call(function: str, shape: list[int], t: float, kind: str = "compile") -> dict:
    return call_line(function, shape, t, kind, defined_at=f"/host{int(t)}/train.py:3")


def write(path: Path, *objs: dict) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objs))
    return path


def test_an_old_recording_without_process_fields_still_reads_and_merges(tmp_path: Path) -> None:
    old = write(
        tmp_path / "run.p3.jsonl", {"type": "start", "argv": [], "time": 1.0}, call("f", [2], 0.1)
    )
    recording, _ = read_recording(old)
    assert recording.bad_lines == 0 and recording.start.host is None and recording.process is None
    assert process_of(recording, str(old), 0) == 3  # from the file's name
    assert process_of(recording, "other.jsonl", 5) == 5  # else its position


def test_the_same_signatures_compiled_more_often_is_a_divergence(tmp_path: Path) -> None:
    a = write(tmp_path / "a", call("f", [2], 0.1))
    b = write(tmp_path / "b", call("f", [2], 1.1), call("f", [2], 1.5, kind="recompile"))
    merged = merge([(0, read_recording(a)[0]), (1, read_recording(b)[0])])
    # Hosts define f in different folders: still one function.
    assert len(merged.functions) == 1
    [d] = merged.divergences
    assert (d.kind, d.processes, d.others, d.counts) == ("compiles", (1,), (0,), {0: 1, 1: 2})
    assert d.first is not None and (d.first.process, d.first.compile_number) == (1, 2)
    same = merge([(0, read_recording(a)[0]), (1, read_recording(a)[0])])
    assert same.divergences == ()
    with pytest.raises(ValueError, match="same process: process 0"):
        merge([(0, read_recording(a)[0]), (0, read_recording(b)[0])])


def test_summary_refuses_bad_input_with_status_2(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as missing:
        main(["summary", str(tmp_path / "nope.jsonl")])
    assert missing.value.code == 2
    junk = write(tmp_path / "junk.jsonl", {"type": "start", "argv": [], "time": 1.0, "process": 0})
    with pytest.raises(SystemExit) as twice:
        main(["summary", str(junk), str(junk)])
    assert twice.value.code == 2
    assert "same process" in capsys.readouterr().err


def test_a_four_process_job(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run.jsonl"
    distributed.run_job(out, processes=4)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [f"run.p{i}.jsonl" for i in range(4)]
    assert main(["summary", *(str(tmp_path / n) for n in names)]) == 1
    text = " ".join(capsys.readouterr().out.split())
    assert "process 1 compiled preprocess for x: f32[7,8]; processes 0, 2, 3 did not" in text
