"""The error pane at the size a learner sees it: a few lines tall, nothing cut at the right.

Real calls on the real worker: control-flow's pitfall raises TracerBoolConversionError, and
error-debugging's pitfall raises it with the anatomy (what / where / why / fix) attached.
"""

from __future__ import annotations

import pytest
from guihelp import wait_calls
from PySide6.QtGui import QFontDatabase, QTextCursor
from PySide6.QtWidgets import QTextEdit

from jitlab.gui.lesson.error_view import ErrorView
from jitlab.records.paths import builtin_dir


def _raise_once(qtbot, make_window, scenario: str, language: str, size=(1280, 800)):
    window = make_window(scenario=scenario)
    if language != "en":
        window.set_language(language)
    window.resize(*size)
    window.set_mode("execute")
    window.step()
    wait_calls(qtbot, window, 1)
    window.link.drain()
    assert window.state.records[0].error is not None
    qtbot.waitUntil(lambda: window.panes.bottom.currentWidget() is window.error_view)
    qtbot.wait(50)  # one layout pass at the new size
    return window


def _cut_lines(view: QTextEdit) -> list[str]:
    """Every laid-out line wider than the page: text that would run past the right edge."""
    doc = view.document()
    width = doc.textWidth()
    cut = []
    block = doc.begin()
    while block.isValid():
        layout = block.layout()
        for i in range(layout.lineCount()):
            line = layout.lineAt(i)
            if line.x() + line.naturalTextWidth() > width + 1:
                start = line.textStart()
                cut.append(block.text()[start : start + line.textLength()])
        block = block.next()
    return cut


@pytest.mark.parametrize("language", ["en", "zh"])
def test_jax_message_wraps_and_no_line_is_cut(qtbot, make_window, language) -> None:
    window = _raise_once(qtbot, make_window, "control-flow", language)
    view: ErrorView = window.error_view
    record = window.state.records[0]
    assert record.error.type == "TracerBoolConversionError"
    assert view.lineWrapMode() is QTextEdit.LineWrapMode.WidgetWidth
    viewport = view.viewport().width()
    assert 0 < view.document().textWidth() <= viewport
    assert view.document().idealWidth() <= viewport  # no line wider than the pane
    assert _cut_lines(view) == []
    assert view.horizontalScrollBar().maximum() == 0
    # JAX's whole message is there (the long line with the file path and the docs link too).
    text = view.toPlainText()
    for line in record.error.message.splitlines():
        assert " ".join(line.split()) in " ".join(text.split())
    assert " ".join(text.split()).startswith(
        ("What" if language == "en" else "报错") + " TracerBoolConversionError"
    )


def test_prose_is_not_monospace_but_the_message_is(qtbot, make_window) -> None:
    window = _raise_once(qtbot, make_window, "control-flow", "en")
    view = window.error_view
    fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
    assert view.font().family() != fixed
    doc = view.document()
    message = doc.find("Attempted boolean conversion", 0)
    message = doc.find("Attempted boolean conversion", message)  # the raw message, 2nd time
    assert not message.isNull()
    assert fixed in message.charFormat().fontFamilies() or message.charFormat().fontFixedPitch()


@pytest.mark.parametrize(
    ("language", "labels", "why", "fix"),
    [
        ("en", ("What", "Where", "Why", "Fix"), "Python control flow on a traced", "lax.cond"),
        ("zh", ("报错", "位置", "原因", "改法"), "在追踪值上用 Python 控制流", "jax.lax.cond"),
    ],
)
def test_the_anatomy_summary_is_first_and_visible_in_the_small_pane(
    qtbot, make_window, language, labels, why, fix
) -> None:
    window = _raise_once(qtbot, make_window, "error-debugging", language)
    view = window.error_view
    text = view.toPlainText()
    # what / where / why / fix, in this order, before the details and JAX's raw words.
    positions = [text.find(label) for label in labels]
    assert -1 not in positions and positions == sorted(positions), positions
    # Where: the line that failed (the `if` on a traced value), in the user's function.
    path = builtin_dir("scenarios") / "error_debugging.py"
    source = path.read_text(encoding="utf-8").splitlines()
    failing = next(i for i, line in enumerate(source, 1) if "if jnp.mean(x) > 0:" in line)
    assert f"error_debugging.py:{failing} · center()" in text
    assert why in text and fix in text
    assert text.find(fix) < text.find("①")
    # The pane is only a few lines tall: the four summary rows must be on its first screen.
    view.verticalScrollBar().setValue(0)
    cursor = QTextCursor(view.document().find(labels[-1]))
    assert view.cursorRect(cursor).bottom() <= view.viewport().height(), view.viewport().height()
    assert _cut_lines(view) == []
    assert view.horizontalScrollBar().maximum() == 0


def test_the_error_follows_a_language_switch(qtbot, make_window) -> None:
    window = _raise_once(qtbot, make_window, "error-debugging", "en")
    assert "Python control flow on a traced value" in window.error_view.toPlainText()
    window.set_language("zh")
    qtbot.waitUntil(lambda: "在追踪值上用 Python 控制流" in window.error_view.toPlainText())
    assert "改法" in window.error_view.toPlainText()
    # The tracing context's operation in Chinese too (issue 42: "bool() of a traced value"
    # stayed English), JAX's own message below it untouched.
    text = window.error_view.toPlainText()
    assert "把追踪值当作真假来用（if / while / and）" in text
    assert "bool() of a traced value" not in text
