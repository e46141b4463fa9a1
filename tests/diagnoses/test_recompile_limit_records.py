"""recompile-limit as data: its line, its words in both languages, read back by old and new
readers (no JAX here)."""

from __future__ import annotations

import json

import pytest

from jitlab.recordings.reader import Recording, read_recording
from jitlab.records import messages
from jitlab.records.diagnoses import (
    IDS,
    RECOMPILE_LIMIT,
    Diagnosis,
    page,
    resolve_warn_after,
    sentence,
    warning_lines,
)
from jitlab.records.lines import FORMAT, RecordingStart, format_major

FIGURES = {
    "compiles": 9,
    "limit": 8,
    "argument": "batch",
    "change": "shape",
    "changed": 8,
    "recompiles": 8,
    "fix": "bucket",
}


def test_a_diagnosis_line_reads_back_as_the_same_value():
    d = Diagnosis(RECOMPILE_LIMIT, "loss", "train.py:12", FIGURES, t=1.5)
    line = json.loads(json.dumps(d.to_json()))
    assert line["type"] == "diagnosis" and line["id"] == "recompile-limit"
    assert Diagnosis.from_json(line) == d
    assert RECOMPILE_LIMIT in IDS


@pytest.mark.parametrize(
    "damage",
    [
        {"id": 3},
        {"id": "Not An Id"},
        {"function": None},
        {"site": 12},
        {"figures": [1, 2]},
        {"figures": {"compiles": [9]}},
        {"figures": {"compiles": 10**30}},
        {"t": "soon"},
    ],
)
def test_a_damaged_diagnosis_line_is_not_read(damage):
    line = {**Diagnosis(RECOMPILE_LIMIT, "loss", "a.py:1", FIGURES).to_json(), **damage}
    assert Diagnosis.from_json(line) is None


def test_the_words_come_from_the_figures_in_english_and_chinese():
    d = Diagnosis(RECOMPILE_LIMIT, "loss", "train.py:12", FIGURES)
    en = sentence(d, "en")
    assert "loss (train.py:12) compiled more than 8 times; in its first 9 compiles" in en
    assert "shape of batch changed in 8 of 8 recompiles" in en
    zh = "\n".join([sentence(d, "zh"), *warning_lines(d, "zh")])
    assert "batch" in zh and "前 9 次编译" in zh
    words = zh.replace(RECOMPILE_LIMIT, "")  # the stable id (and its page's name) stay as is
    english = [f for f in messages.english_fragments() if f in words]
    assert english == []
    block = warning_lines(d, "en")
    assert block[0].startswith("jitlab: recompile-limit: loss (train.py:12)")
    assert "pad or bucket batch" in block[1]
    assert block[2].endswith("jitlab explain recompile-limit")
    assert page(RECOMPILE_LIMIT).endswith("docs/diagnoses/recompile-limit.md")


@pytest.mark.parametrize(
    ("change", "fix", "words"),
    [
        ("static_value", "static", "pass it as a traced argument"),
        ("new_function_object", "recreate", "create the jitted function once"),
    ],
)
def test_each_change_has_its_fix(change, fix, words):
    figures = {**FIGURES, "change": change, "fix": fix}
    assert words in warning_lines(Diagnosis(RECOMPILE_LIMIT, "f", None, figures))[1]


def test_with_no_argument_seen_jitlab_says_it_cannot_tell():
    figures = {**FIGURES, "argument": None, "change": None, "fix": "unknown"}
    d = Diagnosis(RECOMPILE_LIMIT, "f", None, figures)
    assert "cannot tell which argument" in sentence(d)
    assert "cannot tell" not in sentence(Diagnosis(RECOMPILE_LIMIT, "f", None, FIGURES))


@pytest.mark.parametrize("bad", ["-1", "x", "2.5", "", " ", "٣", -1, True, 2.0])
def test_a_bad_warn_after_is_one_line_naming_where_it_came_from(bad):
    with pytest.raises(ValueError) as raised:
        resolve_warn_after(bad, {})
    text = str(raised.value)
    assert "\n" not in text and text.startswith("--warn-after:")
    with pytest.raises(ValueError, match=r"^JITLAB_WARN_AFTER:"):
        resolve_warn_after(None, {"JITLAB_WARN_AFTER": str(bad)})


def test_warn_after_given_wins_over_the_variable_and_the_default_is_8():
    assert resolve_warn_after(None, {}) == 8
    assert resolve_warn_after(None, {"JITLAB_WARN_AFTER": "3"}) == 3
    assert resolve_warn_after("0", {"JITLAB_WARN_AFTER": "3"}) == 0
    assert resolve_warn_after(5, {"JITLAB_WARN_AFTER": "x"}) == 5


def _recording_with_a_diagnosis(tmp_path):
    lines = [
        RecordingStart(argv=("train.py",), time=0.0).to_json(),
        {"type": "hits", "function": "loss", "defined_at": "train.py:12", "hits": 3, "t": 1.0},
        Diagnosis(RECOMPILE_LIMIT, "loss", "train.py:12", FIGURES, t=1.0).to_json(),
        {"type": "end", "t": 2.0},
    ]
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_the_reader_keeps_diagnoses(tmp_path):
    recording, _ = read_recording(_recording_with_a_diagnosis(tmp_path))
    assert recording.bad_lines == 0 and recording.ended
    assert [(d.id, d.function, d.figures["argument"]) for d in recording.diagnoses] == [
        ("recompile-limit", "loss", "batch")
    ]


class _Reader11(Recording):
    """A format-1.1 reader: the dispatch it had, which knew no ``diagnosis`` line."""

    def add_line(self, obj):
        if isinstance(obj, dict) and obj.get("type") == "diagnosis":
            return Recording.add_line(self, {**obj, "type": "unknown-to-1.1"})
        return Recording.add_line(self, obj)


def test_an_older_reader_skips_the_line_and_reads_the_rest(tmp_path):
    assert FORMAT == "1.3" and format_major(FORMAT) == 1  # a minor step: 1.x readers read it
    recording, _ = read_recording(_recording_with_a_diagnosis(tmp_path), into=_Reader11())
    assert RecordingStart.from_json({"type": "start", "format": FORMAT}).readable
    assert recording.bad_lines == 0 and recording.ended and recording.diagnoses == []
    assert recording.hits == {("loss", "train.py:12"): 3}
