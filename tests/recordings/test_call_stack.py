"""A compile's ``stack`` (the user's lines that led to it): optional in a ``call`` line, read
back as written, a malformed one read as none with the call kept; rendered as data."""

from __future__ import annotations

import json

from jitlab.recordings.reader import Recording
from jitlab.records.lines import STACK_KEPT, RecordedCall
from jitlab.records.site_costs import call_paths, path_lines
from jitlab.report.page import render_body

LINE = {"type": "call", "index": 0, "function": "step", "kind": "compile", "latency_ms": 5.0,
        "trace_ms": 1.0, "lower_ms": 1.0, "compile_ms": 3.0, "defined_at": "a.py:1",
        "called_from": "a.py:9", "t": 0.5}  # fmt: skip


def test_a_stack_is_read_back_and_a_bad_one_is_none() -> None:
    stack = ["<b>main</b>.py:3", "a.py:9"]
    call = RecordedCall.from_json(LINE | {"stack": stack})
    assert call is not None and call.stack == tuple(stack)
    assert RecordedCall.from_json(json.loads(json.dumps(call.to_json()))) == call
    for bad in ("a.py:9", [1, 2], ["x"] * (STACK_KEPT + 1), {"a": 1}):
        kept = RecordedCall.from_json(LINE | {"stack": bad})
        assert kept is not None and kept.stack == ()  # the call itself is kept
    plain = RecordedCall.from_json(LINE)
    assert plain is not None and "stack" not in plain.to_json()  # older lines unchanged


def test_the_trie_shows_sites_as_data() -> None:
    calls = [
        RecordedCall.from_json(LINE | {"index": i, "stack": [f"<b>{i}</b>.py:3", "a.py:9"]})
        for i in range(2)
    ]
    recording = Recording(calls=[c for c in calls if c is not None], ended=True)
    rows = call_paths(recording.calls)
    assert [(d, n.site, n.compiles) for d, n in rows] == [
        (0, "a.py:9", 2),
        (1, "<b>0</b>.py:3", 1),
        (1, "<b>1</b>.py:3", 1),
    ]
    assert path_lines(recording.calls)[2] == "    ← <b>0</b>.py:3 — 1 compile, 5.00 ms"
    html = render_body([("run.jsonl", recording)])
    assert "<b>0</b>" not in html and "&lt;b&gt;0&lt;/b&gt;.py:3 — 1 compile" in html
