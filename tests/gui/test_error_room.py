"""An error gets room at 1024×640 (issue 54): its pane was a 130 px strip, Why, Fix and the
three layers below the fold. Now they are all in view without scrolling, in English and in
Chinese; a new run gives the room back, the kitchen with it."""

from __future__ import annotations

import pytest
from guihelp import wait_calls
from PySide6.QtWidgets import QApplication

from jitlab.gui.i18n import translate
from jitlab.gui.lesson.panes import CHART_MIN_PLOT, CHART_NOTE_PLOT

SMALL = (1024, 640)
SHOWN = (
    "What",
    "Where",
    "Why",
    "Fix",
    "① Python stack — your frames only",
    "② Tracing context",
    "③ Abstract values",
)


def lines_out_of_view(view) -> list[str]:
    """The labels of the error's summary and layers that are not wholly in view."""
    view.verticalScrollBar().setValue(0)
    QApplication.processEvents()
    out = []
    for label in SHOWN:
        words = translate("ErrorView", label)
        found = view.document().find(words)
        assert not found.isNull(), words
        rect = view.cursorRect(found)
        if rect.top() < 0 or rect.bottom() > view.viewport().height():
            out.append(words)
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_why_fix_and_the_three_layers_are_in_view_at_1024(qtbot, make_window, lang) -> None:
    window = make_window(scenario="error-debugging")
    window.set_language(lang)
    window.resize(*SMALL)
    QApplication.processEvents()
    window.run_controls.step.click()  # the pitfall: center's if on a traced value
    wait_calls(qtbot, window, 1)
    view = window.error_view
    qtbot.waitUntil(lambda: window.panes.bottom.currentWidget() is view)
    qtbot.waitUntil(lambda: view.record is not None and window.panes.room_given)
    QApplication.processEvents()
    assert lines_out_of_view(view) == [], (lang, view.viewport().height(), window.panes.sizes())
    # The chart keeps its failed calls' row and a plot for its note (no latency to show).
    qtbot.waitUntil(window.chart.error_plot.isVisible)
    assert window.chart.failed_only and window.chart.plot.height() >= CHART_NOTE_PLOT
    # The fix: a new run, whose calls work. The room goes back, the kitchen with it.
    window.chart.next_button.click()
    window.run_controls.step.click()
    wait_calls(qtbot, window, 2)
    qtbot.waitUntil(lambda: window.kitchen.isVisible() and not window.panes.room_given)
    # Chinese too: the kitchen's note takes the room left, never the plot's (its two lines
    # of Chinese left the plot 1 px short).
    qtbot.waitUntil(lambda: window.chart.plot.height() >= CHART_MIN_PLOT)
