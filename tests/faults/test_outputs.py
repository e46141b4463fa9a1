"""No output of jitlab destroys a user's file: refused in one line (exit 2) before anything
runs; devices and pipes are written as streams (issue 20)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from environment_lines import program_lines

pytestmark = pytest.mark.slow

JITLAB = [sys.executable, "-m", "jitlab.cli"]
PROGRAM = (
    "import jax, jax.numpy as jnp\nf = jax.jit(lambda x: x + 1)\nf(jnp.ones(2)); f(jnp.ones(2))\n"
)


def jitlab(*args: str, cwd: Path, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*JITLAB, *args], capture_output=True, text=True, timeout=180, cwd=cwd, **kw
    )


def one_line_refusal(done: subprocess.CompletedProcess[str], command: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert len(program_lines(done.stderr)) == 1, done.stderr
    assert program_lines(done.stderr)[0].startswith(f"jitlab: error: {command}:"), done.stderr


def test_watch_never_writes_over_the_program_or_a_users_file(tmp_path):
    prog = tmp_path / "prog.py"
    source = "print('the program ran')\n"
    prog.write_text(source)
    done = jitlab("watch", "--out", "prog.py", "--", "python", "prog.py", cwd=tmp_path)
    one_line_refusal(done, "watch")
    assert "the program ran" not in done.stdout  # refused before it runs
    assert prog.read_text() == source
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    done = jitlab("watch", "--out", "notes.txt", "--", "python", "prog.py", cwd=tmp_path)
    one_line_refusal(done, "watch")
    assert notes.read_text() == "my notes\n"


def test_watch_rewrites_its_own_recording_and_an_empty_file(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    for _ in range(2):  # the second run writes over the first one's recording
        done = jitlab("watch", "--out", "rec.jsonl", "--", "python", "prog.py", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    lines = (tmp_path / "rec.jsonl").read_text().splitlines()
    assert [json.loads(line)["type"] for line in lines].count("start") == 1
    (tmp_path / "empty.jsonl").write_text("")
    done = jitlab("watch", "--out", "empty.jsonl", "--", "python", "prog.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_report_never_writes_over_its_input_or_a_users_file(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    done = jitlab("watch", "--out", "run.jsonl", "--", "python", "prog.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    recording = (tmp_path / "run.jsonl").read_bytes()
    one_line_refusal(jitlab("report", "run.jsonl", "-o", "run.jsonl", cwd=tmp_path), "report")
    assert (tmp_path / "run.jsonl").read_bytes() == recording
    (tmp_path / "page.html").write_text("<html>my page</html>")
    one_line_refusal(jitlab("report", "run.jsonl", "-o", "page.html", cwd=tmp_path), "report")
    assert (tmp_path / "page.html").read_text() == "<html>my page</html>"
    for _ in range(2):  # its own page is rewritten
        done = jitlab("report", "run.jsonl", "-o", "report.html", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    assert "<title>jitlab report" in (tmp_path / "report.html").read_text()
    for _ in range(2):  # and its Chinese page too, over the English one and over itself
        done = jitlab("--lang", "zh", "report", "run.jsonl", "-o", "report.html", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    assert "<title>jitlab 报告" in (tmp_path / "report.html").read_text()


def test_devices_and_pipes_are_written_as_streams(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    done = jitlab("watch", "--out", "/dev/null", "--", "python", "prog.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    # --out /dev/stdout | cat: the recording reaches the reader of the pipe, line by line.
    watch = subprocess.Popen(
        [*JITLAB, "watch", "--out", "/dev/stdout", "--", "python", "prog.py"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    cat = subprocess.run(["cat"], stdin=watch.stdout, capture_output=True, text=True, timeout=180)
    watch.stdout.close()
    status = watch.wait(timeout=180)
    with watch.stderr:  # closed: else a ResourceWarning (an error in this suite)
        assert status == 0, watch.stderr.read()
    kinds = [json.loads(line)["type"] for line in cat.stdout.splitlines()]
    assert kinds[0] == "start" and kinds[-1] == "end" and "call" in kinds
    (tmp_path / "run.jsonl").write_text(cat.stdout)
    report = subprocess.run(
        f"'{sys.executable}' -m jitlab.cli report run.jsonl -o /dev/stdout | cat",
        shell=True,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
    )
    assert report.returncode == 0, report.stderr
    assert report.stdout.startswith("<!DOCTYPE html>")


def test_a_stream_that_cannot_take_the_output_is_one_line(tmp_path):
    """report and notebook write through one helper (jitlab.cli._output.write_output): a
    device that refuses the bytes (/dev/full: no space) is one line and exit status 2."""
    (tmp_path / "prog.py").write_text(PROGRAM)
    done = jitlab("watch", "--out", "run.jsonl", "--", "python", "prog.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for command in (("report", "run.jsonl"), ("notebook", "side-effects")):
        done = jitlab(*command, "-o", "/dev/full", cwd=tmp_path)
        one_line_refusal(done, command[0])
        assert done.stderr.strip().endswith("cannot write /dev/full: No space left on device")
        assert done.stdout == ""
        done = jitlab("--lang", "zh", *command, "-o", "/dev/full", cwd=tmp_path)
        assert done.returncode == 2 and f"{command[0]}：无法写入 /dev/full：" in done.stderr
