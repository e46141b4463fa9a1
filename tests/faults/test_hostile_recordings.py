"""Fault table, hostile recordings: what a file holds is data, however odd.

Everything here is real: a FIFO made with ``os.mkfifo``, a symlink to ``/dev/zero``, numbers
and lines written to disk as a damaged (or malicious) recording would hold them, the CLI run
as a subprocess (with a timeout: a hang fails the test), the report parsed as HTML, the
recording window shown in a process of its own (Qt read ``<img src=/dev/zero>`` until it ran
out of memory) and in this one (what every widget shows, rendered as Qt paints it).
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import textwrap
import tracemalloc
from html.parser import HTMLParser
from pathlib import Path

import pytest
from environment_lines import program_lines
from hostile import (
    CRASHING,
    HARMLESS_IMG,
    check_literal,
    make_hostile,
    markers_in,
    record_real,
    rendered,
    shown_texts,
    window_texts,
)

from jitlab.recordings.processes import merge
from jitlab.recordings.reader import MAX_LINE_BYTES, NotARegularFile, read_recording
from jitlab.recordings.summary import summarize
from jitlab.report.page import render_report

JITLAB = Path(sys.executable).with_name("jitlab")
TIMEOUT = 120  # a CLI that hangs (reading a FIFO, /dev/zero) fails here, not forever
pytestmark = [
    pytest.mark.slow,
    pytest.mark.qt_log_ignore("propagateSizeHints", "does not support raise"),
]


def line(obj: object) -> str:
    return json.dumps(obj) + "\n"


START = {"type": "start", "jitlab": "0", "jax": "0.10.2", "argv": ["t.py"], "time": 1.7e9}
LEAF = {"path": "x", "shape": [8], "dtype": "float32", "weak_type": False, "sharding": None}
CALL = {
    "type": "call",
    "index": 0,
    "function": "f",
    "kind": "compile",
    "latency_ms": 5.0,
    "trace_ms": 1.0,
    "lower_ms": 1.0,
    "compile_ms": 2.0,
    "signature": {"args": [LEAF], "static": {}, "tree": "[*]"},
    "card": 0,
    "defined_at": "t.py:1",
    "t": 0.5,
}
END = {"type": "end", "t": 2.0}


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [str(JITLAB), *args], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, env=env
    )


# -- not a regular file: refused in one line, never waited on ---------------------------
def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "run.jsonl"
    os.mkfifo(path)
    return path


def _zero(tmp_path: Path) -> Path:
    path = tmp_path / "run.jsonl"
    path.symlink_to("/dev/zero")
    return path


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("make", [_fifo, _zero], ids=["fifo", "dev-zero"])
@pytest.mark.parametrize("command", ["summary", "report", "open", "diff"])
def test_a_fifo_or_a_device_is_refused_in_one_line(tmp_path: Path, make, command) -> None:
    path = make(tmp_path)
    args = {
        "summary": ["summary", path.name],
        "report": ["report", path.name, "-o", "out.html"],
        "open": ["open", "--no-follow", path.name],
        "diff": ["diff", path.name, path.name],
    }[command]
    done = cli(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    said = program_lines(done.stderr)
    assert len(said) == 1 and "not a recording file" in said[0], done.stderr
    assert ("named pipe" if make is _fifo else "device") in said[0]
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out.html").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_the_reader_refuses_a_fifo_at_once(tmp_path: Path) -> None:
    # In a child: before the fix, opening the FIFO waited for a writer forever.
    path = _fifo(tmp_path)
    code = textwrap.dedent(f"""
        from jitlab.recordings.reader import NotARegularFile, read_recording
        try:
            read_recording({str(path)!r})
        except NotARegularFile as exc:
            print("refused:", exc.what)
    """)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.stdout.strip() == "refused: a named pipe (FIFO)", done.stderr


def test_a_regular_file_through_a_symlink_still_reads(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    real.write_text(line(START) + line(CALL) + line(END), encoding="utf-8")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    recording, offset = read_recording(link)
    assert len(recording.calls) == 1 and offset == real.stat().st_size
    with pytest.raises(NotARegularFile):
        read_recording(tmp_path)  # a folder: refused the same way


# -- numbers out of range: an unreadable line, counted and skipped ----------------------
HUGE = int("9" * 400)


def _with(obj: dict, path: tuple, value: object) -> dict:
    obj = json.loads(json.dumps(obj))
    target = obj
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return obj


def _start(value: object) -> dict:
    return _with(START, ("time",), value)


OUT_OF_RANGE = {
    "latency_ms": lambda v: ("call", _with(CALL, ("latency_ms",), v)),
    "trace_ms": lambda v: ("call", _with(CALL, ("trace_ms",), v)),
    "t": lambda v: ("call", _with(CALL, ("t",), v)),
    "index": lambda v: ("call", _with(CALL, ("index",), v)),
    "card": lambda v: ("call", _with(CALL, ("card",), v)),
    "a shape dimension": lambda v: ("call", _with(CALL, ("signature", "args", 0, "shape"), [v])),
    "start.time": lambda v: ("start", _start(v)),
    "a hits count": lambda v: (
        "hits",
        {"type": "hits", "function": "f", "defined_at": "t.py:1", "hits": v, "t": 1.0},
    ),
    "a script's card": lambda v: (
        "script",
        {"type": "script", "function": "f", "defined_at": "t.py:1", "card": v, "script": None},
    ),
    "a process index": lambda v: (
        "process",
        {"type": "process", "process": v, "processes": 2, "t": 0.1},
    ),
}


def _damaged_file(tmp_path: Path, field: str, value: object) -> Path:
    _, bad = OUT_OF_RANGE[field](value)
    path = tmp_path / "run.jsonl"
    good = _with(CALL, ("kind",), "recompile") | {"index": 1, "card": 1}
    path.write_text(line(START) + line(CALL) + line(bad) + line(good) + line(END), encoding="utf-8")
    return path


@pytest.mark.parametrize("field", sorted(OUT_OF_RANGE))
@pytest.mark.parametrize("value", [HUGE, -HUGE, 1e300], ids=["400 digits", "-400 digits", "1e300"])
def test_a_number_out_of_range_is_an_unreadable_line(tmp_path: Path, field, value) -> None:
    if field == "start.time":
        # A start line is kept when it is the only one: no good start after the bad one.
        path = tmp_path / "run.jsonl"
        path.write_text(line(_start(value)) + line(CALL) + line(END), encoding="utf-8")
        recording, _ = read_recording(path)
        assert recording.start is None
        calls = 1
    else:
        path = _damaged_file(tmp_path, field, value)
        recording, _ = read_recording(path)
        calls = 2
    assert recording.bad_lines == 1, recording
    assert recording.skipped == "1 unreadable line skipped"
    assert len(recording.calls) == calls
    # Everything that shows it goes on: the rows, a merge, the page.
    rows = summarize(recording)
    assert [r.function for r in rows] == ["f"] and rows[0].executables == calls
    assert merge([(0, recording), (1, recording)]).functions
    page = render_report([(str(path), recording)])
    assert "1 unreadable line skipped" in page


def test_summary_and_report_go_on_past_every_number_out_of_range(tmp_path: Path) -> None:
    bad = [OUT_OF_RANGE[f](HUGE)[1] for f in sorted(OUT_OF_RANGE) if f != "start.time"]
    path = tmp_path / "run.jsonl"
    text = line(START) + line(CALL) + "".join(map(line, bad)) + line(_start(HUGE)) + line(END)
    path.write_text(text, encoding="utf-8")
    n = len(bad) + 1
    summary = cli("summary", path.name, cwd=tmp_path)
    assert summary.returncode == 0, summary.stderr
    assert f"{n} unreadable lines skipped" in summary.stdout
    report = cli("report", path.name, "-o", "r.html", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert f"{n} unreadable lines skipped" in (tmp_path / "r.html").read_text(encoding="utf-8")


# -- a line too long: counted and skipped as it is read, memory bounded -----------------
def _wide_call(args: int) -> dict:
    leaves = [{**LEAF, "path": f"a[{i}]", "shape": [i % 7, 3]} for i in range(args)]
    return _with(CALL, ("signature",), {"args": leaves, "static": {}, "tree": "[*]"})


@pytest.fixture(scope="module")
def long_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A call line over MAX_LINE_BYTES (a signature of ~200,000 arguments) between two
    good call lines: what a 1,000,000-argument signature (220 MB) is, smaller."""
    path = tmp_path_factory.mktemp("long") / "run.jsonl"
    wide = line(_wide_call(200_000))
    assert len(wide) > MAX_LINE_BYTES
    good = _with(CALL, ("kind",), "recompile") | {"index": 2, "card": 1}
    path.write_text(line(START) + line(CALL) + wide + line(good) + line(END), encoding="utf-8")
    return path


def test_a_line_too_long_is_skipped_with_its_reason(long_file: Path) -> None:
    tracemalloc.start()
    try:
        recording, offset = read_recording(long_file)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert offset == long_file.stat().st_size
    assert [c.record.index for c in recording.calls] == [0, 2] and recording.ended
    assert (recording.bad_lines, recording.long_lines) == (1, 1)
    assert recording.skipped == "1 unreadable line skipped (1 longer than 16 MiB)"
    # Memory: about the longest line kept, never what the line would parse into (before:
    # the 17 MB line made ~200,000 leaves, hundreds of MB).
    assert peak < 3 * MAX_LINE_BYTES, f"peak {peak / 2**20:.0f} MiB"


def test_a_line_too_long_read_a_piece_at_a_time(long_file: Path) -> None:
    """The window reads 64 KiB at a time and resumes at the offset returned."""
    from jitlab.recordings.reader import Recording

    recording, offset, size = Recording(), 0, long_file.stat().st_size
    for _ in range(size // 65536 + 10):  # bounded: every read moves on
        recording, offset = read_recording(long_file, offset, recording, limit=65536)
        if offset >= size:
            break
    assert offset == size
    assert [c.record.index for c in recording.calls] == [0, 2] and recording.ended
    assert (recording.bad_lines, recording.long_lines) == (1, 1)


def test_a_line_too_long_still_being_written(tmp_path: Path) -> None:
    """Followed while a program writes it: counted once, the lines after it read."""
    path = tmp_path / "run.jsonl"
    path.write_text(line(START) + line(CALL), encoding="utf-8")
    recording, offset = read_recording(path)
    with path.open("a", encoding="utf-8") as f:
        f.write('{"type": "call", "function": "' + "x" * (MAX_LINE_BYTES + 10))
    recording, offset = read_recording(path, offset, recording)
    assert (recording.bad_lines, recording.long_lines) == (1, 1)
    with path.open("a", encoding="utf-8") as f:
        f.write("y" * 1000 + '"}\n' + line(_with(CALL, ("index",), 5)) + line(END))
    recording, offset = read_recording(path, offset, recording)
    assert offset == path.stat().st_size
    assert [c.record.index for c in recording.calls] == [0, 5] and recording.ended
    assert (recording.bad_lines, recording.long_lines) == (1, 1)


def test_summary_and_report_of_a_line_too_long(long_file: Path, tmp_path: Path) -> None:
    summary = cli("summary", str(long_file), cwd=tmp_path)
    assert summary.returncode == 0, summary.stderr
    assert "1 unreadable line skipped (1 longer than 16 MiB)" in summary.stdout
    report = cli("report", str(long_file), "-o", "r.html", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "1 unreadable line skipped (1 longer than 16 MiB)" in page


# -- markup in every string: the report shows it as text --------------------------------
@pytest.fixture(scope="module")
def real_lines(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    lines = record_real(tmp_path_factory.mktemp("real"))
    for obj in lines:  # a recording may hold parameters too (made markup with the rest)
        if obj.get("type") == "call":
            obj["params"] = {"batch": "size"}
    return lines


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_the_report_shows_markup_as_text(real_lines: list[dict], tmp_path: Path) -> None:
    lines, written = make_hostile(real_lines, CRASHING)
    path = tmp_path / "hostile.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    recording, _ = read_recording(path)
    assert recording.bad_lines == 0 and recording.calls
    page = _Page()
    page.feed(render_report([(str(path), recording)]))
    tags = {tag for tag, _ in page.tags}
    assert "img" not in tags and "lambda" not in tags and "u" not in tags
    assert not any(a.get("src") for _, a in page.tags)
    text = "".join(page.text)
    shown = [("page", text)]
    assert check_literal(shown, written) == []
    # The function names, where they are defined, the program: each literally on the page.
    for call in recording.calls:
        assert call.record.function in text
        assert call.defined_at is not None and call.defined_at in text
    assert " ".join(recording.start.argv) in text


def test_a_jobs_report_and_summary_show_markup_as_text(real_lines: list[dict], tmp_path: Path):
    """Two processes of a job, one with a compile the other lacks: the divergence (its
    function, signature and call) is said in the page and in the terminal as written."""
    lines, written = make_hostile(real_lines, CRASHING)
    calls = [i for i, text in enumerate(lines) if '"type": "call"' in text]
    p0, p1 = tmp_path / "run.p0.jsonl", tmp_path / "run.p1.jsonl"
    p0.write_text("".join(lines), encoding="utf-8")
    p1.write_text("".join(t for i, t in enumerate(lines) if i != calls[1]), encoding="utf-8")
    recordings = [(str(p), read_recording(p)[0]) for p in (p0, p1)]
    assert merge([(0, recordings[0][1]), (1, recordings[1][1])]).divergences
    page = _Page()
    page.feed(render_report(recordings))
    assert not {"img", "lambda", "u"} & {tag for tag, _ in page.tags}
    assert check_literal([("page", "".join(page.text))], written) == []
    done = subprocess.run(
        [str(JITLAB), "summary", p0.name, p1.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "COLUMNS": "400"},
    )
    assert done.returncode == 1, done.stderr  # they diverged
    assert check_literal([("summary", done.stdout)], written) == []
    assert markers_in([("summary", done.stdout)])


def test_the_terminal_summary_shows_markup_as_text(real_lines: list[dict], tmp_path: Path):
    lines, written = make_hostile(real_lines)
    path = tmp_path / "hostile.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    done = cli("summary", "--json", path.name, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = subprocess.run(
        [str(JITLAB), "summary", path.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "COLUMNS": "400"},
    )
    assert done.returncode == 0, done.stderr
    assert check_literal([("summary", done.stdout)], written) == []
    assert markers_in([("summary", done.stdout)]), done.stdout


# -- the recording window ---------------------------------------------------------------
WINDOW = """
import json, sys
from pathlib import Path
from PySide6.QtCore import QPoint, QSettings
from PySide6.QtWidgets import QToolTip
from jitlab.gui.app import application
from jitlab.gui.views.chart import describe
from jitlab.gui.recording.window import open_recording_window

app = application()
settings = QSettings(sys.argv[2], QSettings.Format.IniFormat)
window = open_recording_window(Path(sys.argv[1]), False, settings=settings)
for _ in range(200):
    app.processEvents()
opened = 0
for lane in window.lanes():
    window.pick(lane)
    for _ in range(20):
        app.processEvents()
    # Every tip the window shows on hover, shown for real (Qt renders it as it would).
    tips = [window.row_tip(row) for row in range(len(window.rows))]
    tips += [describe(call.record) for call in window.calls_of(lane)]
    tips += [window.kitchen.canvas.card_tip(c) for c in window.state.cards.values()]
    for tip in tips:
        QToolTip.showText(QPoint(0, 0), tip, window)
        app.processEvents()
    for card in list(window.state.cards.values()):
        window.open_script(card).grab()
        opened += 1
    window.grab()
print(json.dumps({"lanes": len(window.lanes()), "scripts": opened, "status": window.status_text()}))
"""


# preexec_fn makes subprocess fork rather than spawn, and JAX (imported in this process) warns
# at every fork; the child only sets a limit and execs a fresh Python, so nothing can deadlock.
@pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")
def test_markup_with_an_image_of_dev_zero_does_not_crash_the_window(
    real_lines: list[dict], tmp_path: Path
) -> None:
    lines, _ = make_hostile(real_lines, CRASHING)
    path = tmp_path / "hostile.jsonl"
    path.write_text("".join(lines), encoding="utf-8")

    def bounded() -> None:  # what Qt may read of /dev/zero before it fails: 4 GiB at most
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    done = subprocess.run(
        [sys.executable, "-c", WINDOW, str(path), str(tmp_path / "s.ini")],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        preexec_fn=bounded,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["lanes"] == 3 and seen["scripts"] >= 4
    assert seen["status"] == "The program finished; the recording is complete."


@pytest.fixture
def open_window(qtbot, tmp_path: Path):
    from PySide6.QtCore import QSettings

    from jitlab.gui.app import application
    from jitlab.gui.recording.window import open_recording_window

    application()
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)

    def make(path: Path, follow: bool = False):
        window = open_recording_window(path, follow, settings=settings)
        qtbot.addWidget(window)
        return window

    return make


def test_the_recording_window_shows_every_string_as_text(
    qtbot, open_window, real_lines: list[dict], tmp_path: Path
) -> None:
    lines, written = make_hostile(real_lines, HARMLESS_IMG)
    path = tmp_path / "hostile.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    window = open_window(path)
    qtbot.waitUntil(lambda: not window.loading and len(window.lanes()) == 3, timeout=30_000)
    shown = window_texts(window, qtbot)
    assert check_literal(shown, written) == []
    found = markers_in(shown)
    recording, _ = read_recording(path)
    # Every function's name, where it is defined, the program's argv, JAX's version, each
    # recompile's reason and the failing call's error: shown literally, markup and all.
    expected = {recording.start.argv[0], recording.start.jax}
    for call in recording.calls:
        expected |= {call.record.function, call.defined_at, *call.record.params}
        if call.record.error is not None:
            expected.add(call.record.error.type)
    numbers = {n for n, s in written.items() if s in expected}
    assert numbers and numbers <= found, sorted(numbers - found)
    assert "<lambda>" in "\n".join(t for _, t in shown)


def test_a_lambda_keeps_its_name_in_the_details(qtbot, open_window, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    calls = [_with(CALL, ("function",), "<lambda>"), _with(CALL, ("function",), "<b>SPOOFED</b>")]
    calls[1]["defined_at"] = "t.py:9"
    path.write_text(line(START) + "".join(map(line, calls)) + line(END), encoding="utf-8")
    window = open_window(path)
    qtbot.waitUntil(lambda: len(window.lanes()) == 2, timeout=30_000)
    for name in ("<lambda>", "<b>SPOOFED</b>"):
        window.pick_name(name)
        (details,) = [
            text for where, text in shown_texts(window) if where.endswith("#functionDetails")
        ]
        assert name in details, details
        assert window.windowTitle().endswith(name)
    assert "<b>SPOOFED</b>" in rendered(window.row_tip(1), True) + rendered(window.row_tip(0), True)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_the_window_refuses_a_fifo_and_the_app_goes_on(qtbot, open_window, tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    real.write_text(line(START) + line(CALL) + line(END), encoding="utf-8")
    (tmp_path / "f").mkdir()
    (tmp_path / "z").mkdir()
    for path in (_fifo(tmp_path / "f"), _zero(tmp_path / "z")):
        window = open_window(path, follow=True)
        qtbot.waitUntil(lambda w=window: "not a recording file" in w.status_text(), timeout=10_000)
        assert str(path) in window.status_text() and window.lanes() == []
        window.close()
    window = open_window(real)  # the app goes on: the next recording opens as ever
    qtbot.waitUntil(lambda: window.lanes() == [("f", "t.py:1", None)], timeout=10_000)


def test_the_window_skips_numbers_out_of_range(qtbot, open_window, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    bad = [OUT_OF_RANGE[f](HUGE)[1] for f in sorted(OUT_OF_RANGE) if f != "start.time"]
    good = _with(CALL, ("kind",), "recompile") | {"index": 1, "card": 1}
    text = line(START) + line(CALL) + "".join(map(line, bad)) + line(good) + line(END)
    path.write_text(text, encoding="utf-8")
    window = open_window(path)
    n = len(bad)
    qtbot.waitUntil(lambda: f"{n} unreadable lines skipped." in window.status_text())
    assert window.lanes() == [("f", "t.py:1", None)]
    window.pick_name("f")
    qtbot.waitUntil(lambda: len(window.state.cards) == 2, timeout=10_000)


def test_the_reports_ledger_shows_the_columns_that_changed_first(tmp_path: Path) -> None:
    """200 arguments, one of them changing: the page lists a bounded number of columns,
    the changed one among them, and says how many it left out."""
    from jitlab.report.tables import MAX_LEDGER_COLUMNS

    first = _wide_call(200)
    second = _with(first, ("kind",), "recompile") | {"index": 1, "card": 1}
    second["signature"]["args"][150]["shape"] = [9, 9]
    path = tmp_path / "run.jsonl"
    path.write_text(line(START) + line(first) + line(second) + line(END), encoding="utf-8")
    recording, _ = read_recording(path)
    page = _Page()
    page.feed(render_report([(str(path), recording)]))
    heads = [t for t in page.text if re.fullmatch(r"a\[\d+\]", t)]  # the column heads
    assert "a[150]" in heads and "a[0]" in heads
    assert len(heads) == MAX_LEDGER_COLUMNS
    text = "".join(page.text)
    assert f"{200 - MAX_LEDGER_COLUMNS} more argument columns not shown" in text
