"""The recording format across versions: a file written before formats had versions (each
reason stored three times) still opens and reads as it did; a file of a newer major format
is refused in one line, by the reader and by the command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from environment_lines import program_lines

from jitlab.recordings.reader import NewerFormat, read_recording
from jitlab.recordings.summary import summarize
from jitlab.records.calls import CallKind, Reason
from jitlab.records.change_words import reason_text, reason_words
from jitlab.records.lines import FORMAT, RecordedHits, RecordingEnd, RecordingStart

pytestmark = pytest.mark.slow

DATA = Path(__file__).parent / "data"
# Written by jitlab before this change (format 1.0): ``format_1_0_program.py`` under
# ``jitlab watch``. Each reason holds ``changes``, ``items`` and ``text``.
OLD = DATA / "format_1_0.jsonl"


def test_a_recording_written_before_format_versions_still_opens() -> None:
    recording, offset = read_recording(OLD)
    assert offset == OLD.stat().st_size and recording.bad_lines == 0 and recording.ended
    assert recording.start is not None and recording.start.format == "1.0"
    assert recording.start.readable
    kinds = [c.record.kind for c in recording.calls]
    assert kinds.count(CallKind.RECOMPILE) == 5 and kinds[-1] is CallKind.ERROR
    # Each reason reads as its three forms in the file said: the same words, once as data.
    lines = [json.loads(line) for line in OLD.read_text(encoding="utf-8").splitlines()]
    written = [line["reason"] for line in lines if line["type"] == "call" and line["reason"]]
    reasons = [c.record.reason for c in recording.calls if c.record.reason is not None]
    assert len(reasons) == len(written) == 7
    for reason, data in zip(reasons, written, strict=True):
        assert reason_text(reason) == data["text"] and list(reason_words(reason)) == data["changes"]
        assert reason == Reason.from_json({"items": data["items"], "jax": data["jax"]})
    # The summary `jitlab watch` printed when it wrote the file.
    rows = {s.function: s for s in summarize(recording)}
    assert [(s.executables, s.recompiles, s.hits, s.ms_text) for s in rows.values()] == [
        (5, 4, 2, "260.9"),
        (2, 1, 1, "121.4"),
        (0, 0, None, "0.3"),
    ]
    assert list(rows) == ["scaled", "power", "broken"]
    assert list(rows["scaled"].change_words()) == [
        "x: f32[8] ← f32[4]",
        "x: f32[16] ← f32[8]",
        "x: i32[16] ← f32[16]",
        "x: ~f32[] ← i32[16]",
    ]
    assert dict(rows["power"].change_words()) == {"static n: 3 ← 2": 1}


def test_a_recording_written_now_names_its_format_and_writes_each_reason_once(
    tmp_path: Path,
) -> None:
    recording, _ = read_recording(OLD)
    path = tmp_path / "now.jsonl"
    assert recording.start is not None
    lines = [RecordingStart(recording.start.argv, "0.10.2", "0.1.0", 1.0).to_json()]
    lines += [call.to_json() for call in recording.calls]
    lines.append(RecordedHits("scaled", recording.calls[0].defined_at, 2, 1.0).to_json())
    lines.append(RecordingEnd(2.0).to_json())
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    again, _ = read_recording(path)
    assert again.start is not None and again.start.format == FORMAT
    assert again.calls == recording.calls and again.bad_lines == 0
    text = path.read_text(encoding="utf-8")
    assert '"changes"' not in text and text.count('"items"') == 7

    reasons = [json.loads(line).get("reason") for line in text.splitlines()]
    assert all(set(r) == {"items", "jax"} for r in reasons if r)  # no words written twice


def _newer(tmp_path: Path) -> Path:
    """A file as a jitlab writing format 2.0 would write it (its first line says so)."""
    recording, _ = read_recording(OLD)
    path = tmp_path / "from-v2.jsonl"
    start = RecordingStart(("train.py",), "0.10.2", "9.0", 1.0, format="2.0")
    lines = [start.to_json(), *(call.to_json() for call in recording.calls)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_newer_major_format_is_refused_in_one_line(tmp_path: Path) -> None:
    path = _newer(tmp_path)
    with pytest.raises(NewerFormat) as refused:
        read_recording(path)
    assert refused.value.version == "2.0" and isinstance(refused.value, OSError)
    message = refused.value.strerror
    assert message is not None and "\n" not in message
    assert "newer jitlab" in message and "2.0" in message and "1.x" in message
    # A newer minor version reads (what it adds, this reader skips).
    minor = tmp_path / "minor.jsonl"
    lines = path.read_text(encoding="utf-8").replace('"format": "2.0"', '"format": "1.7"')
    minor.write_text(lines, encoding="utf-8")
    recording, _ = read_recording(minor)
    assert recording.start is not None and len(recording.calls) == 8


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_command_refuses_a_newer_format_in_one_line(tmp_path: Path, lang: str) -> None:
    path = _newer(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "jitlab.cli", "--lang", lang, "summary", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and done.stdout == ""
    (line,) = program_lines(done.stderr)
    assert str(path) in line and "2.0" in line and "Traceback" not in line
    if lang == "zh":
        assert "更新版本的 jitlab" in line and "newer" not in line
    else:
        assert "written by a newer jitlab" in line


def test_the_follower_says_a_newer_format_instead_of_showing_nothing(tmp_path: Path) -> None:
    # The recording window reads through the follower: a newer file is named, not shown empty.
    from jitlab.recordings.follower import Follower

    follower = Follower([_newer(tmp_path)])
    follower.read()
    assert follower.newer == [(tmp_path / "from-v2.jsonl", "2.0")]
    assert follower.recording.calls == [] and not follower.refused
