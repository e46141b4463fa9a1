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


RAISES = """
from jitlab.lab.scenario import Lesson, Param, Pitfall, Scenario, Text, Variant

T = Text("x", "x")


def rate(values):
    return 1 / values["n"]


class Raises(Scenario):
    id = "raises"
    pitfall = Pitfall.SIDE_EFFECTS
    title = T
    question = T
    lesson = Lesson(T, T, T, T)
    params = (Param("n", 1, T, T, minimum=0, maximum=4),)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))

    def setup(self, lab, variant):
        if variant == "pitfall":
            raise LookupError("no such table")
        probe = lab.probe(lambda x: x + 1)

        def step(values):
            return probe(rate(values))

        return step
"""


def test_a_scenarios_own_exception_names_its_file_and_line(tmp_path) -> None:
    """Issue 55: setup or step raising is the scenario's exception, said with its line."""
    from jitlab.lab.discovery import load_file
    from jitlab.lab.raised import Raised

    path = tmp_path / "raises.py"
    path.write_text(RAISES, encoding="utf-8")
    (entry,) = load_file(path)
    assert entry.scenario is not None, entry.error
    record = Run(entry.scenario, "pitfall").step()
    assert record.error is not None and record.error.type == "LookupError"
    raised = Raised.from_json(record.notes["scenario_error"])
    assert raised is not None and raised.during == "setup"
    assert raised.place.endswith("raises.py:22") and raised.function == "setup"  # its line
    assert raised.code == 'raise LookupError("no such table")'
    # In the step, outside any probed call: the innermost line of the scenario's own file.
    record = Run(entry.scenario, "fix").step({"n": 0})
    raised = Raised.from_json(record.notes["scenario_error"])
    assert raised is not None and raised.during == "step"
    assert (raised.function, raised.code) == ("rate", 'return 1 / values["n"]')
    # A call that goes well carries no such note.
    assert "scenario_error" not in (Run(entry.scenario, "fix").step({"n": 2}).notes or {})
