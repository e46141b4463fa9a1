"""The engine's event stream: every event names the call it belongs to."""

from jitlab.lab.discovery import scenarios
from jitlab.lab.engine import CallFinished, CallStarted, PhaseEnded, Run


def test_events_carry_the_index_of_the_call_in_flight():
    events = []
    run = Run(scenarios()["dynamic-shapes"], "pitfall", listener=events.append)
    for n in (2, 3, 3):
        run.step({"batch_size": n, "depth": 1})
    summary = [
        (type(e).__name__, e.index if not isinstance(e, CallFinished) else e.record.index)
        for e in events
    ]
    started = [i for name, i in summary if name == "CallStarted"]
    assert started == [0, 1, 2]
    phases = [(e.index, e.phase) for e in events if isinstance(e, PhaseEnded)]
    assert [i for i, _ in phases] == [0, 0, 0, 1, 1, 1]  # call 2 is a hit: no phases
    assert [p for _, p in phases[:3]] == ["trace", "lower", "compile"]
    # Phase events arrive between their call's start and finish.
    first_finish = next(i for i, e in enumerate(events) if isinstance(e, CallFinished))
    assert all(isinstance(e, CallStarted | PhaseEnded) for e in events[:first_finish])
