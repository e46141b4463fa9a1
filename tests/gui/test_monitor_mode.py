"""Monitor mode has a job of its own: the signature ledger of this run (what changed,
highlighted) and a phase timeline of the last compiles, both following the run model."""

from __future__ import annotations

from guihelp import SQUARE, slide, wait_calls, write_scenarios

from jitlab.gui.views.model import RunState
from jitlab.records.calls import CallKind, CallRecord, LeafSpec, Signature

K = CallKind


def test_monitor_shows_the_ledger_and_the_phase_times_of_this_runs_compiles(qtbot, window) -> None:
    window.set_mode("execute")
    window.run_controls.step.click()  # batch 8, the default
    wait_calls(qtbot, window, 1)
    for n, value in enumerate((16, 8, 32), start=2):
        slide(window, "batch_size", value)
        wait_calls(qtbot, window, n)
    records = list(window.state.records)
    assert [r.kind for r in records] == [K.COMPILE, K.RECOMPILE, K.CACHE_HIT, K.RECOMPILE]

    window.set_mode("monitor")
    monitor = window.monitor
    assert monitor.isVisible() and not window.kitchen.isVisible()
    assert window.chart.isVisible() and window.briefing.question.isVisible()
    assert window.params.widgets["batch_size"].isVisible()  # the slider stays at hand
    qtbot.waitUntil(lambda: len(monitor.ledger_rows()) == 3)
    headers = monitor.ledger.headers()
    rows = monitor.ledger_rows()
    assert [row[0] for row in rows] == ["0", "1", "3"]  # the calls that compiled
    assert [row[1] for row in rows] == ["first compile", "recompile", "recompile"]
    # What changed is highlighted, and its column comes first after the fixed ones.
    highlighted = monitor.ledger.highlighted()
    assert highlighted[0] == []
    assert highlighted[1] and highlighted[2]
    changed = headers[2]
    assert changed in highlighted[1] and changed in highlighted[2]
    column = headers.index(changed)
    assert "16" in rows[1][column] and "32" in rows[2][column]
    assert "8" in rows[0][column]
    # The timeline: one bar per compile, the records' own phase times.
    bars = monitor.timeline.bars()
    assert bars == [
        (r.index, r.kind.value, r.trace_ms, r.lower_ms, r.compile_ms)
        for r in records
        if r.kind.compiled
    ]
    assert all(trace > 0 and compile_ms > 0 for _, _, trace, _, compile_ms in bars)
    # A call made while monitoring shows up without leaving the mode.
    slide(window, "batch_size", 64)
    wait_calls(qtbot, window, 5)
    qtbot.waitUntil(lambda: len(monitor.ledger_rows()) == 4)
    assert monitor.timeline.bars()[-1][0] == 4
    # A reset starts a new run: the lesson's runs are kept, each row says which run made it,
    # and the new run's first compile is compared with nothing (its card holder was empty).
    window.reset()
    slide(window, "batch_size", 8)
    qtbot.waitUntil(
        lambda: [row[0] for row in monitor.ledger_rows()] == ["0", "1", "3", "4", "5"],
        timeout=60_000,
    )
    headers = monitor.ledger.headers()
    assert headers[-2:] == ["run", "what changed"]  # after the signature's columns
    runs = [row[-2] for row in monitor.ledger_rows()]
    assert runs[0] == runs[3] and runs[4] != runs[3] and "caches cleared" in runs[4]
    assert monitor.ledger.highlighted()[4] == []
    assert [b[0] for b in monitor.timeline.bars()] == [0, 1, 3, 4, 5]
    window.set_mode("execute")
    assert window.kitchen.isVisible() and not monitor.isVisible()


def _compile(index: int, n: int, kind: CallKind = K.RECOMPILE, fn: str = "f") -> CallRecord:
    leaf = LeafSpec(path="x", shape=(n,), dtype="float32", weak_type=False)
    return CallRecord(
        index,
        fn,
        kind,
        10.0 + n,
        trace_ms=1.0 * n,
        lower_ms=0.5,
        compile_ms=2.0 * n,
        signature=Signature(leaves=(leaf,), statics=(), tree="PyTreeDef((*,))"),
        card=index,
    )


def test_the_monitor_follows_the_run_model_it_subscribed_to(qtbot) -> None:
    """No window, no drain(): a model told of calls is all the view needs."""
    from jitlab.gui.lesson.monitor_view import MonitorView

    state = RunState()
    view = MonitorView(state)
    qtbot.addWidget(view)
    view.resize(900, 400)
    view.show()
    state.call_finished(_compile(0, 4, K.COMPILE))
    state.call_finished(CallRecord(1, "f", K.CACHE_HIT, 0.1, card=0))
    state.call_finished(_compile(2, 8))
    state.notify()
    qtbot.waitUntil(lambda: len(view.ledger_rows()) == 2)
    assert view.ledger.highlighted()[1] == ["x"]
    assert [b[0] for b in view.timeline.bars()] == [0, 2]
    assert view.timeline.bars()[1] == (2, "recompile", 8.0, 0.5, 16.0)
    assert not view.function.isVisible()  # one function: nothing to pick
    # A second function: the ledger follows the newest compile, and a picker appears.
    state.call_finished(_compile(3, 2, K.COMPILE, fn="g"))
    state.notify()
    qtbot.waitUntil(lambda: view.shown_function() == "g" and len(view.ledger_rows()) == 1)
    assert view.function.isVisible()
    view.function.setCurrentIndex(0)
    view.function.activated.emit(0)
    assert view.shown_function() == "f" and len(view.ledger_rows()) == 2
    # A variant switch (new segment) keeps the lesson's runs: the fix's rows come after the
    # pitfall's, in a run column, its first compile highlighted nowhere. A new scenario
    # (cleared) empties both panes.
    view.picked = None
    state.new_segment("fix")
    state.call_finished(_compile(4, 16, K.COMPILE))
    state.notify()
    qtbot.waitUntil(lambda: [row[0] for row in view.ledger_rows()] == ["0", "2", "4"])
    assert view.ledger.headers()[-2] == "run"
    assert [row[-2] for row in view.ledger_rows()] == ["pitfall", "pitfall", "fix"]
    assert view.ledger.highlighted() == [[], ["x"], []]
    assert [b[0] for b in view.timeline.bars()] == [0, 2, 3, 4]
    state.clear("other")
    state.notify()
    qtbot.waitUntil(lambda: view.ledger_rows() == [] and view.timeline.bars() == [])


def test_the_timeline_text_is_readable(qtbot) -> None:
    from jitlab.gui.lesson.monitor_view import MIN_TEXT_PX, PhaseTimeline

    timeline = PhaseTimeline()
    qtbot.addWidget(timeline)
    assert timeline.font().pixelSize() >= MIN_TEXT_PX >= 11


def test_autoplay_visits_every_mode_it_keeps(qtbot, make_window, tmp_path) -> None:
    folder = write_scenarios(tmp_path / "plugins", square=SQUARE)
    window = make_window(scenarios_dir=folder, scenario="square")
    seen: list[tuple[str, str, int]] = []  # (mode, variant of the run, ledger rows then)
    original = window.set_mode

    def spy(mode: str) -> None:
        seen.append((mode, window.state.variant, len(window.monitor.compiles.get("square", ()))))
        original(mode)

    window.set_mode = spy  # the demo drives the window as a user would
    window.start_autoplay()
    qtbot.waitUntil(lambda: window.mode == "complete" and not window.autoplay.beats, timeout=60_000)
    modes = [m for m, _, _ in seen]
    first = list(dict.fromkeys(modes))
    assert first == ["start", "execute", "monitor", "complete"]
    # Monitor comes after the pitfall's calls, with their compiles in the ledger, then the fix.
    at = modes.index("monitor")
    assert seen[at][1] == "pitfall" and seen[at][2] == 2  # n=2 compiled, then n=3 recompiled
    assert "execute" in modes[at + 1 :]
    assert [r.params["n"] for r in window.state.latest("fix").records] == [2, 2, 3]
