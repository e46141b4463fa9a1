"""Fault table (issue 51, row 12): a recording is data, never commands to the terminal.

A real recording of ``jitlab watch`` has every string in it (names, reasons, signatures,
paths, errors) made terminal commands and invisible characters (:data:`escapes.HOSTILE`:
clear the screen, set the title, OSC 52 to the clipboard, C1's CSI, a right-to-left
override). Each reader runs on a real pseudo-terminal and nothing of it reaches the terminal
raw: each is shown written out (``\\x1b]52;c;…``). ``--json`` keeps the strings whole and
escaped; the watch's end table is tested live, on a program whose function and file names
hold the same commands; the report, the notebook's views and the recording window show them
as text, in order.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from escapes import HOSTILE, SHOWN, raw_controls
from hostile import make_hostile, record_real, window_texts
from ptyrun import run_on_pty, terminal

pytestmark = [
    pytest.mark.slow,
    pytest.mark.qt_log_ignore("propagateSizeHints", "does not support raise"),
]

JITLAB = str(Path(sys.executable).with_name("jitlab"))


@pytest.fixture(scope="module")
def real_lines(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    return record_real(tmp_path_factory.mktemp("real"))


@pytest.fixture
def hostile(real_lines: list[dict], tmp_path: Path) -> tuple[list[str], dict[int, str]]:
    """The recording's lines, every string in them hostile; {number: the string}."""
    return make_hostile(real_lines, HOSTILE)


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _without_a_compile(lines: list[str]) -> list[str]:
    calls = [i for i, text in enumerate(lines) if '"type": "call"' in text]
    return [text for i, text in enumerate(lines) if i != calls[1]]


def assert_shown_as_text(output: str) -> None:
    raw = raw_controls(output)
    assert raw == [], raw[:5]
    for shown in SHOWN:
        assert shown in output, output[-3000:]


def test_summary_on_a_terminal_shows_commands_as_text(hostile, tmp_path: Path) -> None:
    path = _write(tmp_path / "run.jsonl", hostile[0])
    result = run_on_pty([JITLAB, "summary", str(path)], env=terminal())
    assert result.status == 0, result.output[-3000:]
    assert_shown_as_text(result.output)


def test_a_jobs_summary_shows_its_divergences_as_text(hostile, tmp_path: Path) -> None:
    """Two processes, one a compile short: the divergence's line names the function."""
    p0 = _write(tmp_path / "run.p0.jsonl", hostile[0])
    p1 = _write(tmp_path / "run.p1.jsonl", _without_a_compile(hostile[0]))
    result = run_on_pty([JITLAB, "summary", str(p0), str(p1)], env=terminal())
    assert result.status == 1, result.output[-3000:]  # they diverged
    assert_shown_as_text(result.output)


def test_diff_on_a_terminal_shows_commands_as_text(hostile, tmp_path: Path) -> None:
    base = _write(tmp_path / "base.jsonl", _without_a_compile(hostile[0]))
    new = _write(tmp_path / "new.jsonl", hostile[0])
    result = run_on_pty([JITLAB, "diff", str(base), str(new)], env=terminal())
    assert result.status == 1, result.output[-3000:]  # one more compile
    assert_shown_as_text(result.output)


@pytest.mark.parametrize("command", ["summary", "diff"])
def test_json_on_a_terminal_keeps_every_string_whole_and_escaped(
    hostile, tmp_path: Path, command: str
) -> None:
    """``--json`` is data: each string as the recording holds it once parsed, and nothing
    in the line a terminal would act on (C1, DEL and bidi written as JSON escapes too)."""
    lines, written = hostile
    files = [_write(tmp_path / "run.jsonl", lines)]
    if command == "diff":
        files.insert(0, _write(tmp_path / "base.jsonl", _without_a_compile(lines)))
    result = run_on_pty([JITLAB, command, "--json", *map(str, files)], env=terminal())
    assert raw_controls(result.output) == []
    data = json.loads(result.output.replace("\r\n", "\n"))
    found: set[str] = set()

    def strings(value: object) -> None:
        if isinstance(value, dict):
            found.update(k for k in value if isinstance(k, str))
            for v in value.values():
                strings(v)
        elif isinstance(value, list):
            for v in value:
                strings(v)
        elif isinstance(value, str):
            found.add(value)

    strings(data)
    recording = [json.loads(text) for text in lines]
    names = {obj["function"] for obj in recording if obj.get("type") == "call"}
    assert names and names <= found, names - found  # the names whole, commands and all
    assert set(written.values()) & found


def test_the_watch_end_table_shows_a_programs_commands_as_text(tmp_path: Path) -> None:
    """Live: a program whose jitted function's name and file name hold the commands; the
    table ``jitlab watch`` prints at its end shows them written out."""
    folder = tmp_path / "a\x1b]0;pwned\x07\u202ecod"
    folder.mkdir()
    program = folder / "p\x1b[2J.py"
    program.write_text(
        textwrap.dedent(
            f"""
            import jax, jax.numpy as jnp

            def step(x):
                return x * 2

            step.__name__ = step.__qualname__ = {HOSTILE.format(n=1)!r}
            f = jax.jit(step)
            for n in (2, 3, 3):
                f(jnp.ones(n))
            """
        ),
        encoding="utf-8",
    )
    out = tmp_path / "w.jsonl"
    result = run_on_pty(
        [JITLAB, "watch", "--out", str(out), "--", "python", str(program)],
        env=terminal(),
        timeout=180,
    )
    assert result.status == 0, result.output[-3000:]
    assert_shown_as_text(result.output)
    assert "\\x1b[2J.py" in result.output  # the file it is defined in, named as it is
    assert "pwned" in out.read_text(encoding="utf-8")  # the recording keeps the data


# -- the faces that are not a terminal: shown as text, in order ---------------------------
def test_the_report_and_the_notebook_show_commands_as_text(hostile, tmp_path: Path) -> None:
    from jitlab.notebook.render import file_recording_html, file_recording_text
    from jitlab.recordings.reader import read_recording
    from jitlab.report.page import render_report

    path = _write(tmp_path / "run.jsonl", hostile[0])
    recording, _ = read_recording(path)
    assert recording.calls and recording.bad_lines == 0
    for face, text in (
        ("report", render_report([(str(path), recording)])),
        ("notebook html", file_recording_html(recording)),
        ("notebook text", file_recording_text(recording)),
    ):
        raw = raw_controls(text)
        assert raw == [], (face, raw[:5])
        assert "\\u202e" in text, face


@pytest.fixture
def open_window(qtbot, tmp_path: Path):
    from PySide6.QtCore import QSettings

    from jitlab.gui.app import application
    from jitlab.gui.recording.window import open_recording_window

    application()
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)

    def make(path: Path):
        window = open_recording_window(path, False, settings=settings)
        qtbot.addWidget(window)
        return window

    return make


def test_the_recording_window_shows_commands_as_text(qtbot, open_window, hostile, tmp_path):
    """``jitlab open``: every label, cell, tip and script view, as Qt paints it, holds no
    control or format character (a right-to-left override would reorder the line)."""
    from jitlab.gui.views.call_text import WORD_JOINER

    path = _write(tmp_path / "run.jsonl", hostile[0])
    window = open_window(path)
    qtbot.waitUntil(lambda: not window.loading and len(window.lanes()) == 3, timeout=30_000)
    shown = window_texts(window, qtbot)
    # The chart's legend is our own words, its names held whole by word joiners we put there.
    ours = {"QLabel#chartLegend"}
    shown = [(w, text.replace(WORD_JOINER, "") if w in ours else text) for w, text in shown]
    raw = [(where, found) for where, text in shown for found in raw_controls(text)]
    assert raw == [], raw[:8]
    assert any("\\u202e" in text for _, text in shown)
