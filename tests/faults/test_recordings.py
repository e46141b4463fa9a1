"""Fault table, recordings: damaged lines are skipped and counted, following goes on.

The files are real: bytes written to disk, appended while a reader follows them, the way a
program under `jitlab watch` (or a disk, or a kill) leaves them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jitlab.recordings.reader import Recording, read_recording
from jitlab.recordings.summary import summarize
from jitlab.records.calls import CallKind


def line(obj: object) -> bytes:
    return json.dumps(obj).encode() + b"\n"


START = line({"type": "start", "jitlab": "0", "jax": "0.10.2", "argv": ["train.py"], "time": 1.0})
END = line({"type": "end", "t": 2.0})


def call(kind: str = "compile", **fields: object) -> bytes:
    obj = {
        "type": "call",
        "function": "f",
        "defined_at": "train.py:3",
        "kind": kind,
        "trace_ms": 1.5,
        "lower_ms": 0.5,
        "compile_ms": 2.0,
        "reason": {"changes": ["x: f32[8] ← f32[4]"], "text": "", "jax": None},
    }
    return line({**obj, **fields})


LEAF = {"path": "x", "shape": [8], "dtype": "float32", "weak_type": False, "sharding": None}

# Each is a whole line that must be skipped and counted, never a traceback.
DAMAGED = {
    "a list": line([1, 2, 3]),
    "a number": line(42),
    "a string": line("call"),
    "null": line(None),
    "trace_ms not a number": call(trace_ms="abc"),
    "kind not a string": call(kind=5),
    "kind unknown": call(kind="teleport"),
    "kind unhashable": call(kind=["compile"]),
    "signature a list": call(signature=[1]),
    "signature an empty list": call(signature=[]),
    "a dtype that is a list": call(signature={"args": [LEAF | {"dtype": ["float32"]}]}),
    "a dtype that is an object": call(signature={"args": [LEAF | {"dtype": {"f": 32}}]}),
    "a shape of strings": call(signature={"args": [LEAF | {"shape": ["8"]}]}),
    "a sharding that is a list": call(signature={"args": [LEAF | {"sharding": [0]}]}),
    "statics not an object": call(signature={"args": [LEAF], "static": [["n", "3"]]}),
    "function not a string": call(function=["f"]),
    "defined_at unhashable": call(defined_at={"file": "x"}),
    "reason not an object": call(reason="because"),
    "changes not a list": call(reason={"changes": 5}),
    "error not an object": call(kind="error", error="boom"),
    "stdout not a list": call(stdout="hello"),
    "card not an int": call(card="first"),
    "a boolean as a time": call(compile_ms=True),
    "hits not a count": line({"type": "hits", "function": "f", "defined_at": None, "hits": "abc"}),
    "hits negative": line({"type": "hits", "function": "f", "defined_at": None, "hits": -1}),
    "argv not a list": line({"type": "start", "argv": 5}),
    "binary": b"\x00\x01\xff\xfe\x80garbage\x00\n",
    "not utf-8": b'{"type": "call", "function": "\xff\xfe"}\n',
    "deeply nested": b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "overflowing number": call(trace_ms=1).replace(b'"trace_ms": 1', b'"trace_ms": 1e999'),
}


@pytest.mark.parametrize("name", sorted(DAMAGED))
def test_a_damaged_line_is_skipped_and_counted(tmp_path: Path, name: str):
    path = tmp_path / "run.jsonl"
    path.write_bytes(START + call() + DAMAGED[name] + call("recompile") + END)
    recording, offset = read_recording(path)
    assert recording.bad_lines == 1, name
    assert recording.skipped == "1 unreadable line skipped"
    assert [c.record.kind for c in recording.calls] == [CallKind.COMPILE, CallKind.RECOMPILE]
    assert recording.ended and offset == path.stat().st_size
    (s,) = summarize(recording)
    assert (s.compiles, s.recompiles, s.compile_ms) == (1, 1, 8.0)


def test_every_damaged_line_in_one_file_is_counted(tmp_path: Path):
    path = tmp_path / "run.jsonl"
    path.write_bytes(START + b"".join(DAMAGED.values()) + call() + END)
    recording, _ = read_recording(path)
    assert recording.bad_lines == len(DAMAGED)
    assert recording.skipped == f"{len(DAMAGED)} unreadable lines skipped"
    assert len(recording.calls) == 1 and recording.ended
    assert Recording().skipped == ""


def test_bare_nan_from_an_older_writer_reads_as_null(tmp_path: Path):
    """Older recordings may hold bare NaN/Infinity: read them by the writing rule, as null."""
    path = tmp_path / "run.jsonl"
    path.write_bytes(START + call().replace(b'"trace_ms": 1.5', b'"trace_ms": NaN') + END)
    recording, _ = read_recording(path)
    assert recording.bad_lines == 0
    assert recording.calls[0].record.trace_ms == 0.0  # unknown: counts as nothing
    (s,) = summarize(recording)
    assert s.compile_ms == 2.5  # lower + compile; the unknown trace time counts as nothing


def test_a_binary_tail_is_skipped_and_counted(tmp_path: Path):
    """A crash can leave a block of garbage: whole lines of it are counted, an unfinished
    last piece waits as an incomplete line."""
    path = tmp_path / "run.jsonl"
    path.write_bytes(START + call() + b"\x00" * 64 + b"\n" + b"\xde\xad\xbe\xef\n" + b"\x00\x00")
    recording, offset = read_recording(path)
    assert len(recording.calls) == 1
    assert recording.bad_lines == 2 and recording.partial_line
    assert offset == path.stat().st_size - 2  # the unfinished piece is not consumed


def test_following_survives_damaged_lines_without_duplicates(tmp_path: Path):
    """Append while following: bad lines, half lines, then good lines — each call once."""
    path = tmp_path / "live.jsonl"
    path.write_bytes(START + call())
    recording, offset = read_recording(path)
    appended = [
        DAMAGED["a list"],
        call("recompile", trace_ms="abc"),
        call("recompile", index=1)[:25],  # half a line: not consumed yet
    ]
    for chunk in appended:
        with path.open("ab") as f:
            f.write(chunk)
        recording, offset = read_recording(path, offset, recording)
    assert len(recording.calls) == 1 and recording.bad_lines == 2 and recording.partial_line
    with path.open("ab") as f:
        f.write(call("recompile", index=1)[25:])  # its end arrives
    recording, offset = read_recording(path, offset, recording)
    assert [c.record.kind for c in recording.calls] == [CallKind.COMPILE, CallKind.RECOMPILE]
    assert not recording.partial_line
    # Reading again with nothing new adds nothing; more lines keep coming through.
    recording, offset = read_recording(path, offset, recording)
    assert len(recording.calls) == 2
    with path.open("ab") as f:
        f.write(b"\xff\xff\n" + call("recompile", index=2) + END)
    recording, offset = read_recording(path, offset, recording)
    assert [c.record.index for c in recording.calls] == [0, 1, 2]  # a missing index reads 0
    assert recording.bad_lines == 3 and recording.ended
    assert offset == path.stat().st_size
    # The same file read in one go gives the same recording.
    whole, _ = read_recording(path)
    assert whole.calls == recording.calls and whole.bad_lines == recording.bad_lines


@pytest.mark.qt_log_ignore("propagateSizeHints")  # offscreen Qt has no window manager
def test_the_recording_window_keeps_following_after_a_damaged_line(qtbot, tmp_path: Path):
    """The window of `jitlab open`: a bad line neither stops following nor repeats a call."""
    from PySide6.QtCore import QSettings

    from jitlab.gui.app import application
    from jitlab.gui.recording.window import open_recording_window

    application()
    settings = QSettings(str(tmp_path / "jitlab.ini"), QSettings.Format.IniFormat)
    path = tmp_path / "live.jsonl"
    path.write_bytes(START + call())
    window = open_recording_window(path, True, settings=settings)
    qtbot.addWidget(window)
    window.pick_name("f")
    assert len(window.log.visible_rows()) == 1
    for damaged in (DAMAGED["a list"], DAMAGED["signature a list"], DAMAGED["binary"]):
        with path.open("ab") as f:
            f.write(damaged)
    qtbot.waitUntil(lambda: "3 unreadable lines skipped" in window.status_text(), timeout=5000)
    assert window.following and "Following" in window.status_text()
    with path.open("ab") as f:
        f.write(call("recompile", index=1))
    qtbot.waitUntil(lambda: len(window.log.visible_rows()) == 2, timeout=5000)
    with path.open("ab") as f:
        f.write(call("recompile", index=2)[:30])
    qtbot.waitUntil(lambda: "incomplete" in window.status_text(), timeout=5000)
    with path.open("ab") as f:
        f.write(call("recompile", index=2)[30:] + END)
    qtbot.waitUntil(lambda: "recording is complete" in window.status_text(), timeout=5000)
    qtbot.waitUntil(lambda: len(window.log.visible_rows()) == 3, timeout=5000)
    assert len(window.recording.calls) == 3  # each call once
    assert "3 unreadable lines skipped" in window.status_text()


@pytest.mark.qt_log_ignore("propagateSizeHints")  # offscreen Qt has no window manager
@pytest.mark.parametrize(
    ("damaged", "en", "zh"),
    [
        (1, "1 unreadable line skipped.", "跳过了 1 行无法读取的内容。"),
        (2, "2 unreadable lines skipped.", "跳过了 2 行无法读取的内容。"),
    ],
)
def test_the_window_counts_skipped_lines_in_proper_plurals(
    qtbot, tmp_path: Path, damaged: int, en: str, zh: str
):
    """Qt's plural forms: '1 unreadable line', '2 unreadable lines'; Chinese has one form."""
    from PySide6.QtCore import QSettings

    from jitlab.gui import i18n
    from jitlab.gui.app import application
    from jitlab.gui.recording.window import open_recording_window

    application()
    settings = QSettings(str(tmp_path / "jitlab.ini"), QSettings.Format.IniFormat)
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(START + call() + DAMAGED["binary"] * damaged + END)
    window = open_recording_window(path, False, settings=settings)
    qtbot.addWidget(window)
    assert en in window.status_text()
    assert "line(s)" not in window.status_text() and "%n" not in window.status_text()
    try:
        assert i18n.set_language("zh")
        assert zh in window.status_text()
    finally:
        i18n.set_language("en")
    assert en in window.status_text()
