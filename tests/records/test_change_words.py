"""A change's words live above its data: the data's own JSON holds no words, the public JSON
(``jitlab run --json``, the app's exports) gets its English from ``change_words``, and both
lines are byte for byte what jitlab wrote before the words moved out of the data."""

from __future__ import annotations

import jax.numpy as jnp

from jitlab import Probe
from jitlab.records.calls import CallKind, CallRecord, Change, Reason, dumps_strict
from jitlab.records.change_words import call_json, reason_json, reason_text, reason_words
from jitlab.records.changes import ChangeKind as K
from jitlab.records.lines import RecordedCall

REASON = Reason(
    (Change(K.SHAPE, "x", "f32[8]", "f32[16]"), Change(K.STATIC_VALUE, "n", "2", "3")),
    "JAX: n changed",
)
RECORD = CallRecord(1, "f", CallKind.RECOMPILE, 2.5, 1.0, 0.5, 0.75, reason=REASON)

# Written by jitlab before the move (7b1df41): ``dumps_strict(record.to_json())`` and
# ``dumps_strict(RecordedCall(...).to_json())`` of the record above.
_HEAD = (
    '{"index": 1, "function": "f", "kind": "recompile", "latency_ms": 2.5, "trace_ms": 1.0,'
    ' "lower_ms": 0.5, "compile_ms": 0.75, "execute_ms": 0.25, "variant": null, "params": null,'
    ' "signature": null, "card": null, "reason": {'
)
_ITEMS = (
    '"items": [{"kind": "shape", "path": "x", "before": "f32[8]", "after": "f32[16]",'
    ' "detail": "", "count": 0}, {"kind": "static_value", "path": "n", "before": "2",'
    ' "after": "3", "detail": "", "count": 0}]'
)
_TAIL = '"jax": "JAX: n changed"}, "error": null, "stdout": [], "notes": null'
PUBLIC = (
    _HEAD
    + '"changes": ["x: f32[16] ← f32[8]", "static n: 3 ← 2"], '
    + _ITEMS
    + ', "text": "x: f32[16] ← f32[8]; static n: 3 ← 2", '
    + _TAIL
    + "}"
)
RECORDING = (
    '{"type": "call", '
    + _HEAD[1:]
    + _ITEMS
    + ", "
    + _TAIL
    + ', "defined_at": "w.py:1", "called_from": null, "source": "probe", "internal": false,'
    ' "t": 0.5}'
)


def test_the_public_line_and_the_recording_line_are_written_as_before() -> None:
    assert dumps_strict(call_json(RECORD)) == PUBLIC
    assert dumps_strict(RecordedCall(RECORD, defined_at="w.py:1", t=0.5).to_json()) == RECORDING


def test_the_data_holds_no_words_and_the_words_module_says_them() -> None:
    probe = Probe(lambda x: x * 2)
    probe(jnp.ones(8))
    probe(jnp.ones(16))
    probe(jnp.ones(16))  # a cache hit: no reason
    record = probe.records[1]
    assert record.kind is CallKind.RECOMPILE and record.reason is not None
    data = record.to_json()["reason"]
    assert list(data) == ["items", "jax"]  # data only: no English in the record's own JSON
    assert "←" not in dumps_strict(record.to_json())
    words = call_json(record)["reason"]
    assert list(words) == ["changes", "items", "text", "jax"]  # the order run --json wrote
    assert words == reason_json(record.reason)
    assert words["changes"] == list(reason_words(record.reason)) == ["x: f32[16] ← f32[8]"]
    assert words["text"] == reason_text(record.reason) == "x: f32[16] ← f32[8]"
    assert reason_text(record.reason, "zh") == "x 的形状变了：f32[16] ← f32[8]"
    # Read back, either form is the same reason: the words are never parsed.
    assert Reason.from_json(words) == Reason.from_json(data) == record.reason
    # A call without a reason: the same line either way.
    hit = probe.records[2]
    assert hit.reason is None and call_json(hit) == hit.to_json()
