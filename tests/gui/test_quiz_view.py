"""The Quiz view: predictions checked against real JAX runs on the quiz thread."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt

from jitlab.gui import i18n

RUN_TIMEOUT_MS = 60_000


@pytest.fixture
def quiz(qtbot) -> Iterator:
    """A loaded QuizView; afterwards the quiz thread must really have ended."""
    from jitlab.gui.app import application
    from jitlab.gui.quiz.view import QuizView

    application()
    view = QuizView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    qtbot.waitUntil(lambda: view.catalogue is not None, timeout=RUN_TIMEOUT_MS)
    yield view
    view.shutdown()
    assert view.runner.executor.isFinished(), "the quiz thread is still running"
    if i18n.language() != "en":
        i18n.set_language("en")


def run_and_wait(qtbot, page) -> object:
    with qtbot.waitSignal(page.verdict_ready, timeout=RUN_TIMEOUT_MS) as blocker:
        assert page.run_check()
    return blocker.args[0]


def test_right_prediction_is_confirmed_by_the_real_run(qtbot, quiz) -> None:
    page = quiz.exercises
    page.select("print-in-jit")
    assert page.card.title.text() == "A print inside jit"
    assert "def print_in_jit" in page.card.code.toPlainText()
    page.card.set_prediction(2)
    assert page.busy.isHidden()
    with qtbot.waitSignal(page.verdict_ready, timeout=RUN_TIMEOUT_MS) as blocker:
        assert page.run_check()
        assert not page.busy.isHidden()  # the busy indicator while the run happens
        assert not page.run_button.isEnabled()
    verdict = blocker.args[0]
    assert verdict.correct and verdict.answer.value == 2
    assert page.verdict.verdict_word() == "right"
    assert page.verdict.headline.text() == "✓ Right."
    assert page.verdict.answer.text() == "The real run says: 2"
    assert "[trace]" in page.verdict.printed.text()  # the evidence: lines printed while tracing
    assert "first compile" in page.verdict.calls.text()
    assert page.verdict.explanation.text().startswith("print is Python")
    assert page.busy.isHidden() and page.run_button.isEnabled()
    # The list marks the exercise done (issue 42), and keeps the mark through a refill.
    assert page.item_for("print-in-jit").text(0) == "✓ A print inside jit"
    page.fill()
    assert page.item_for("print-in-jit").text(0).startswith("✓ ")
    assert not page.item_for("if-on-tracer").text(0).startswith(("✓", "✗"))


def test_wrong_prediction_shows_the_real_answer(qtbot, quiz) -> None:
    page = quiz.exercises
    page.select("if-on-tracer")
    page.card.set_prediction("none")
    verdict = run_and_wait(qtbot, page)
    assert not verdict.correct
    assert page.verdict.verdict_word() == "wrong"
    assert page.verdict.headline.text() == "✗ Not this time."
    assert "TracerBoolConversionError" in page.verdict.answer.text()
    assert "No error" in page.verdict.you.text()
    assert page.item_for("if-on-tracer").text(0).startswith("✗ ")  # done, not right


def test_choice_exercise_with_option_words(qtbot, quiz) -> None:
    page = quiz.exercises
    page.select("cond-both-branches")
    assert [b.text()[:2] for b in page.card.choice_buttons] == ["a)", "b)", "c)"]
    page.card.choice_buttons[1].click()  # both-traced: what JAX really does
    verdict = run_and_wait(qtbot, page)
    assert verdict.correct and page.verdict.verdict_word() == "right"
    assert "[runtime]" in page.verdict.printed.text()


def test_bad_input_says_why_and_runs_nothing(qtbot, quiz) -> None:
    page = quiz.exercises
    page.select("if-on-tracer")
    page.card.error.setEditText("not an error")
    assert not page.run_check()
    assert page.card.problem.isVisible()
    assert "is not an exception name" in page.card.problem.text()
    page.select("cond-both-branches")  # nothing chosen yet
    assert not page.run_check()
    assert page.card.problem.text() == "Pick one of the answers."
    assert page.runs == 0 and not quiz.runner.running and page.verdict.isHidden()


def test_scenario_link_emits_the_scenario_and_variant(qtbot, quiz) -> None:
    page = quiz.exercises
    page.select("static-tuple")
    page.card.set_prediction(2)
    run_and_wait(qtbot, page)
    with qtbot.waitSignal(quiz.scenario_requested, timeout=1000) as blocker:
        qtbot.mouseClick(page.verdict.open_button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["static-args", "fix"]


def test_show_exercises_of_a_scenario(quiz) -> None:
    quiz.show_exercises("error-debugging")
    assert quiz.tabs.currentWidget() is quiz.exercises
    assert quiz.exercises.exercise.scenario == "error-debugging"


def test_interview_round_score_and_review(qtbot, quiz) -> None:
    view = quiz.interview
    quiz.show_interview()
    interview = view.start_round(3, seed=11, seconds=600)
    assert view.pages.currentWidget() is view.question_page
    assert view.progress.text() == "Question 1 of 3 · score so far 0"
    for position in range(3):
        exercise = interview.current
        kind = str(exercise.kind)
        if position == 0:  # pass the first one: it must land on the review list
            with qtbot.waitSignal(view.verdict_ready, timeout=RUN_TIMEOUT_MS):
                qtbot.mouseClick(view.pass_button, Qt.MouseButton.LeftButton)
        else:
            value = 1 if kind == "number" else exercise.options[0].id
            view.card.set_prediction(value)
            with qtbot.waitSignal(view.verdict_ready, timeout=RUN_TIMEOUT_MS):
                qtbot.mouseClick(view.submit_button, Qt.MouseButton.LeftButton)
        assert view.next_button.isVisible()
        with qtbot.waitSignal(view.finished, timeout=1000, raising=False):
            view.next_question()
    assert interview.done
    assert view.pages.currentWidget() is view.end_page
    assert view.score.text() == f"Score: {interview.score} / 3"
    assert view.review_rows() == [r.exercise.id for r in interview.review()]
    assert interview.review()[0].verdict.prediction is None  # the pass
    assert [b.objectName() for b in view.scenario_buttons] == [
        f"interviewScenario_{s}" for s in interview.review_scenarios()
    ]
    with qtbot.waitSignal(quiz.scenario_requested, timeout=1000) as blocker:
        view.scenario_buttons[0].click()
    first = interview.review()[0].exercise
    assert blocker.args == [first.scenario, first.variant]


def test_interview_late_answer_scores_nothing(qtbot, quiz) -> None:
    view = quiz.interview
    interview = view.start_round(1, seed=3, seconds=0.05)
    qtbot.waitUntil(lambda: interview.remaining() < 0, timeout=2000)
    exercise = interview.current
    view.card.set_prediction(1 if str(exercise.kind) == "number" else exercise.options[0].id)
    with qtbot.waitSignal(view.verdict_ready, timeout=RUN_TIMEOUT_MS) as blocker:
        assert view.submit()
    assert blocker.args[0].timed_out
    assert view.verdict.verdict_word() == "late"
    view.next_question()
    assert view.score.text() == "Score: 0 / 1"


def test_switching_language_changes_labels(qtbot, quiz) -> None:
    page = quiz.exercises
    page.select("print-in-jit")
    assert quiz.tabs.tabText(0) == "Exercises"
    assert page.run_button.text() == "▶ Run it"
    i18n.set_language("zh")
    assert quiz.tabs.tabText(0) == "练习"
    assert quiz.tabs.tabText(1) == "面试"
    assert page.run_button.text() == "▶ 运行验证"
    assert page.card.answer_label.text() == "你的预测："
    assert page.card.title.text() == "jit 里的 print"  # lesson texts follow the language
    assert quiz.interview.start_button.text() == "开始这一轮 ▶"
    i18n.set_language("en")
    assert page.run_button.text() == "▶ Run it"
    assert page.card.title.text() == "A print inside jit"


def test_the_exercise_code_speaks_the_interface_language(qtbot, quiz) -> None:
    page = quiz.exercises
    page.select("leaked-tracer")
    english = page.card.code.toPlainText()
    assert "# stores what x is while tracing" in english
    i18n.set_language("zh")
    chinese = page.card.code.toPlainText()
    assert "# 把追踪时的 x 存起来" in chinese and "# 调用结束后再用存下的值" in chinese
    assert "stores what x is" not in chinese
    assert (
        chinese.replace("把追踪时的 x 存起来", "stores what x is while tracing").replace(
            "调用结束后再用存下的值", "use the stored value after the call"
        )
        == english
    )  # only the comments change, never the code
    i18n.set_language("en")
    assert page.card.code.toPlainText() == english


def test_closing_while_a_check_runs_ends_the_thread(qtbot, quiz) -> None:
    page = quiz.exercises
    page.select("shape-sequence")
    page.card.set_prediction(3)
    assert page.run_check()
    assert quiz.runner.running
    quiz.close()  # waits for the run in flight, then stops the thread
    assert quiz.runner.executor.isFinished()
    with pytest.raises(RuntimeError):
        quiz.runner.submit(lambda: None)
