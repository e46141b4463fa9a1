"""The run-state model is plain Python: fed by a real engine run, no Qt involved."""

from __future__ import annotations

import subprocess
import sys

import pytest

from jitlab.gui.views.model import Phase, RunState
from jitlab.records.calls import CallKind

pytestmark = pytest.mark.slow


def test_model_imports_no_qt() -> None:
    code = (
        "import sys, jitlab.gui.views.model;"
        "print(any(m.startswith('PySide6') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_model_follows_a_real_run() -> None:
    from jitlab.lab.discovery import scenarios
    from jitlab.lab.engine import CallFinished, CallStarted, PhaseEnded, Run

    state = RunState()
    phases: list[Phase] = []

    def listen(event: object) -> None:
        if isinstance(event, CallStarted):
            state.call_started(event.index, event.params)
        elif isinstance(event, PhaseEnded):
            state.phase_ended(event.index, event.phase, event.ms)
        elif isinstance(event, CallFinished):
            state.call_finished(event.record)
        phases.append(state.phase)

    run = Run(scenarios()["dynamic-shapes"], "pitfall", listener=listen)
    state.clear("dynamic-shapes", "pitfall")
    for n in (8, 8, 16):
        run.step({"batch_size": n})
    assert [r.kind for r in state.records] == [
        CallKind.COMPILE,
        CallKind.CACHE_HIT,
        CallKind.RECOMPILE,
    ]
    assert Phase.WRITING in phases and Phase.COOKING in phases  # compile phases were seen
    assert [c.number for c in state.cards.values()] == [1, 2]
    assert state.cards[state.pulled].number == 2
    summary = state.segment_summary()
    assert (summary.calls, summary.compiles, summary.recompiles, summary.cache_hits) == (3, 1, 1, 1)
    assert summary == run.summary()
    # the recompile's reason in English words (what changed: the batch of 16 for one of 8)
    assert "16" in state.last_reason and " ← " in state.last_reason
    state.new_segment("fix")
    assert state.cards == {} and state.segment_summary().calls == 0
    assert state.latest("pitfall").summary() == summary


def test_views_are_told_once_per_notify_what_changed() -> None:
    from jitlab.gui.views.model import Change
    from jitlab.lab.discovery import scenarios
    from jitlab.lab.engine import Run

    state = RunState()
    told: list[Change] = []
    state.subscribe(told.append)
    state.clear("dynamic-shapes", "pitfall")
    run = Run(scenarios()["dynamic-shapes"], "pitfall", listener=state.apply)
    run.step({"batch_size": 8})
    run.step({"batch_size": 8})
    assert state.dirty
    first = state.notify()
    assert told == [first] and first.cleared and not state.dirty
    assert [(s.segment, s.position) for s in first.served] == [(0, 0), (0, 1)]
    assert [s.record for s in first.served] == state.records
    state.new_segment("fix")
    run.step({"batch_size": 16})
    state.failed("Traceback: boom")
    second = state.notify()
    assert not second.cleared and second.new_segment and second.failure == "Traceback: boom"
    assert [(s.segment, s.position, s.record.kind) for s in second.served] == [
        (1, 2, CallKind.RECOMPILE)
    ]
    assert state.notify() == Change()  # nothing new: an empty change
    state.clear("dynamic-shapes", "pitfall")
    assert state.notify().cleared
