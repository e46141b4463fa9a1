"""Each line type of a recording, written by its ``to_json`` and read back by its strict
``from_json`` (through strict JSON text, as a file holds it): the value it was.

Also through :func:`~jitlab.recordings.reader.read_recording`, so the file reader (its fast
path for ``hits`` lines included) reads what the writers write.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jitlab.recordings.reader import read_recording
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
from jitlab.records.changes import ChangeKind
from jitlab.records.lines import (
    FORMAT,
    ProcessInfo,
    RecordedCall,
    RecordedHits,
    RecordedNotice,
    RecordedScript,
    RecordingEnd,
    RecordingStart,
)
from jitlab.records.scripts import EquationLine, Figures, Script
from jitlab.records.strict import Unfit
from jitlab.records.strict import signature as read_signature

_decode = json.JSONDecoder(parse_constant=lambda _: None).decode

# Texts a file can hold (no lone surrogates: they cannot be written as UTF-8).
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
maybe_texts = st.none() | texts
wholes = st.integers(0, 10**17)
maybe_wholes = st.none() | wholes
# Times as the writer rounds them (4 decimals), and as it keeps them (``t``).
times = st.integers(0, 10**10).map(lambda n: n / 10**4)
moments = st.none() | st.floats(-1e17, 1e17, allow_nan=False)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)
json_objects = st.none() | st.dictionaries(texts, json_values, max_size=3)


def _line(obj: dict[str, Any]) -> dict[str, Any]:
    """What a file gives back: one line of strict JSON, read as the reader reads it."""
    data: dict[str, Any] = _decode(dumps_strict(obj).encode().decode("utf-8"))
    return data


leaves = st.builds(
    LeafSpec,
    texts,
    st.lists(st.integers(0, 10**6), max_size=3).map(tuple),
    st.sampled_from(["float32", "bfloat16", "int8", "bool"]),
    st.booleans(),
    maybe_texts,
    maybe_texts,  # the device an argument was committed to (format 1.3)
)
signatures = st.builds(
    Signature,
    st.lists(leaves, max_size=3).map(tuple),
    st.dictionaries(texts, texts, max_size=2).map(lambda d: tuple(d.items())),
    texts,
    st.integers(0, 50),
)
changes = st.builds(
    Change,
    st.sampled_from(list(ChangeKind)),
    texts,
    maybe_texts,
    maybe_texts,
    texts,
    st.integers(0, 1000),
)
reasons = st.builds(Reason, st.lists(changes, max_size=3).map(tuple), maybe_texts)


@st.composite
def calls(draw: st.DrawFn) -> RecordedCall:
    trace, lower, compile_ms = draw(times), draw(times), draw(times)
    events_only = draw(st.booleans())
    # An events-only call was not timed: its latency reads back as its phases' sum.
    latency = 0 + trace + lower + compile_ms if events_only else draw(times)
    record = CallRecord(
        draw(st.integers(0, 10**9)),
        draw(names),
        draw(st.sampled_from(list(CallKind))),
        latency,
        trace,
        lower,
        compile_ms,
        draw(st.none() | signatures),
        draw(st.none() | st.integers(0, 10**6)),
        draw(st.none() | reasons),
        draw(st.none() | st.builds(ErrorInfo, texts, texts)),
        tuple(draw(st.lists(st.builds(OutputLine, st.sampled_from(["trace", "runtime"]), texts)))),
        draw(json_objects),
        draw(maybe_texts),
        draw(json_objects),
    )
    return RecordedCall(
        record,
        draw(maybe_texts),
        draw(maybe_texts),
        events_only,
        draw(st.booleans()),
        draw(moments),
    )


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(calls())
def test_a_call_line_reads_back(call: RecordedCall) -> None:
    line = _line(call.to_json())
    assert RecordedCall.from_json(line) == call
    # Each reason written once: its changes as data, JAX's words; the English is rendered.
    if call.record.reason is not None:
        assert set(line["reason"]) == {"items", "jax"}


@given(st.builds(RecordedHits, names, maybe_texts, wholes, moments))
def test_a_hits_line_reads_back(hits: RecordedHits) -> None:
    assert RecordedHits.from_json(_line(hits.to_json())) == hits


@st.composite
def starts(draw: st.DrawFn) -> RecordingStart:
    process = draw(maybe_wholes)
    return RecordingStart(
        tuple(draw(st.lists(texts, max_size=3))),
        draw(maybe_texts),
        draw(maybe_texts),
        draw(moments),
        draw(maybe_texts),
        process,
        draw(maybe_wholes) if process is not None else None,  # written with the process
        draw(st.none() | st.sampled_from(["figures", "texts"])),
        draw(st.sampled_from(["1.0", "1.1", FORMAT, "1.25"])),
    )


@given(starts())
def test_a_start_line_reads_back(start: RecordingStart) -> None:
    line = _line(start.to_json(pid=12))
    assert RecordingStart.from_json(line) == start
    assert line["format"] == start.format


def test_the_start_line_names_the_format_it_is_written_in() -> None:
    assert RecordingStart().to_json()["format"] == FORMAT == "1.3"
    older = RecordingStart.from_json({"type": "start", "argv": ["a.py"], "time": 1.0})
    assert older is not None and older.format == "1.0" and older.readable
    newer = RecordingStart.from_json({"type": "start", "format": "2.0"})
    assert newer is not None and not newer.readable
    for damaged in (2, None, ["1.1"]):  # the format is a text
        assert RecordingStart.from_json({"type": "start", "format": damaged}) is None
    for damaged in ("one", "", "1.x", "<b>2.0</b>"):  # no version: read as usual
        start = RecordingStart.from_json({"type": "start", "format": damaged})
        assert start is not None and start.format == damaged and start.readable


figures = st.builds(
    Figures,
    wholes,
    wholes,
    maybe_wholes,
    maybe_wholes,
    st.none() | st.floats(0, 1e15),
)
scripts = st.builds(
    Script,
    names,
    st.integers(0, 100),
    signatures,
    st.none() | st.integers(0, 100),
    source=maybe_texts,
    source_file=maybe_texts,
    source_line=maybe_wholes,
    jaxpr=maybe_texts,
    jaxpr_annotated=maybe_texts,
    jaxpr_lines=st.lists(
        st.builds(EquationLine, wholes, wholes, texts, maybe_texts, maybe_wholes, maybe_texts),
        max_size=2,
    ).map(tuple),
    stablehlo=maybe_texts,
    hlo=maybe_texts,
    figures=st.none() | figures,
    unavailable=st.dictionaries(texts, texts, max_size=2),
    notes=st.lists(texts, max_size=2).map(tuple),
    stdout=st.lists(texts, max_size=2).map(tuple),
    produce_ms=st.floats(0, 1e6),
)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(
    st.builds(
        RecordedScript,
        names,
        maybe_texts,
        st.integers(0, 100),
        st.none() | st.integers(0, 100),
        st.none() | scripts,
        texts,
        moments,
    )
)
def test_a_script_line_reads_back(script: RecordedScript) -> None:
    parts = ("source", "jaxpr", "stablehlo", "hlo")  # every text kept (--script-texts)
    assert RecordedScript.from_json(_line(script.to_json(parts))) == script


@given(
    st.builds(ProcessInfo, wholes, maybe_wholes, maybe_texts, maybe_wholes, maybe_wholes, moments)
)
def test_a_process_line_reads_back(info: ProcessInfo) -> None:
    assert ProcessInfo.from_json(_line(info.to_json())) == info


@given(
    st.builds(
        RecordedNotice, st.text(st.characters(blacklist_categories=("Cs",)), max_size=200), moments
    )
)
def test_a_notice_line_reads_back(notice: RecordedNotice) -> None:
    assert RecordedNotice.from_json(_line(notice.to_json())) == notice


@given(st.builds(RecordingEnd, moments, st.none() | st.sampled_from(["SIGINT", "SIGTERM"])))
def test_an_end_line_reads_back(end: RecordingEnd) -> None:
    assert RecordingEnd.from_json(_line(end.to_json())) == end


@settings(
    max_examples=40,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    starts(),
    st.lists(calls(), max_size=6),
    st.lists(st.builds(RecordedHits, names, maybe_texts, wholes, moments), max_size=6),
    st.builds(RecordedNotice, names, moments),
    st.builds(RecordingEnd, moments),
)
def test_a_whole_file_reads_back(
    tmp_path: Path,
    start: RecordingStart,
    written: list[RecordedCall],
    hits: list[RecordedHits],
    notice: RecordedNotice,
    end: RecordingEnd,
) -> None:
    lines = [start.to_json(), *(c.to_json() for c in written), *(h.to_json() for h in hits)]
    lines += [notice.to_json(), end.to_json()]
    path = tmp_path / "run.jsonl"
    path.write_text("".join(dumps_strict(line) + "\n" for line in lines), encoding="utf-8")
    recording, offset = read_recording(path)
    assert offset == path.stat().st_size and recording.bad_lines == 0
    assert recording.start == start and recording.calls == written and recording.ended
    assert list(recording.hits.items()) == list({h.key: h.hits for h in hits}.items())
    assert recording.notices == [(notice.notice, notice.t)]


def test_a_script_figure_past_float_range_shows_as_inf_not_an_error() -> None:
    # JSON numbers past float's range read as inf (1e400); a hostile or damaged recording's
    # figures page must still show, with the figure as it was read.
    raw = (
        '{"type": "script", "function": "f", "defined_at": null, "card": 0, "created_by": 0,'
        ' "script": {"function": "f", "card": 0, "figures":'
        ' {"equations": 3, "top_level_equations": 2, "flops": 1e400}}, "why": "", "t": 1.0}'
    )
    line = RecordedScript.from_json(_decode(raw))  # as the reader reads it
    assert line is not None and line.script is not None
    text = line.script.text("figures")
    assert "inf" in text.splitlines()[[f.name for f in fields(Figures)].index("flops")]


def test_an_argument_committed_to_a_device_reads_back_and_older_lines_read_without_it() -> None:
    on = Signature((LeafSpec("x", (3,), "float32", False, device="cpu:1"),), (), "[*]")
    data = _line(on.to_json())
    assert data["args"][0]["device"] == "cpu:1" and data["text"] == "x: f32[3] @ cpu:1"
    assert read_signature(data) == on
    older = {k: v for k, v in data.items() if k != "text"}
    older["args"] = [{k: v for k, v in data["args"][0].items() if k != "device"}]
    assert str(read_signature(older)) == "x: f32[3]"  # format 1.2: no placement, as written
    plain = _line(Signature((LeafSpec("x", (3,), "float32", False),), (), "[*]").to_json())
    assert "device" not in plain["args"][0]  # an uncommitted array's line is as before
    data["args"][0]["device"] = 1
    with pytest.raises(Unfit):
        read_signature(data)
