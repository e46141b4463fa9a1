"""What a picky user saw at 1024×640 in English and Chinese, and no longer sees (issue 54's
leftovers): a chart after an error whose run name hung above the plot, in both languages;
the recording window's last-compile sentence cut at 1024 px; a long unbroken function name
wider than its pane; a comparison's title that cut the signatures at 60 characters."""

from __future__ import annotations

import pytest
from guihelp import slide, wait_calls
from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtWidgets import QApplication

from jitlab.gui.lesson.panes import CHART_NOTE_PLOT

SMALL = (1024, 640)


def _inside(inner: QRectF, outer: QRectF) -> bool:
    return outer.adjusted(-0.5, -0.5, 0.5, 0.5).contains(inner)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_after_an_error_the_chart_names_its_run_and_says_why_inside_its_plot(
    qtbot, make_window, lang
) -> None:
    window = make_window(scenario="error-debugging")
    window.set_language(lang)  # Chinese lines are taller: the same plot, less room in it
    window.resize(*SMALL)
    QApplication.processEvents()
    window.run_controls.step.click()  # the pitfall: a call that raises
    wait_calls(qtbot, window, 1)
    chart = window.chart
    qtbot.waitUntil(lambda: chart.error_plot.isVisible() and chart.failed_only)
    qtbot.waitUntil(lambda: chart.plot.height() >= CHART_NOTE_PLOT)
    QApplication.processEvents()
    view = chart.plot.getPlotItem().vb.sceneBoundingRect()
    names = [line.label for line in chart._run_lines]
    assert names, "the run's variant is named on the plot"
    for name in names:  # whole inside the plot, never hung above its top edge
        assert _inside(name.sceneBoundingRect(), view), (lang, name.sceneBoundingRect(), view)
    # Why the plot is empty, whole, below the run's name (not under it).
    note = chart.empty_hint
    assert note.isVisible() and note.text()
    assert note.heightForWidth(note.width()) <= note.height(), (lang, note.geometry())
    top = chart.plot.mapFromScene(view).boundingRect().top()
    for name in names:
        bottom = top + int(name.sceneBoundingRect().bottom() - view.top())
        assert note.geometry().top() >= bottom, (lang, note.geometry(), bottom)
    assert QRect(note.geometry()).bottom() <= chart.plot.height()
    # No decades beside an empty latency axis (they come back with the first latency).
    assert not chart.plot.getPlotItem().getAxis("left").style["showValues"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_latency_axis_title_is_whole_along_its_axis_at_1024(qtbot, make_window, lang) -> None:
    # "latency (ms, log scale" lost its end at 1024×640: the short title where the plot is
    # short, the whole one leading the plot's tooltip.
    window = make_window(scenario="dynamic-shapes")
    window.set_language(lang)
    window.resize(*SMALL)
    QApplication.processEvents()
    window.run_controls.step.click()
    wait_calls(qtbot, window, 1)
    chart = window.chart
    qtbot.waitUntil(lambda: chart.point_count() == 1)
    QApplication.processEvents()
    axis = chart.plot.getPlotItem().getAxis("left")
    assert axis.labelText and axis.label.isVisible()
    room = axis.geometry().height()
    assert axis.label.boundingRect().width() <= room, (lang, axis.labelText, room)
    full = chart.axis_title[0]
    assert axis.labelText == full or full in chart.plot.toolTip(), lang
    window.resize(1280, 800)  # room enough: the whole title again
    QApplication.processEvents()
    QApplication.processEvents()
    assert axis.labelText == full, (lang, axis.geometry().height())


@pytest.mark.qt_log_ignore("does not support raise", "propagateSizeHints")
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_comparison_names_what_differs_whole_in_the_display_language(
    qtbot, make_window, lang
) -> None:
    # Its title cut both signatures at 60 characters, before what differed; the diff's
    # header said "call #0" in a Chinese window.
    window = make_window(scenario="dynamic-shapes")
    window.set_language(lang)
    window.run_controls.step.click()  # batch 8
    wait_calls(qtbot, window, 1)
    slide(window, "batch_size", 16)  # a recompile: x and y change
    wait_calls(qtbot, window, 2)
    first, second = sorted(window.state.cards.values(), key=lambda c: c.number)
    diff_window = window.scripts.compare(first, second)
    qtbot.addWidget(diff_window)
    title = diff_window.title.text().replace("\u200b", "")
    assert "x: f32[8,64] → f32[16,64]" in title and "y: f32[8] → f32[16]" in title, title
    assert "params" not in title  # what did not change is in the tooltip, not the title
    for card in (first, second):
        assert card.signature in diff_window.title.toolTip()
    diff_window.resize(*SMALL)
    QApplication.processEvents()
    label = diff_window.title
    assert label.heightForWidth(label.width()) <= label.height()
    qtbot.waitUntil(lambda: diff_window.compared is not None, timeout=60_000)
    head = diff_window.jaxpr.text().splitlines()[:2]
    call = "调用" if lang == "zh" else "call"
    assert head[0].endswith(f"#{first.number} ({call} #{first.created_by})"), head
    assert head[1].endswith(f"#{second.number} ({call} #{second.created_by})"), head
    # The script window's list of cards to compare with: what differs, not a cut signature.
    script = window.scripts.open(first)
    qtbot.addWidget(script)
    combo = script.view.compare_with
    assert combo.count() == 1 and "x: f32[8,64] → f32[16,64]" in combo.itemText(0)
    assert combo.itemData(0, Qt.ItemDataRole.ToolTipRole) == second.signature
