"""The window opens at and works at 1024×640, in English and in Chinese; the scenario list
folds away (a toggle with a shortcut, or dragged shut) and the choice is remembered."""

from __future__ import annotations

import pytest
from guihelp import wait_calls
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QApplication

SMALL = (1024, 640)
MODES = ("start", "execute", "monitor", "complete")


def inside(widget, window) -> bool:
    """The widget is shown and lies wholly inside the window's central area."""
    if not widget.isVisible() or widget.width() < 8 or widget.height() < 8:
        return False
    top_left = widget.mapTo(window, QPoint(0, 0))
    area = window.centralWidget().geometry()
    return area.contains(QRect(top_left, widget.size()))


def in_view(widget, scroll) -> bool:
    """Inside a scroll area: the widget is in the visible part without scrolling."""
    top_left = widget.mapTo(scroll.viewport(), QPoint(0, 0))
    return scroll.viewport().rect().contains(QRect(top_left, widget.size()))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_minimum_size_fits_1024_by_640(qtbot, make_window, lang) -> None:
    window = make_window(scenario="dynamic-shapes")
    window.set_language(lang)
    window.run_controls.step.click()  # labels with numbers and reasons in them
    wait_calls(qtbot, window, 1)
    for mode in MODES:
        window.set_mode(mode)
        QApplication.processEvents()
        hint, minimum = window.minimumSizeHint(), window.minimumSize()
        assert hint.width() <= SMALL[0] and hint.height() <= SMALL[1], (lang, mode, hint)
        assert minimum.width() <= SMALL[0] and minimum.height() <= SMALL[1], (lang, mode)
    window.resize(*SMALL)
    QApplication.processEvents()
    assert (window.width(), window.height()) == SMALL


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_nothing_that_matters_is_cut_off_at_1024_by_640(qtbot, make_window, lang) -> None:
    window = make_window(scenario="dynamic-shapes")
    window.set_language(lang)
    window.resize(*SMALL)
    QApplication.processEvents()
    lesson = window.briefing
    # Start: the question, the prediction and the slider are in view without scrolling.
    for widget in (lesson.question, lesson.prediction, lesson.start):
        assert inside(widget, window) and in_view(widget, lesson), widget.objectName()
    assert lesson.question.height() >= lesson.question.heightForWidth(lesson.question.width())
    slider = window.params.widgets["batch_size"]
    assert inside(slider, window) and in_view(slider, lesson)
    # The column never cuts its content on the right (it scrolls down, not sideways).
    inner = lesson.widget()
    assert inner.minimumSizeHint().width() <= lesson.viewport().width()
    assert inner.width() <= lesson.viewport().width()
    for button in (window.run_controls.play, window.run_controls.step, window.run_controls.reset):
        assert button.width() >= button.fontMetrics().horizontalAdvance(button.text())
    # The kitchen and the chart beside them, big enough to read.
    assert inside(window.kitchen.canvas, window) and window.kitchen.canvas.width() >= 400
    assert inside(window.chart.plot, window) and window.chart.plot.height() >= 80
    assert inside(window.panes.bottom, window)
    for button in window.mode_bar.buttons.values():
        assert inside(button, window)
    window.set_mode("execute")
    window.run_controls.step.click()
    wait_calls(qtbot, window, 1)
    QApplication.processEvents()
    assert inside(window.kitchen.canvas, window)
    window.set_mode("monitor")
    QApplication.processEvents()
    assert inside(window.monitor.ledger.table, window)
    assert inside(window.monitor.timeline, window)
    assert window.monitor.timeline.height() >= 3 * window.monitor.timeline.ROW_H
    window.set_mode("complete")
    QApplication.processEvents()
    assert inside(window.summary.measure, window)


def test_the_scenario_list_folds_away_and_stays_folded(qtbot, make_window, settings) -> None:
    window = make_window(scenario="dynamic-shapes")
    window.resize(*SMALL)
    QApplication.processEvents()
    assert window.menus.act_scenarios.shortcut().toString() == "Ctrl+B"
    assert window.scenario_list.isVisible() and window.menus.act_scenarios.isChecked()
    kitchen_before = window.kitchen.canvas.width()
    window.menus.act_scenarios.trigger()
    QApplication.processEvents()
    assert not window.scenario_list.isVisible()
    assert not window.mode_bar.list_button.isChecked()
    assert window.kitchen.canvas.width() > kitchen_before  # the room goes to the lab
    window.run_controls.step.click()  # the lab works on with the list folded
    wait_calls(qtbot, window, 1)
    window.close()
    settings.sync()
    assert str(settings.value("scenario_list")).lower() == "false"

    again = make_window(scenario="dynamic-shapes")
    assert not again.scenario_list.isVisible() and not again.menus.act_scenarios.isChecked()
    again.mode_bar.list_button.click()
    QApplication.processEvents()
    assert again.scenario_list.isVisible() and again.scenario_list.width() > 0
    assert again.menus.act_scenarios.isChecked()


def test_dragging_the_list_shut_is_the_same_as_folding_it(qtbot, make_window) -> None:
    window = make_window(scenario="dynamic-shapes")
    window.resize(*SMALL)
    QApplication.processEvents()
    split = window.main_split
    assert split.isCollapsible(0) and not split.isCollapsible(1)
    split.moveSplitter(0, 1)  # as a drag of the handle to the left edge does
    QApplication.processEvents()
    assert split.sizes()[0] == 0
    assert not window.menus.act_scenarios.isChecked()
    window.menus.act_scenarios.trigger()
    QApplication.processEvents()
    assert window.scenario_list.isVisible() and split.sizes()[0] > 0
