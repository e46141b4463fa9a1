"""Fault table 5 (stop 61): faults the earlier tables did not inject, each for real — damaged
recording files given to ``jitlab summary|diff|report``, watched programs that end in odd ways
(a non-int ``SystemExit``, ``sys.exit`` in a thread, their own SIGINT handler, ``signal.alarm``,
a reader that leaves a pipe), ``JITLAB_*`` variables with values jitlab cannot use. Each run
under plain ``python`` and under ``jitlab watch``: the same status, stdout and program stderr,
and nothing of the recording lost without a word."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from environment_lines import program_lines

pytestmark = pytest.mark.slow

JITLAB = [sys.executable, "-m", "jitlab.cli"]
TIMEOUT = 180

START = {"type": "start", "format": "1.2", "jitlab": "0", "jax": "0.10.2", "argv": ["t.py"]}
LEAF = {"path": "x", "shape": [8], "dtype": "float32", "weak_type": False, "sharding": None}
CALL = {
    "type": "call",
    "index": 0,
    "function": "step",
    "kind": "compile",
    "latency_ms": 5.0,
    "compile_ms": 4.0,
    "signature": {"args": [LEAF], "static": {}, "tree": "[*]"},
    "card": 0,
    "defined_at": "t.py:3",
    "t": 0.5,
}
END = {"type": "end", "t": 2.0}


def _lines(*objects: dict) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objects)


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*JITLAB, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
    )


# -- damaged recordings ---------------------------------------------------------------------
def test_a_recording_cut_mid_write_is_said_cut_by_diff_and_summary(tmp_path: Path) -> None:
    """The new run was killed while a line was being written: ``jitlab diff`` compared it as
    if complete ("ok", its function "gone") and said nothing; now both commands say it has
    no end line and its last line was cut off, and ``--json`` carries both."""
    whole = _lines(START, CALL, END)
    (tmp_path / "base.jsonl").write_bytes(whole)
    cut = _lines(START) + json.dumps(CALL).encode()[:40]  # no newline, no end
    (tmp_path / "new.jsonl").write_bytes(cut)
    done = cli("diff", "base.jsonl", "new.jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "new: the recording has no end line" in done.stdout
    assert "the last line was cut off" in done.stdout
    data = json.loads(cli("diff", "--json", "base.jsonl", "new.jsonl", cwd=tmp_path).stdout)
    assert data["ended"] == {"base": True, "new": False}
    assert data["cut_off"] == {"base": False, "new": True}
    summary = cli("summary", "new.jsonl", cwd=tmp_path)
    assert "process 0: the recording has no end line" in summary.stdout
    assert "the last line was cut off" in summary.stdout
    data = json.loads(cli("summary", "--json", "new.jsonl", cwd=tmp_path).stdout)
    assert data["ended"] == {"0": False} and data["cut_off"] == {"0": True}
    zh = cli("--lang", "zh", "diff", "base.jsonl", "new.jsonl", cwd=tmp_path)
    assert "新记录：记录没有结束行" in zh.stdout and "最后一行被截断" in zh.stdout


DAMAGED = {
    # A crash that left a block of NULs between two lines (a preallocated file).
    "nul block": _lines(START, CALL) + b"\0" * 4096 + b"\n" + _lines(END),
    # NULs inside a line, a byte that is not UTF-8 inside a string.
    "nul in a line": _lines(START)
    + json.dumps(CALL).encode()[:30]
    + b"\0" * 64
    + b"\n"
    + _lines(CALL, END),
    "not utf-8": _lines(START)
    + _lines(CALL).replace(b'"step"', b'"st\xff\xfep"')
    + _lines(CALL, END),
    # One line of 20 MiB (over the reader's 16 MiB), the rest whole.
    "huge line": _lines(START, CALL)
    + b'{"type": "call", "function": "'
    + b"a" * (20 << 20)
    + b'"}\n'
    + _lines(END),
}


@pytest.mark.parametrize("name", sorted(DAMAGED))
def test_a_damaged_line_is_skipped_and_said_by_every_command(tmp_path: Path, name: str) -> None:
    (tmp_path / "run.jsonl").write_bytes(DAMAGED[name])
    (tmp_path / "base.jsonl").write_bytes(_lines(START, CALL, END))
    summary = cli("summary", "run.jsonl", cwd=tmp_path)
    assert summary.returncode == 0 and "1 unreadable line skipped" in summary.stdout
    diff = cli("diff", "base.jsonl", "run.jsonl", cwd=tmp_path)
    assert diff.returncode == 0 and "new: 1 unreadable line skipped" in diff.stdout
    report = cli("report", "run.jsonl", "-o", "r.html", cwd=tmp_path)
    assert report.returncode == 0 and "1 unreadable line skipped" in (
        tmp_path / "r.html"
    ).read_text(encoding="utf-8")
    for done in (summary, diff, report):
        assert "Traceback" not in done.stderr


NOT_A_RECORDING = {
    "only NULs": b"\0" * 100_000,
    "UTF-16": _lines(START, CALL, END).decode().encode("utf-16"),
    "empty": b"",
    "text": b"hello\nworld\n",
}


@pytest.mark.parametrize("name", sorted(NOT_A_RECORDING))
@pytest.mark.parametrize("command", ["summary", "diff", "report"])
def test_a_file_with_no_readable_line_is_refused_in_one_line(tmp_path, name, command) -> None:
    (tmp_path / "run.jsonl").write_bytes(NOT_A_RECORDING[name])
    (tmp_path / "base.jsonl").write_bytes(_lines(START, CALL, END))
    args = {
        "summary": ["summary", "run.jsonl"],
        "diff": ["diff", "base.jsonl", "run.jsonl"],
        "report": ["report", "run.jsonl", "-o", "r.html"],
    }[command]
    done = cli(*args, cwd=tmp_path)
    assert done.returncode == 2
    said = program_lines(done.stderr)
    assert said == [
        f"jitlab: error: {command}: run.jsonl is not a recording of `jitlab watch` "
        "(no line it could read)"
    ], done.stderr
    assert not (tmp_path / "r.html").exists()


# -- watched programs that end in odd ways --------------------------------------------------
JITTED = """
import jax, jax.numpy as jnp
f = jax.jit(lambda x: x * 2)
for _ in range(5):
    f(jnp.ones(3))
"""


def _program_part(stderr: str) -> list[str]:
    """The program's own stderr lines: what comes before the watch's table (centred title)."""
    return program_lines(stderr.split("jitlab watch · ", 1)[0].rstrip())


def _both(tmp_path: Path, body: str, **popen) -> tuple[list, list]:
    """(status, stdout, program stderr) of the program under python and under jitlab watch
    (the watch's own table cut off: what comes after its title)."""
    (tmp_path / "prog.py").write_text(JITTED + textwrap.dedent(body))
    runs = []
    for argv in (
        [sys.executable, "prog.py"],
        [*JITLAB, "watch", "--out", "rec.jsonl", "--", "python", "prog.py"],
    ):
        done = subprocess.run(
            argv, cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT, **popen
        )
        runs.append([done.returncode, done.stdout, _program_part(done.stderr)])
    return runs[0], runs[1]


@pytest.mark.parametrize(
    "value", ["None", "[1, 2]", "3.5", "True", "2**40", "-1", "256", "b'bytes'"]
)
def test_system_exit_with_any_value_ends_as_under_python(tmp_path: Path, value: str) -> None:
    plain, watched = _both(tmp_path, f"raise SystemExit({value})\n")
    assert watched == plain


def test_sys_exit_in_a_thread_ends_the_thread_only_as_under_python(tmp_path: Path) -> None:
    plain, watched = _both(
        tmp_path,
        """
        import sys, threading
        t = threading.Thread(target=sys.exit, args=(5,))
        t.start(); t.join()
        t = threading.Thread(target=lambda: (_ for _ in ()).throw(SystemExit("in a thread")))
        t.start(); t.join()
        print("main goes on")
        """,
    )
    assert watched == plain and plain[:2] == [0, "main goes on\n"]


def test_the_programs_own_sigint_handler_and_an_ignored_sigint_hold(tmp_path: Path) -> None:
    handled = """
        import signal, sys, time
        def save(signum, frame):
            print("checkpoint saved", signum, flush=True)
            sys.exit(7)
        signal.signal(signal.SIGINT, save)
        print("ready", flush=True)
        time.sleep(60)
    """
    ignored = """
        import signal, time
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("ready", flush=True)
        time.sleep(2)
        print("done")
    """
    for body, status in ((handled, 7), (ignored, 0)):
        (tmp_path / "prog.py").write_text(JITTED + textwrap.dedent(body))
        results = []
        for argv in (
            [sys.executable, "prog.py"],
            [*JITLAB, "watch", "--out", "rec.jsonl", "--", "python", "prog.py"],
        ):
            proc = subprocess.Popen(
                argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            try:
                assert proc.stdout.readline() == "ready\n"
                proc.send_signal(signal.SIGINT)
                out, _ = proc.communicate(timeout=TIMEOUT)
            finally:
                proc.kill()
            results.append((proc.returncode, out))
        assert results[0] == results[1] and results[0][0] == status, results
        lines = [json.loads(x) for x in (tmp_path / "rec.jsonl").read_text().splitlines()]
        assert lines[-1]["type"] == "end"


@pytest.mark.parametrize("how", ["alarm", "usr1"])
def test_a_signal_that_ends_the_program_by_default_keeps_the_recording(tmp_path, how) -> None:
    """``signal.alarm`` with no handler (a watchdog), SIGUSR1 from a launcher (Slurm's warning
    before preemption): python dies of the signal; under the watch it dies of it too, after
    the last hits and the end line are written (before: neither was)."""
    body = {
        "alarm": "import signal, time\nprint('ready', flush=True)\nsignal.alarm(1)\n",
        "usr1": "import time\nprint('ready', flush=True)\n",
    }[how]
    (tmp_path / "prog.py").write_text(JITTED + body + "time.sleep(30)\n")
    statuses = []
    for argv in (
        [sys.executable, "prog.py"],
        [*JITLAB, "watch", "--out", "rec.jsonl", "--", "python", "prog.py"],
    ):
        proc = subprocess.Popen(
            argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            assert proc.stdout.readline() == "ready\n"
            if how == "usr1":
                proc.send_signal(signal.SIGUSR1)
            statuses.append(proc.wait(timeout=TIMEOUT))
        finally:
            proc.kill()
            proc.communicate(timeout=TIMEOUT)
    signum = signal.SIGALRM if how == "alarm" else signal.SIGUSR1
    assert statuses == [-signum, -signum]
    lines = [json.loads(x) for x in (tmp_path / "rec.jsonl").read_text().splitlines()]
    assert lines[-1]["type"] == "end" and lines[-1]["signal"] == signal.Signals(signum).name
    assert [x["hits"] for x in lines if x["type"] == "hits"][-1] == 4


def test_a_reader_that_leaves_the_pipe_is_met_as_under_python(tmp_path: Path) -> None:
    """``… | head -1``: the program's print fails with BrokenPipeError, its traceback and
    status as under python; the recording still ends."""
    if shutil.which("sh") is None or shutil.which("head") is None:
        pytest.skip("no sh and head here")
    (tmp_path / "prog.py").write_text(JITTED + "for i in range(200000):\n    print('line', i)\n")
    results = []
    for command in (
        f"{sys.executable} prog.py",
        f"{sys.executable} -m jitlab.cli watch --out rec.jsonl -- python prog.py",
    ):
        done = subprocess.run(
            ["sh", "-c", f"{command} 2>err.txt | head -1"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        results.append((done.stdout, _program_part((tmp_path / "err.txt").read_text())))
    assert results[0] == results[1]
    assert results[0][1][-1] == "BrokenPipeError: [Errno 32] Broken pipe"
    lines = [json.loads(x) for x in (tmp_path / "rec.jsonl").read_text().splitlines()]
    assert lines[-1]["type"] == "end"


# -- JITLAB_* variables jitlab cannot use ---------------------------------------------------
@pytest.mark.parametrize("value", ["abc", "-5", "inf"])
def test_a_site_cost_floor_jitlab_cannot_use_is_said_once(tmp_path: Path, value: str) -> None:
    (tmp_path / "run.jsonl").write_bytes(_lines(START, CALL, END))
    env = {"JITLAB_SITE_COST_FLOOR_MS": value}
    done = cli("summary", "run.jsonl", cwd=tmp_path, env=env)
    assert done.returncode == 0
    assert program_lines(done.stderr) == [
        f"jitlab: warning: ignoring JITLAB_SITE_COST_FLOOR_MS={value!r}: expected a number of "
        "milliseconds >= 0; using 1000 ms"
    ]
    fine = cli("summary", "run.jsonl", cwd=tmp_path, env={"JITLAB_SITE_COST_FLOOR_MS": "50"})
    assert program_lines(fine.stderr) == []


def test_a_scenarios_folder_that_is_not_one_is_said_and_the_shipped_ones_listed(tmp_path):
    """``JITLAB_SCENARIOS`` naming no folder emptied the list and advised rewriting the
    manifest; now it is said once and the shipped scenarios are used."""
    env = {"JITLAB_SCENARIOS": str(tmp_path / "missing"), "LANG": "C.UTF-8"}
    done = cli("list", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    said = program_lines(done.stderr)
    assert said == [
        f"jitlab: warning: ignoring JITLAB_SCENARIOS={str(tmp_path / 'missing')!r}: not a "
        "folder; using the shipped scenarios"
    ]
    assert "dynamic-shapes" in done.stdout and "out of date" not in done.stdout
    ran = cli("run", "dynamic-shapes", "--variant", "fix", cwd=tmp_path, env=env)
    assert ran.returncode == 0 and "unknown scenario" not in ran.stderr, ran.stderr
