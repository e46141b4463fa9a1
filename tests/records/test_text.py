"""Recorded text as every face shows it (:func:`jitlab.records.text.visible`): nothing in it
drives a terminal or reorders a line, and a long field costs what its bound costs."""

from __future__ import annotations

import json
import re
import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from jitlab.records.text import (
    FIELD_LIMIT,
    json_escaped,
    may_hide,
    visible,
    visible_strings,
)

UNSEEN = {"Cc", "Cf", "Zl", "Zp", "Cs"}  # control, format, line/paragraph separator, surrogate


def test_every_control_and_format_character_is_written_out() -> None:
    """Checked against this Python's own Unicode tables (14.0 on 3.11, 15.1 on 3.13)."""
    missed = [
        f"U+{cp:04X} {unicodedata.category(chr(cp))}"
        for cp in range(sys.maxunicode + 1)
        if unicodedata.category(chr(cp)) in UNSEEN and visible(chr(cp)) == chr(cp)
    ]
    assert missed == [], missed[:20]


def test_what_a_crafted_name_holds_is_shown_as_python_writes_it() -> None:
    name = "f\x1b[2J\x1b]52;c;cHduZWQ=\x07\x9b2K\u202egnp.exe\u2066\r\x08\t\n\x7f\ufeff\U000e0041"
    assert visible(name) == (
        "f\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07\\x9b2K\\u202egnp.exe\\u2066\\r\\x08\\t\\n\\x7f"
        "\\ufeff\\U000e0041"
    )
    assert visible("a\n\tb\r", lines=True) == "a\n\tb\\r"  # a text of lines keeps its lines


@given(st.text())
def test_visible_text_holds_nothing_unseen_and_is_stable(text: str) -> None:
    shown = visible(text, limit=None)
    assert not any(unicodedata.category(c) in UNSEEN for c in shown)
    assert visible(shown, limit=None) == shown
    if all(unicodedata.category(c) not in UNSEEN for c in text):
        assert shown == text  # Chinese, emoji, markup: as they are


def test_a_long_field_is_elided_with_its_length_said() -> None:
    name = "head_" + "x" * 30_000 + "_tail"
    shown = visible(name)
    assert shown.startswith("head_") and shown.endswith("_tail")
    assert "[30,010 characters]" in shown and len(shown) < FIELD_LIMIT + 40
    assert "[共 30,010 个字符]" in visible(name, "zh")
    assert visible(name, limit=None) == name
    # Bounded whatever it holds: each character of the part shown written out at most.
    assert len(visible("\x1b" * 1_000_000)) < 4 * FIELD_LIMIT + 40


@given(st.text())
def test_json_escaped_is_the_same_data_with_nothing_raw(text: str) -> None:
    line = json_escaped(json.dumps({"function": text}, ensure_ascii=False))
    assert json.loads(line) == {"function": text}
    assert not re.search(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", line)


def test_a_parsed_line_is_made_visible_keys_and_all() -> None:
    obj = {"function": "f\u202e", "static": {"n\x1b": ["\x9b", 1, None]}}
    shown = {"function": "f\\u202e", "static": {"n\\x1b": ["\\x9b", 1, None]}}
    assert visible_strings(obj) == shown


@given(st.dictionaries(st.sampled_from(["function", "defined_at", "x"]), st.text(), min_size=1))
def test_a_line_whose_strings_would_change_is_never_passed_over(obj: dict[str, str]) -> None:
    """The window's reader walks only the lines :func:`may_hide` picks: every line whose
    strings :func:`visible_strings` changes is one (save a long string in a short line, shown
    whole: at most four bounds)."""
    line = json.dumps(obj, ensure_ascii=False)
    changed = visible_strings(obj) != obj
    long_only = all(visible_strings(v) == v or len(v) > FIELD_LIMIT for v in obj.values())
    if changed and not (long_only and len(line) <= 4 * FIELD_LIMIT):
        assert may_hide(line), line
