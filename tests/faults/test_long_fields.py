"""Fault table (issue 51, row 13): a recorded field of any length costs a bounded share.

A 30,000-character function name held ``jitlab summary`` of a job for 15.6 s (rich's
highlighter, quadratic in a line's length). Every reader now shows a long field elided, its
length said, so what it prints is bounded whatever the field holds; ``--json`` keeps it
whole. Time is measured in ``benchmarks/long_fields.py``, never here: these tests check the
output (a timeout only stops a reader that would run for hours).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from ptyrun import run_on_pty, terminal
from recorded import call_line

pytestmark = [
    pytest.mark.slow,
    pytest.mark.qt_log_ignore("propagateSizeHints", "does not support raise"),
]

JITLAB = str(Path(sys.executable).with_name("jitlab"))
TIMEOUT = 300  # far past a bounded reader's seconds; a quadratic one stops here


def recording(path: Path, name: str, compiles: int, process: int | None = None) -> Path:
    """A recording of ``name`` compiled ``compiles`` times, defined in a folder half as
    long as the name (``…/train.py:22``)."""
    start: dict = {"type": "start", "argv": ["t.py"], "time": 1.0}
    if process is not None:
        start["process"] = process
    where = "/home/u/proj/" + "d" * (len(name) // 2) + "/train.py:22"
    calls = [
        call_line(name, [8 + i], 0.1 * (i + 1), "recompile" if i else "compile", where)
        for i in range(compiles)
    ]
    lines = [start, *calls, {"type": "end", "t": 9.0}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def long_name(length: int) -> str:
    return ("step_" + "ab" * length)[: length - 4] + "_end"


def assert_elided(output: str, length: int) -> None:
    flat = re.sub(r"\x1b\[[0-9;]*m|[│┃\s]", "", output)  # a cell's lines joined again
    assert f"[{length:,}characters]" in flat, output[-2000:]
    assert "step_abab" in flat and "_end" in flat  # its head and its tail
    assert len(output) < 60_000, len(output)  # bounded: the name is a bounded part of it


@pytest.mark.parametrize("length", [30_000, 1_000_000])
def test_summary_diff_and_the_watch_table_elide_a_long_name(tmp_path: Path, length: int):
    name = long_name(length)
    one = recording(tmp_path / "run.jsonl", name, 3)
    base = recording(tmp_path / "base.jsonl", name, 2)
    env = terminal()
    for argv, status in (
        ([JITLAB, "summary", str(one)], 0),
        ([JITLAB, "diff", str(base), str(one)], 1),
        (
            [
                sys.executable,
                "-c",
                "import sys; from jitlab.cli.watch import print_watch_summary as p; p(sys.argv[1])",
                str(one),
            ],
            0,
        ),
    ):
        result = run_on_pty(argv, columns=100, env=env, timeout=TIMEOUT)
        assert result.status == status, result.output[-2000:]
        assert_elided(result.output, length)
    # --json is data: the name whole.
    done = run_on_pty([JITLAB, "summary", "--json", str(one)], env=env, timeout=TIMEOUT)
    data = json.loads(done.output.replace("\r\n", "\n"))
    assert data["functions"][0]["function"] == name


def test_a_jobs_summary_elides_a_long_name_in_its_divergences(tmp_path: Path) -> None:
    """The divergence's line names the function: 15.6 s for 30,000 characters before."""
    name, length = long_name(30_000), 30_000
    p0 = recording(tmp_path / "run.p0.jsonl", name, 3, 0)
    p1 = recording(tmp_path / "run.p1.jsonl", name, 2, 1)
    result = run_on_pty([JITLAB, "summary", str(p0), str(p1)], env=terminal(), timeout=TIMEOUT)
    assert result.status == 1, result.output[-2000:]  # diverged
    assert_elided(result.output, length)
    assert "differently" in result.output or "compiled" in result.output


def test_the_report_and_the_notebook_elide_a_long_name(tmp_path: Path) -> None:
    from jitlab.notebook.render import file_recording_html, file_recording_text
    from jitlab.recordings.reader import read_recording
    from jitlab.report.page import render_report

    path = recording(tmp_path / "run.jsonl", long_name(1_000_000), 3)
    recorded, _ = read_recording(path)
    for face, text in (
        ("notebook text", file_recording_text(recorded)),
        ("notebook html", file_recording_html(recorded)),
        ("report", render_report([(str(path), recorded)])),
        ("report zh", render_report([(str(path), recorded)], lang="zh")),
    ):
        said = "[共 1,000,000 个字符]" if face.endswith("zh") else "[1,000,000 characters]"
        assert said in text and "step_abab" in text and "_end" in text, face
        assert len(text) < 200_000, (face, len(text))  # was 5 MB: the name 5 times whole


def test_the_recording_window_elides_a_long_name(qtbot, tmp_path: Path) -> None:
    from PySide6.QtCore import QSettings

    from jitlab.gui.app import application
    from jitlab.gui.recording.window import open_recording_window

    application()
    path = recording(tmp_path / "run.jsonl", long_name(1_000_000), 3)
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    window = open_recording_window(path, False, settings=settings)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: not window.loading and len(window.lanes()) == 1, timeout=60_000)
    ((function, defined_at, _),) = window.lanes()
    assert "[1,000,000 characters]" in function and len(function) < 1_000
    assert defined_at is not None and defined_at.endswith("/train.py:22")
    assert "[500,025 characters]" in defined_at
