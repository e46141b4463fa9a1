"""Views follow the run model on their own: no main window feeds them."""

from __future__ import annotations

from jitlab.gui.views.model import RunState
from jitlab.records.calls import CallKind as K


def _run(state: RunState, scenario: str, *values: dict) -> None:
    from jitlab.lab.discovery import scenarios
    from jitlab.lab.engine import Run

    run = Run(scenarios()[scenario], "pitfall", listener=state.apply)
    for params in values:
        run.step(params)


def test_a_view_needs_only_the_model(qtbot) -> None:
    from jitlab.gui.lesson.error_view import ErrorView
    from jitlab.gui.lesson.output_view import OutputView
    from jitlab.gui.views.chart import ChartView
    from jitlab.gui.views.kitchen import KitchenPanel
    from jitlab.gui.views.log_view import LogView

    state = RunState()
    chart, log, output, error = ChartView(), LogView(), OutputView(), ErrorView()
    kitchen = KitchenPanel(state)
    for view in (chart, log, output, error):
        view.bind(state)
    for widget in (chart, log, output, error, kitchen):
        qtbot.addWidget(widget)
    state.clear("side-effects", "pitfall")
    _run(state, "side-effects", {}, {})
    state.notify()
    qtbot.waitUntil(lambda: chart.point_count() == 2 and len(log.model.records) == 2)
    assert chart.kinds_shown() == [K.COMPILE, K.CACHE_HIT]
    qtbot.waitUntil(lambda: "trace" in output.toPlainText())  # the trace-time print
    assert kitchen.values["calls"].text() == "2"
    state.failed("Traceback: the worker tripped")
    state.notify()
    assert "the worker tripped" in error.toPlainText()
    # A new scenario: every view forgets the old run when it is told.
    state.clear("error-debugging", "pitfall")
    state.notify()
    qtbot.waitUntil(lambda: chart.point_count() == 0)
    assert log.model.records == [] and output.toPlainText() == "" and error.toPlainText() == ""
    assert kitchen.values["calls"].text() == "0"
    _run(state, "error-debugging", {})
    state.notify()
    assert "TracerBoolConversionError" in error.toPlainText()


def test_a_new_view_is_one_subscription(qtbot) -> None:
    from jitlab.gui.views.model import Change

    state = RunState()
    seen: list[int] = []

    def count(change: Change) -> None:
        seen.extend(s.position for s in change.served)

    state.subscribe(count)
    _run(state, "dynamic-shapes", {"batch_size": 8}, {"batch_size": 16})
    state.notify()
    assert seen == [0, 1]
    state.unsubscribe(count)
    _run(state, "dynamic-shapes", {"batch_size": 8})
    state.notify()
    assert seen == [0, 1]


def test_autoplay_beats_play_the_pitfall_then_the_fix() -> None:
    from jitlab.gui.lesson.autoplay import beats
    from jitlab.lab.spec import AutoplayStep, Scenario, Text

    class Demo(Scenario):
        autoplay = (
            AutoplayStep({"n": 2}, note=Text("two", "二")),
            AutoplayStep({"n": 3}, variant="fix"),
        )

    # The first beat of each variant switches to it; a beat for one variant plays only there.
    assert beats(Demo, "en") == [
        ("pitfall", {"n": 2}, "two"),
        ("fix", {"n": 2}, "two"),
        ("", {"n": 3}, ""),
    ]
    assert beats(Demo, "zh")[1] == ("fix", {"n": 2}, "二")

    class Silent(Scenario):
        pass

    assert beats(Silent, "en") == [("pitfall", {}, ""), ("fix", {}, "")]
