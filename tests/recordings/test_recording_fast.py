"""Reading a recording fast reads it the same: every line, good or damaged, against the
plain reader (each line parsed whole and read alone by its type's ``from_json``).

The fast reader takes ``hits`` lines as jitlab writes them without parsing them, and makes
a signature or reason it already read once. These tests hold it to the plain reader on
real lines of every kind, and on thousands of lines damaged at random.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from jitlab.recordings.processes import merge
from jitlab.recordings.reader import Recording, read_recording
from jitlab.recordings.summary import summarize
from jitlab.records.calls import (
    CallKind,
    CallRecord,
    Change,
    ErrorInfo,
    LeafSpec,
    OutputLine,
    Reason,
    Signature,
    dumps_strict,
)
from jitlab.records.change_words import reason_words
from jitlab.records.changes import ChangeKind
from jitlab.records.lines import ProcessInfo, RecordedCall, RecordedHits, RecordingStart
from jitlab.records.strict import forget_read_values

# -- the plain reader: each line parsed whole, read alone by its type's from_json ----------
_decode = json.JSONDecoder(parse_constant=lambda _: None).decode


def plain_read(data: bytes) -> Recording:
    """Each line parsed whole; a call line read with nothing kept from the lines before it
    (each signature and reason made anew), a hits line by ``RecordedHits.from_json``."""
    recording = Recording()
    complete, _, _ = data.rpartition(b"\n")
    for raw in complete.split(b"\n") if complete else []:
        if not raw.strip():
            continue
        try:
            obj = _decode(raw.decode("utf-8"))
        except (ValueError, RecursionError):
            recording.bad_lines += 1
            continue
        kind = obj.get("type") if isinstance(obj, dict) else None
        if kind == "call":
            forget_read_values()
            call = RecordedCall.from_json(obj)
            if call is None:
                recording.bad_lines += 1
            else:
                recording.calls.append(call)
        elif kind == "hits":
            hits = RecordedHits.from_json(obj)
            if hits is None:
                recording.bad_lines += 1
            else:
                # after a second start line (recordings joined), added to the earlier ones'
                recording.hits[hits.key] = recording.hits_before.get(hits.key, 0) + hits.hits
        elif not recording.add_line(obj):
            recording.bad_lines += 1
    return recording


# -- real lines of every kind -------------------------------------------------------------
def _signature(rows: int, weak: bool = False, static: bool = False) -> Signature:
    leaves = (
        LeafSpec("x", (rows, 128), "float32", weak),
        LeafSpec("params['w']", (128,), "bfloat16", False, "PartitionSpec('data',)"),
    )
    statics = (("mode", "'train'"),) if static else ()
    return Signature(leaves, statics, "((x, params),)")


def _lines(process: int | None = 2) -> list[bytes]:
    shape = Reason((Change(ChangeKind.SHAPE, path="x", before="f32[8,128]", after="f32[9,128]"),))
    first = Reason((Change(ChangeKind.FIRST_CALL),))
    old_words = {"changes": ["x: f32[8] ← f32[4]"], "text": "", "jax": None}
    extra = {} if process is None else {"process": process}
    out = [
        RecordingStart(("train.py",), "0.10.2", "0.1", 1.0, "host", process, 4).to_json(pid=1),
        ProcessInfo(process or 0, 4, "host", 1, 4, 0.0).to_json(),
    ]
    for n in range(12):
        record = CallRecord(
            index=n,
            function="step" if n % 3 else "ünïcode_fn",
            kind=CallKind.RECOMPILE if n else CallKind.COMPILE,
            latency_ms=12.5,
            trace_ms=2.0,
            lower_ms=1.5,
            compile_ms=8.0 + n,
            signature=_signature(8 + n % 4, weak=n % 5 == 1, static=n % 2 == 0),
            card=n,
            reason=shape if n else first,
            stdout=(OutputLine("trace", "hi"),) if n == 4 else (),
            params={"b": 1} if n == 5 else None,
            notes={"x": [1, 2]} if n == 6 else None,
        )
        where = "/job/train.py:10" if n % 3 else '/job/tr"a\\in.py:3'
        out.append(RecordedCall(record, where, "/job/train.py:200", t=0.01 * n).to_json())
        out.append(RecordedHits("step", "/job/train.py:10", 25 * n, 0.01 * n + 0.005).to_json())
        out.append(RecordedHits("ünïcode_fn", None, 7 * n, None).to_json())
    error = CallRecord(
        20, "step", CallKind.ERROR, 1.0, error=ErrorInfo("TypeError", "bad"), signature=None
    )
    out.append(RecordedCall(error, "/job/train.py:10", None, t=1.0).to_json())
    events = CallRecord(0, "g", CallKind.COMPILE, 0.0, 1.0, 1.0, 3.0, _signature(4))
    out.append(RecordedCall(events, "/job/g.py:1", None, events_only=True, t=1.1).to_json())
    kernel = CallRecord(0, "add", CallKind.COMPILE, 1.0, 0.1, 0.1, 0.5)
    out.append(RecordedCall(kernel, "/lib/x.py:9", None, internal=True, t=1.2).to_json())
    out.append(
        {**RecordedCall(error, "w.py:1").to_json(), "kind": "recompile", "reason": old_words}
    )
    out.append({"type": "end", "t": 2.0})
    return [dumps_strict({**obj, **extra}).encode() for obj in out]


def _text(value: object) -> str:
    try:
        return str(value)
    except Exception as exc:  # a damaged line's signature may hold what no text can show
        return type(exc).__name__


def _same(fast: Recording, plain: Recording) -> None:
    assert fast.calls == plain.calls
    for part in ("signature", "reason"):
        texts = [_text(getattr(c.record, part)) for c in fast.calls]
        assert texts == [_text(getattr(c.record, part)) for c in plain.calls]
    assert list(fast.hits.items()) == list(plain.hits.items())  # the same counts, in order
    assert fast.bad_lines == plain.bad_lines
    assert (fast.start, fast.process_line, fast.ended) == (
        plain.start,
        plain.process_line,
        plain.ended,
    )


def _read(tmp_path: Path, lines: list[bytes], name: str = "run.jsonl") -> Recording:
    path = tmp_path / name
    path.write_bytes(b"\n".join(lines) + b"\n")
    recording, offset = read_recording(path)
    assert offset == path.stat().st_size
    return recording


@pytest.mark.parametrize("process", [None, 2])
def test_real_lines_read_the_same(tmp_path: Path, process: int | None) -> None:
    lines = _lines(process)
    plain = plain_read(b"\n".join(lines) + b"\n")  # first: it empties what is kept
    fast = _read(tmp_path, lines)
    assert len(fast.calls) == 16 and len(fast.hits) == 2 and fast.bad_lines == 0
    _same(fast, plain)
    # Read twice (everything already kept): the same again, and the same objects.
    again = _read(tmp_path, lines, "again.jsonl")
    _same(again, plain)
    assert again.calls[3].record.signature is fast.calls[3].record.signature


def test_signatures_and_reasons_read_again_are_shared(tmp_path: Path) -> None:
    fast = _read(tmp_path, _lines() * 3)
    recompiles = [c for c in fast.calls if c.record.kind is CallKind.RECOMPILE]
    written = [c for c in recompiles if c.defined_at != "w.py:1"]  # an older writer's words
    assert len(written) == 33 and len({id(c.record.reason) for c in written}) == 1
    assert len({id(c.record.reason) for c in recompiles}) == 4  # its words: made each time
    by_text: dict[str, set[int]] = {}
    for call in fast.calls:
        if call.record.signature is not None:
            by_text.setdefault(str(call.record.signature), set()).add(id(call.record.signature))
    assert all(len(ids) == 1 for ids in by_text.values())


# Hits lines as jitlab writes them, and near misses the general path must decide.
HITS = [
    b'{"type": "hits", "function": "f", "defined_at": "a.py:1", "hits": 3, "t": 0.5}',
    b'{"type": "hits", "function": "f", "defined_at": null, "hits": 0, "t": null}',
    b'{"type": "hits", "function": "f", "defined_at": "a.py:1", "hits": 4, "t": -1.5e-3, '
    b'"process": 7}',
    b'{"type": "hits", "function": "f\\u00e9", "defined_at": "a.py:1", "hits": 5, "t": 1}',
    b'{"type": "hits", "function": "f", "defined_at": "a.py:1", "hits": -1, "t": 1}',
    b'{"type": "hits", "function": "f", "defined_at": "a.py:1", "hits": 01, "t": 1}',
    b'{"type": "hits", "function": "f", "defined_at": "a.py:1", "hits": 1.0, "t": 1}',
    b'{"type": "hits", "function": "f", "defined_at": "a.py:1", "hits": 2, "t": 1.}',
    b'{"type": "hits", "function": "f", "defined_at": "a.py:1", "hits": 2, "t": 1}\r',
    b'{"type": "hits", "function": "f", "defined_at": 5, "hits": 2, "t": 1}',
    b'{"type": "hits", "function": "\xff", "defined_at": "a.py:1", "hits": 2, "t": 1}',
    b'{"type": "hits", "function": "\xc3\xa9", "defined_at": "a.py:1", "hits": 9, "t": 1}',
    b'{"type": "hits", "function": "f\tg", "defined_at": "a.py:1", "hits": 2, "t": 1}',
    b'{"type": "hits", "function": "f", "defined_at": "a.py:1", "hits": 2, "t": 1, "hits": 6}',
    b'{"type": "hits", "function": "f", "defined_at": "a.py:1", "hits": 2, "t": NaN}',
    b'{"type": "hits", "function": "f", "defined_at": "a.py:1", "hits": 99999999999999999999, '
    b'"t": 1}',
    b'  {"type": "hits", "function": "f", "defined_at": "a.py:1", "hits": 8, "t": 1}',
    b'{"type": "hits", "function": "f", "defined_at": "a.py:1", "hits": 2, "t": 1, "process": "p"}',
]


def test_hits_lines_read_the_same(tmp_path: Path) -> None:
    fast = _read(tmp_path, HITS)
    plain = plain_read(b"\n".join(HITS) + b"\n")
    _same(fast, plain)
    assert fast.bad_lines >= 5  # -1, 01, 1.0, defined_at 5, \xff, a tab, 1. …


_TOKENS = [b"null", b"0", b"1", b"1.0", b"-1", b"true", b"false", b'"x"', b"[]", b"{}", b"1e999"]


def _damaged(line: bytes, rng: random.Random) -> bytes:
    """One random change: a value swapped for another, bytes cut, or bytes put in."""
    what = rng.random()
    if what < 0.6:  # a value after some key
        starts = [i + 2 for i in range(len(line) - 2) if line[i : i + 2] == b": "]
        at = rng.choice(starts)
        end = at
        while end < len(line) and line[end : end + 1] not in b",}]":
            end += 1
        return line[:at] + rng.choice(_TOKENS) + line[end:]
    at = rng.randrange(len(line))
    if what < 0.8:
        return line[:at] + line[at + rng.randrange(1, 6) :]
    return line[:at] + rng.choice([b'"', b"\\", b"{", b"]", b",", b"\xff", b" "]) + line[at:]


def test_damaged_lines_read_the_same(tmp_path: Path) -> None:
    rng = random.Random(14)
    good = _lines() + _lines(None) + HITS
    lines = []
    for _ in range(4000):
        line = rng.choice(good)
        lines.append(_damaged(line, rng) if rng.random() < 0.7 else line)
    fast = _read(tmp_path, lines)
    plain = plain_read(b"\n".join(lines) + b"\n")
    _same(fast, plain)
    assert 500 < fast.bad_lines < 3500 and len(fast.calls) > 500  # both kinds were exercised


def test_summaries_and_merge_count_changes_as_before(tmp_path: Path) -> None:
    lines = _lines()
    recording = _read(tmp_path, lines * 2)
    for summary in summarize(recording):
        expected: Counter[str] = Counter()
        for call in recording.calls:
            reason = call.record.reason
            mine = call.key == (summary.function, summary.defined_at)
            if mine and call.record.kind is CallKind.RECOMPILE and reason is not None:
                expected.update(reason_words(reason))
        assert list(summary.change_words().items()) == list(expected.items())
    other = _read(tmp_path, _lines(3), "run.p3.jsonl")
    merged = merge([(2, recording), (3, other)])
    assert {d.kind for d in merged.divergences} == {"compiles"}  # p2 read its lines twice


@pytest.mark.parametrize("piece", [1, 7, 300, 1 << 20])
@pytest.mark.parametrize("limit", [None, 1, 250, 5000])
def test_read_a_piece_at_a_time_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, piece: int, limit: int | None
) -> None:
    """Read in pieces of any size, whole or ``limit`` bytes a call: the same recording, and
    a last line without its newline left for later."""
    import jitlab.recordings.reader as recording_module

    monkeypatch.setattr(recording_module, "READ_PIECE", piece)
    lines = _lines() + HITS[:4] + [b"", b"   "] + _lines(None)
    data = b"\n".join(lines) + b"\n" + b'{"type": "hits", "function": "f", "defi'
    path = tmp_path / "run.jsonl"
    path.write_bytes(data)
    recording, offset, calls = Recording(), 0, 0
    while True:
        calls += 1
        recording, moved = read_recording(path, offset, recording, limit=limit)
        if moved == offset:
            break
        assert limit is None or moved - offset >= min(limit, len(data) - offset - 39)
        offset = moved
    assert offset == len(data) - len(b'{"type": "hits", "function": "f", "defi')
    assert recording.partial_line
    assert limit is not None or calls == 2
    _same(recording, plain_read(data))


def test_merge_takes_kept_summaries_and_can_leave_divergences(tmp_path: Path) -> None:
    from jitlab.recordings.summary import Summarizer

    pairs = [(2, _read(tmp_path, _lines() * 2, "run.p2.jsonl"))]
    pairs.append((3, _read(tmp_path, _lines(3), "run.p3.jsonl")))
    whole = merge(pairs)
    assert whole.divergences
    kept = [Summarizer(include_internal=False).update(recording) for _, recording in pairs]
    assert merge(pairs, summaries=kept) == whole
    light = merge(pairs, summaries=kept, divergences=False)
    assert light.functions == whole.functions and light.divergences == ()
