"""No raw parameter id on any face of the lab (issue 54): the call log, a call's card, the
error pane and Complete's graded line name each value by its parameter's label and the
value's label, in the interface language; error-debugging's Complete answers its question."""

from __future__ import annotations

import html
import re

import pytest
from guihelp import wait_calls

RUN_MS = 180_000
TAGS = re.compile(r"<[^>]+>")


def shown(text: str) -> str:
    return html.unescape(TAGS.sub(" ", text))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_log_the_card_and_the_error_pane_name_values_by_their_labels(
    qtbot, make_window, lang
) -> None:
    window = make_window(scenario="error-debugging")
    window.set_language(lang)
    errors = window.params.widgets["error"]
    errors.setCurrentIndex(errors.findData("static-argument"))  # a call: an array marked static
    wait_calls(qtbot, window, 1)
    record = window.state.records[-1]
    assert record.params["error"] == "static-argument" and record.error is not None
    param = next(p for p in window.scenario.params if p.name == "error")
    label, value = param.label.get(lang), param.choice_label("static-argument", lang)
    model = window.log.model
    qtbot.waitUntil(lambda: model.rowCount() >= 1)
    cells = [model.data(model.index(0, c)) for c in range(model.columnCount())]
    card = shown(model.data(model.index(0, 0), 3))  # the row's tooltip: the call's card
    from jitlab.gui.views.call_text import describe

    point = shown(describe(record, window.chart._params()))  # the chart's point's card
    qtbot.waitUntil(lambda: window.error_view.record is not None)
    pane = window.error_view.toPlainText()
    for text in (" ".join(cells), card, point, pane):
        assert label in text and value in text, text[:400]
        assert "static-argument" not in text and "error=" not in text, text[:400]


def test_error_debuggings_complete_answers_its_question_in_the_learners_words(
    qtbot, make_window
) -> None:
    window = make_window(scenario="error-debugging")
    window.mode_bar.buttons["complete"].click()  # runs what the comparison is missing
    qtbot.waitUntil(lambda: window.mode == "complete" and not window.autoplay.beats, timeout=RUN_MS)
    window.summary.refresh()
    text = shown(window.summary.prediction.text())
    assert "Under jax.disable_jit() the same call runs without error" in text, text
    assert "The error points at your own line, error_debugging.py:" in text, text
    assert "in center(): if jnp.mean(x) > 0:" in text, text
    assert "Broken function: if on a traced value" in text, text  # its call, by its label
    assert "error " not in text.split("of the log")[0], text
    window.set_language("zh")
    window.summary.refresh()
    text = shown(window.summary.prediction.text())
    assert "在 jax.disable_jit() 下，同一次调用不再报错" in text
    assert "报错指向你自己的那一行" in text
