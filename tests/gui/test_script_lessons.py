"""The lessons use the chef's scripts (issue 13): each built-in names the script difference
that teaches its pitfall, and the answer's button opens it, on the real app with real JAX."""

from __future__ import annotations

import re

import pytest
from guihelp import wait_calls

from jitlab.gui import i18n
from jitlab.gui.scripts.window import ScriptDiffWindow
from jitlab.lab.discovery import scenarios
from jitlab.lab.scenario import CardRef, ScriptLesson, Text, validate

SCRIPT_TIMEOUT_MS = 60_000
offscreen = pytest.mark.qt_log_ignore("does not support raise", "propagateSizeHints")
HAN = re.compile(r"[\u4e00-\u9fff]")


def test_every_builtin_declares_a_script_lesson_in_both_languages() -> None:
    found = scenarios()
    assert len(found) >= 7
    for sid, cls in found.items():
        # A ScriptLesson with an English paragraph, a Chinese one and one or two known cards:
        # what a built-in owes is the spec's own check (tests/lab/test_builtin_rules.py).
        assert isinstance(cls.scripts, ScriptLesson), sid
        assert validate(cls, builtin=True) == [], sid


def test_validate_names_what_is_wrong_with_a_script_lesson() -> None:
    cls = scenarios()["control-flow"]
    bad = type(
        "Bad",
        (cls,),
        {
            "scripts": ScriptLesson(
                Text("a", "甲"),
                (CardRef("no-such-variant"), CardRef("scan", {"steps": 0}), CardRef("scan")),
            )
        },
    )
    problems = validate(bad)
    assert any("Bad.scripts.compare: scripts.compare names at most two" in p for p in problems)
    bad.scripts = ScriptLesson(
        Text("a", "甲"), (CardRef("no-such-variant"), CardRef("scan", {"nope": 1}, number=0))
    )
    problems = validate(bad)
    assert any("scripts.compare names unknown variant 'no-such-variant'" in p for p in problems)
    assert any("scripts.compare names unknown parameter 'nope'" in p for p in problems)
    assert any("card number" in p for p in problems)
    bad.scripts = "the scan"  # type: ignore[assignment]
    (problem,) = validate(bad)
    assert "Bad.scripts: must be ScriptLesson(text, …) or None, not the str 'the scan'" in problem


def cook(qtbot, window, variant: str, steps: int) -> None:
    window.set_variant(variant)
    qtbot.waitUntil(lambda: window.state.variant == variant)
    start = len(window.state.records)
    window.params.set_values({"steps": steps})
    wait_calls(qtbot, window, start + 1)


@offscreen
def test_the_loop_lesson_compares_the_unrolled_loop_with_scan(qtbot, make_window) -> None:
    window = make_window(scenario="control-flow")
    panel, kept = window.briefing, window.lesson_scripts
    cook(qtbot, window, "unrolled-loop", 8)  # not the lesson's 16 steps: no card kept
    assert panel.reveal()
    assert "48 equations" in panel.scripts_text.text()
    button = panel.scripts_button
    assert button.isVisible() and not button.isEnabled()
    assert button.text() == "Compare the scripts"
    needed = panel.scripts_status.text()
    assert "Make these calls first" in needed and "Loop steps: 16" in needed
    assert "lax.scan" in needed and "Python for loop (unrolled)" in needed
    cook(qtbot, window, "unrolled-loop", 16)
    qtbot.waitUntil(lambda: 0 in kept.made, timeout=SCRIPT_TIMEOUT_MS)
    assert "Python for loop" not in panel.scripts_status.text()  # only scan is missing now
    assert not button.isEnabled()
    # The variant switch empties the card holder; the unrolled card's script stays kept.
    cook(qtbot, window, "scan", 16)
    qtbot.waitUntil(button.isEnabled, timeout=SCRIPT_TIMEOUT_MS)
    assert not panel.scripts_status.isVisible()
    button.click()
    diff_window = window.scripts.diffs[-1]
    assert isinstance(diff_window, ScriptDiffWindow)
    qtbot.waitUntil(lambda: diff_window.compared is not None, timeout=SCRIPT_TIMEOUT_MS)
    diff = diff_window.compared.diff
    assert diff is not None
    change = {c.name: c for c in diff.figures}["equations"]
    assert change.before >= 48 and change.after <= 6 and change.delta <= -40
    # The header numbers the cards as the kitchen does (#1), never the core's "card 0".
    head = diff_window.jaxpr.text().splitlines()[:2]
    assert head[0].startswith("--- rnn_unrolled #2 (call #1)")  # steps 8 made card #1
    assert head[1].startswith("+++ rnn_scan #1")
    assert "card 0" not in diff_window.jaxpr.text()[:200]


@offscreen
def test_the_lesson_reads_in_chinese(qtbot, make_window) -> None:
    window = make_window(scenario="side-effects")
    i18n.set_language("zh")
    window.step()
    wait_calls(qtbot, window, 1)
    panel = window.briefing
    assert panel.reveal()
    assert "debug_print" in panel.scripts_text.text().replace("\u200b", "")  # break points
    assert HAN.search(panel.scripts_text.text())
    assert HAN.search(panel.scripts_button.text())
    qtbot.waitUntil(lambda: 0 in window.lesson_scripts.made, timeout=SCRIPT_TIMEOUT_MS)
    assert "jax.debug.print + 计数作为输出" in panel.scripts_status.text()
