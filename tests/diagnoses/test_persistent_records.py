"""persistent-not-written / persistent-key-changed as data: the ``persistent`` line, each
compile's fate from the lines JAX logged, the words in both languages (no JAX here)."""

from __future__ import annotations

import json

import pytest

from jitlab.recordings.reader import Recording
from jitlab.records.calls import CallKind, CallRecord
from jitlab.records.diagnoses import IDS, Diagnosis, page, sentence, warning_lines
from jitlab.records.lines import RecordedCall
from jitlab.records.persistent import (
    PERSISTENT_KEY_CHANGED,
    PERSISTENT_NOT_WRITTEN,
    PersistentFate,
    fate_of,
    key_changed_figures,
    mismatch_note,
    mismatches,
)

PARTS = {"jaxlib": "0.10.2", "backend": "cpu", "xla_flags": ""}
KEY = "jit_step-" + "ab" * 32


def _fate(outcome: str, key: str | None = KEY, why: str | None = None, **parts: str):
    """A compile of step(x: f32[5]) and its fate."""
    return ("step", "train.py:3", "x: f32[5]", PersistentFate(outcome, why, key, PARTS | parts))


def test_a_fate_is_read_from_the_lines_jax_logged_for_its_compile():
    missed = ("missed", None, {"module": "jit_step", "key": KEY})
    too_fast = ("not_written", "min_compile_time", {"module": "jit_step", "compile_s": 0.21})
    fate = fate_of(False, [missed, too_fast], PARTS, (1.0, 0))
    assert (fate.outcome, fate.why, fate.key) == ("not_written", "min_compile_time", KEY)
    assert fate.figures == PARTS | {"compile_s": 0.21, "min_compile_s": 1.0}
    written = ("written", None, {"module": "jit_step", "key": KEY})
    assert fate_of(False, [missed, written], PARTS, (0.0, 0)) == PersistentFate(
        "written", None, KEY, PARTS
    )
    # JAX logged the miss, nothing of a write: said as compiled, a rerun can't be told.
    assert fate_of(False, [missed], PARTS, (1.0, 0)).outcome == "compiled"
    # A load JAX did not log (its key is logged only at DEBUG): loaded, no key.
    assert fate_of(True, [], PARTS, (1.0, 0)) == PersistentFate("loaded", None, None, PARTS)
    # A load is never told a write or a miss (lines of an earlier compile nobody filed).
    hit = ("loaded", None, {"module": "jit_step", "key": KEY})
    assert fate_of(True, [missed, written, hit], PARTS, (1.0, 0)) == PersistentFate(
        "loaded", None, KEY, PARTS
    )


@pytest.mark.parametrize(
    ("outcome", "why", "rerun"),
    [
        ("written", None, "yes"),
        ("loaded", None, "yes"),
        ("not_written", "min_entry_size", "no"),
        ("compiled", None, "unknown"),
    ],
)
def test_would_a_rerun_hit(outcome, why, rerun):
    assert _fate(outcome, why=why)[3].rerun == rerun


def test_a_compiles_fate_rides_on_its_call_line_and_a_damaged_one_is_refused():
    fate = PersistentFate("not_written", "min_compile_time", KEY, {"compile_s": 0.2})
    record = CallRecord(0, "step", CallKind.COMPILE, 80.0, persistent=fate)
    line = json.loads(json.dumps({"type": "call", **record.to_json()}))
    assert RecordedCall.from_json(line).record.persistent == fate
    assert CallRecord.from_json(line).persistent == fate
    recording = Recording()
    assert recording.add_line(line) and recording.calls[0].record.persistent == fate
    # Without a cache configured the line is as before: no "persistent" field at all.
    assert "persistent" not in CallRecord(0, "step", CallKind.COMPILE, 80.0).to_json()
    for bad in (
        {"outcome": "evicted"},
        {"why": "because"},
        {"figures": {"compile_s": 1e300}},
        {"figures": {"rm -rf": 1}},
        {"key": 5},
    ):
        damaged = line | {"persistent": fate.to_json() | bad}
        assert PersistentFate.from_json(damaged["persistent"]) is None, bad
        assert not Recording().add_line(damaged)


def test_not_written_says_jaxs_figures_in_both_languages():
    figures = {"why": "min_compile_time", "compile_s": 0.21, "min_compile_s": 1.0, "key": KEY}
    d = Diagnosis(PERSISTENT_NOT_WRITTEN, "step", "train.py:3", figures)
    assert PERSISTENT_NOT_WRITTEN in IDS and PERSISTENT_KEY_CHANGED in IDS
    en = sentence(d, "en")
    assert "compiled in 0.21 s, under jax_persistent_cache_min_compile_time_secs = 1.00 s" in en
    assert "编译用了 0.21 秒" in sentence(d, "zh")
    assert "jax_persistent_cache_min_compile_time_secs" in warning_lines(d, "en")[1]
    assert page(PERSISTENT_NOT_WRITTEN).endswith("docs/diagnoses/persistent-not-written.md")
    assert page(PERSISTENT_KEY_CHANGED).endswith("docs/diagnoses/persistent-key-changed.md")


def test_a_key_change_names_the_parts_that_differ_else_says_it_cannot_tell_which():
    base, new = _fate("loaded"), _fate("written", key="jit_step-" + "cd" * 32, jaxlib="0.11.2")
    assert mismatches([base], [new]) == [(base, new)]
    figures = key_changed_figures(base, new)
    assert figures["parts"] == "jaxlib"
    d = Diagnosis(PERSISTENT_KEY_CHANGED, "step", "train.py:3", figures)
    assert Diagnosis.from_json(json.loads(json.dumps(d.to_json()))) == d
    assert "jaxlib differs: 0.10.2 → 0.11.2" in sentence(d, "en")
    assert "jaxlib 不同：0.10.2 → 0.11.2" in sentence(d, "zh")
    same = Diagnosis(
        PERSISTENT_KEY_CHANGED,
        "step",
        None,
        key_changed_figures(base, _fate("written", key="jit_step-ee")),
    )
    assert "jitlab can't tell which" in sentence(same, "en")


def test_no_mismatch_where_both_runs_compiled_or_both_loaded_and_notes_say_what_was_seen():
    assert mismatches([_fate("loaded")], [_fate("loaded")]) == []
    assert mismatches([_fate("not_written", why="min_compile_time")], [_fate("compiled")]) == []
    assert mismatches([_fate("written")], [_fate("compiled")]) != []
    unknown = mismatch_note(_fate("loaded", key=None), _fate("written"), "en")
    assert "can't tell whether its key changed" in unknown
    same = mismatch_note(_fate("written"), _fate("compiled"), "zh")
    assert "缓存键相同" in same
