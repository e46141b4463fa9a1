"""A long session holds a fixed amount of memory: the run model and the log keep the newest
records only (a ring with a cap), while every count and sum stays exact."""

from __future__ import annotations

from realrun import drive

from jitlab.gui.views.model import RunState
from jitlab.records.calls import CallKind, Summary

CAP = 300
LOG_CAP = 200
CALLS = 3000


def test_model_and_log_stay_bounded_and_counts_exact_over_thousands_of_real_calls(qtbot) -> None:
    from jitlab.gui.app import application
    from jitlab.gui.views.log_view import LogView

    application()
    state = RunState(cap=CAP)
    log = LogView()
    qtbot.addWidget(log)
    log.model.set_cap(LOG_CAP)
    log.bind(state)
    log.show()
    peak = {"model": 0, "log": 0, "texts": 0}

    def frame() -> None:
        log.flush()
        log.table.viewport().repaint()  # the table asks for (and caches) the visible texts
        peak["model"] = max(peak["model"], state.records.kept, state.segments[-1].records.kept)
        peak["log"] = max(peak["log"], len(log.model.records))
        peak["texts"] = max(peak["texts"], len(log.model._texts))

    new_shapes = {400: 16, 1300: 24, 2200: 32, 2950: 48}
    sizes = [new_shapes.get(i, 8) for i in range(CALLS)]
    made = drive(state, sizes, frame=100, after_frame=frame)

    assert len(made) == CALLS
    assert 0 < peak["model"] <= CAP and 0 < peak["log"] <= LOG_CAP
    assert peak["texts"] <= LOG_CAP
    # the exact counts, whatever was dropped
    assert len(state.records) == state.calls == CALLS
    assert state.summary() == Summary.of(made)
    assert state.segment_summary() == Summary.of(made)
    assert state.segment_summary().recompiles == len(new_shapes)
    assert state.latest("pitfall").calls == len(state.latest("pitfall").records) == CALLS
    assert log.model.total == CALLS
    # the newest records are the ones kept, addressed by their position in the run
    assert state.records[-1] is made[-1] and state.records[CALLS - 1] is made[-1]
    assert list(state.records)[-5:] == made[-5:]
    assert state.records[-50:] == made[-50:]
    assert state.records.get(0) is None
    assert log.model.records[-1] is made[-1]
    assert [r.index for r in log.visible_rows()][-1] == made[-1].index
    kinds = [r.kind for r in log.model.records]
    assert CallKind.CACHE_HIT in kinds


def test_the_cap_comes_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("JITLAB_RECORD_CAP", "123")
    state = RunState()
    assert state.cap == state.records.cap == state.segments[-1].records.cap == 123
