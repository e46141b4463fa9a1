"""A scenario whose own code raises (its setup, outside any probed call) is shown as the
scenario's exception, with its file and line, never labelled as JAX's message (issue 55)."""

from __future__ import annotations

from pathlib import Path

import pytest
from guihelp import wait_calls

# Its setup raises before any probed call is made (line 16).
RAISES = """
from jitlab.lab.scenario import Lesson, Pitfall, Scenario, Text, Variant

T = Text("x", "x")


class Raises(Scenario):
    id = "raises"
    pitfall = Pitfall.SIDE_EFFECTS
    title = T
    question = T
    lesson = Lesson(T, T, T, T)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))

    def setup(self, lab, variant):
        raise LookupError("no such table")
"""


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_scenarios_exception_is_labelled_as_its_own(
    qtbot, make_window, tmp_path: Path, language: str
) -> None:
    (tmp_path / "raises.py").write_text(RAISES, encoding="utf-8")
    window = make_window(scenarios_dir=tmp_path, scenario="raises")
    if language != "en":
        window.set_language(language)
    window.set_mode("execute")
    window.step()
    wait_calls(qtbot, window, 1)
    window.link.drain()
    text = window.error_view.toPlainText()
    assert "LookupError" in text and "raises.py:16 · setup()" in text
    assert 'raise LookupError("no such table")' in text
    # A scenario without parameters: the call by its number alone, no empty brackets.
    assert "()" not in text.replace("setup()", "") and "（）" not in text
    if language == "en":
        assert "Call #0 raised:" in text
        assert "The scenario's exception" in text and "JAX's message" not in text
        assert "Raised by the scenario's own code (setup), not by JAX." in text
    else:
        assert "场景自己的异常" in text and "JAX 的原始报错" not in text
