"""One screen, in the order a learner thinks: the question and a prediction, the slider, the
kitchen and the chart together; the answer stays hidden until a call of the scenario ran."""

from __future__ import annotations

from guihelp import wait_calls
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from jitlab.records.calls import CallKind


def visible_text(window) -> str:
    """Every word a learner can see in the window now (labels and the lesson)."""
    return "\n".join(
        label.text() for label in window.findChildren(QLabel) if label.isVisible() and label.text()
    )


def diff_tab_shown(window) -> bool:
    tabs = window.code.tabs
    return tabs.isTabVisible(tabs.indexOf(window.code.diff))


def test_the_first_screen_holds_the_question_slider_kitchen_and_chart(window) -> None:
    cls = window.scenario
    assert window.mode == "start" and window.pages.currentWidget() is window.lab_page
    lesson = window.briefing
    # The question and the prediction, framed as the thing to do first…
    assert lesson.question.isVisible() and lesson.question.text() == cls.question.get("en")
    assert lesson.prediction.isVisible() and lesson.start.isVisible()
    assert lesson.question_box.property("emphasis") is True
    # …the slider and the run controls, the kitchen and the chart, on the same screen.
    assert window.params.widgets["batch_size"].isVisible()
    assert window.run_controls.step.isVisible() and window.run_controls.play.isVisible()
    assert window.kitchen.canvas.isVisible() and window.chart.plot.isVisible()
    # Neither the answer nor the kitchen story (it says, in its own words, that a new portion
    # means a new rehearsal) shows before the first call.
    assert not lesson.story_box.isVisible()
    shown = visible_text(window)
    for part in (cls.lesson.what, cls.lesson.why, cls.lesson.fix, cls.lesson.kitchen):
        assert part.get("en") not in shown
    assert "What goes wrong" not in shown
    assert not lesson.answer.isVisible() and not lesson.answer_button.isEnabled()
    assert lesson.answer_note.isVisible()
    assert not diff_tab_shown(window)  # the fix's code is part of the answer
    assert not lesson.reveal()  # locked: a click (or a caller) cannot open it yet


def test_the_answer_unlocks_after_the_first_call_and_locks_again_for_a_new_scenario(
    qtbot, window
) -> None:
    cls = window.scenario
    lesson = window.briefing
    qtbot.mouseClick(lesson.answer_button, Qt.MouseButton.LeftButton)  # disabled: nothing
    assert not lesson.answer.isVisible()
    qtbot.mouseClick(window.run_controls.step, Qt.MouseButton.LeftButton)
    wait_calls(qtbot, window, 1)
    qtbot.waitUntil(lesson.answer_button.isEnabled)
    assert not lesson.answer.isVisible()  # unlocked, not forced on the learner
    assert not lesson.answer_note.isVisible()
    assert lesson.text.isVisible() and lesson.text.text() == cls.lesson.kitchen.get("en")
    qtbot.mouseClick(lesson.answer_button, Qt.MouseButton.LeftButton)
    assert lesson.answer.isVisible() and lesson.answer_shown
    shown = visible_text(window)
    for part in (cls.lesson.what, cls.lesson.why, cls.lesson.fix):
        assert part.get("en") in shown
    assert "What goes wrong" in shown and "The fix" in shown
    # The fix as code: its diff tab appears, and the button brings it forward.
    assert diff_tab_shown(window)
    qtbot.mouseClick(lesson.fix_code, Qt.MouseButton.LeftButton)
    assert window.panes.bottom.currentWidget() is window.code
    assert window.code.tabs.currentWidget() is window.code.diff
    assert "+" in window.code.diff.toPlainText()

    # A new scenario: its own question, and its answer locked again.
    window.select_scenario("static-args")
    assert window.mode == "start" and lesson.stage == "start"
    assert lesson.question.text() == window.scenario.question.get("en")
    assert not lesson.answer_button.isEnabled() and not lesson.answer.isVisible()
    assert not diff_tab_shown(window)
    assert window.scenario.lesson.what.get("en") not in visible_text(window)


def test_start_cooking_or_the_first_slider_move_goes_to_execute_on_the_same_screen(
    qtbot, window
) -> None:
    lesson = window.briefing
    lesson.prediction.setText("3 compiles")
    qtbot.mouseClick(lesson.start, Qt.MouseButton.LeftButton)
    assert window.mode == "execute" and window.pages.currentWidget() is window.lab_page
    assert not lesson.start.isVisible()  # its job is done…
    assert lesson.question.isVisible()  # …the question stays in sight while cooking
    assert lesson.prediction.text() == "3 compiles"
    assert lesson.question_box.property("emphasis") is False
    assert len(window.state.records) == 0  # moving on made no call by itself

    window.set_mode("start")
    assert lesson.start.isVisible()
    control = window.params.widgets["batch_size"]
    control.slider.setValue(control.stops.index(16))  # the learner drags the slider
    assert window.mode == "execute"
    wait_calls(qtbot, window, 1)
    assert window.state.records[0].params["batch_size"] == 16
    assert window.state.records[0].kind is CallKind.COMPILE
    qtbot.waitUntil(lambda: "1 call this run · 1 in total" in window.status_label.text())
    # The prediction typed on this screen reaches the Complete page.
    window.set_mode("complete")
    assert "Your prediction: 3 compiles" in window.summary.prediction.text()


def test_the_complete_page_keeps_the_fix_for_after_a_call(qtbot, window) -> None:
    window.set_mode("complete")
    fix = window.scenario.lesson.fix.get("en")
    assert not window.summary.lesson.isVisible()
    assert fix not in visible_text(window)
    window.set_mode("execute")
    window.run_controls.step.click()
    wait_calls(qtbot, window, 1)
    window.set_mode("complete")
    assert window.summary.lesson.isVisible() and fix in window.summary.lesson.text()


def test_the_one_screen_speaks_chinese(qtbot, window) -> None:
    window.menus.lang_actions["zh"].trigger()
    lesson = window.briefing
    assert lesson.question_box.title() == "运行之前，先猜一猜"
    assert lesson.start.text() == "开始下厨 →"
    assert lesson.answer_button.text() == "答案"
    assert lesson.question.text() == window.scenario.question.get("zh")
    assert lesson.text.text() == window.scenario.lesson.kitchen.get("zh")
    window.run_controls.step.click()
    wait_calls(qtbot, window, 1)
    qtbot.waitUntil(lesson.answer_button.isEnabled)
    assert lesson.reveal()
    assert "哪里出了问题" in lesson.answer.text()
    assert window.scenario.lesson.why.get("zh") in lesson.answer.text()
