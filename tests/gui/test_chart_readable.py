"""The latency chart stays readable (issue 42): the call in flight is marked where its point
will be; the fix's markers are the legend's ▲; run names sit above the points; the failed
calls' names never overlap; a short log axis is labelled with round values only."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication

from jitlab.gui.views.model import RunState
from jitlab.records.calls import CallKind, CallRecord, ErrorInfo


def _chart(qtbot, state: RunState | None = None, height: int = 420):
    from jitlab.gui.app import application
    from jitlab.gui.views.chart import ChartView

    application()
    chart = ChartView()
    qtbot.addWidget(chart)
    chart.resize(900, height)
    chart.show()
    qtbot.waitExposed(chart)
    if state is not None:
        chart.bind(state)
    return chart


def test_the_call_in_flight_is_marked_and_its_point_takes_the_place(qtbot) -> None:
    state = RunState()
    chart = _chart(qtbot, state)
    state.call_started(0, {})
    state.notify()
    qtbot.waitUntil(lambda: chart.pending_call() == 0)
    assert chart.pending.isVisible() and chart.pending_label.isVisible()
    assert not chart.empty_hint.isVisible()  # the mark is the news, not "press Step"
    (x0, x1), _ = chart.plot.getPlotItem().vb.viewRange()
    assert x0 <= 0 <= x1
    state.call_finished(CallRecord(0, "f", CallKind.COMPILE, 6000.0, card=0))
    state.notify()
    qtbot.waitUntil(lambda: chart.pending_call() is None and chart.latency_calls() == [0])
    assert not chart.pending.isVisible()
    # The next call in flight is marked at its own number, after the point.
    state.call_started(1, {})
    state.notify()
    qtbot.waitUntil(lambda: chart.pending_call() == 1)
    assert list(chart.pending.getData()[0]) == [1.0]


def test_the_fix_is_drawn_with_the_legends_triangle(qtbot) -> None:
    from jitlab.gui.views.chart import FIX, PITFALL

    chart = _chart(qtbot)
    legend = " ".join(chart.legend_entries())
    assert "▲" in legend and "▼" not in legend
    # pyqtgraph's "t1" is its triangle pointing up (its plain "t" points down: ▼).
    for kind in (CallKind.COMPILE, CallKind.RECOMPILE, CallKind.CACHE_HIT):
        assert chart.points[(kind, FIX)].opts["symbol"] == "t1"
        assert chart.points[(kind, PITFALL)].opts["symbol"] == "o"


def test_run_names_sit_above_the_points(qtbot) -> None:
    chart = _chart(qtbot)
    latencies = [1000.0, 0.05, 0.05, 400.0, 0.05, 3.0]
    for i, ms in enumerate(latencies):
        segment, variant = (0, "pitfall") if i < 3 else (1, "fix")
        kind = CallKind.COMPILE if ms > 1 else CallKind.CACHE_HIT
        chart.add(CallRecord(i, "f", kind, ms, variant=variant), segment, variant, i)
    chart.refresh()
    assert len(chart.run_starts()) == 2
    _, (lo, hi) = chart.plot.getPlotItem().vb.viewRange()
    highest = math.log10(max(latencies))
    room = 0.8  # the points keep to the lower 80 % of the plot…
    assert (highest - lo) / (hi - lo) <= room
    # …and the run names sit in the band above them.
    for line in chart._run_lines:
        assert line.label.orthoPos > room


def test_the_failed_calls_names_never_overlap(qtbot) -> None:
    chart = _chart(qtbot)
    names = ["TracerBoolConversionError", "ConcretizationTypeError", "TypeError", "ValueError"]
    for i, name in enumerate(names):
        record = CallRecord(i, "f", CallKind.ERROR, 0.05, error=ErrorInfo(name, "…"))
        chart.add(record, 0, "pitfall", i)
    chart.refresh()
    QApplication.processEvents()
    chart._errors_key = ()  # placed again at the laid-out width
    chart._dirty = True
    chart.refresh()
    labels = chart._error_labels
    assert labels, "no error named at all"
    rects = [label.sceneBoundingRect() for label in labels]
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            assert not a.intersects(b), [label.toPlainText() for label in labels]
    # A name never covers a mark: the marks sit on a line of their own below the names.
    erow = chart.error_plot.getPlotItem().vb
    mark_top = erow.mapViewToScene(QPointF(0.0, 0.0)).y() - 6  # its ✕ is 11 px
    for rect in rects:
        assert rect.bottom() <= mark_top, rect


@pytest.mark.parametrize("height", [90, 130, 200])
def test_a_short_log_axis_is_labelled_with_round_values(qtbot, height) -> None:
    chart = _chart(qtbot)
    chart.resize(900, height)
    QApplication.processEvents()
    chart.follow = False
    chart.plot.getPlotItem().vb.setYRange(np.log10(141.3), np.log10(2239.0), padding=0)
    axis = chart.plot.getPlotItem().getAxis("left")
    levels = axis.tickValues(math.log10(141.3), math.log10(2239.0), axis.height())
    labelled = levels[0][1]
    texts = axis.tickStrings(labelled, 1.0, 1.0)
    assert len(texts) >= 2, texts
    for text in texts:
        mantissa = float(text) / 10 ** math.floor(math.log10(float(text)))
        assert round(mantissa, 6) in (1.0, 2.0, 5.0), texts
