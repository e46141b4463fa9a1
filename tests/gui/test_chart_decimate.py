"""The chart's lines: every call handed to pyqtgraph, drawn as its peak (min/max) envelope,
every compile spike kept; the markers are never downsampled."""

from __future__ import annotations

import numpy as np

from jitlab.records.calls import CallKind, CallRecord

CALLS = 20_000
SPIKE_AT, SPIKE_MS = 12_345, 500.0
RECOMPILES = (CALLS - 200, CALLS - 199)  # two new shapes in a row, among the newest calls


def _chart(qtbot):
    from jitlab.gui.app import application
    from jitlab.gui.views.chart import ChartView

    application()
    chart = ChartView()
    qtbot.addWidget(chart)
    chart.resize(1200, 500)
    chart.show()
    qtbot.waitExposed(chart)
    rng = np.random.default_rng(0)
    for i in range(CALLS):
        kind, ms = CallKind.CACHE_HIT, float(rng.uniform(0.04, 0.06))
        if i == 0:
            kind, ms = CallKind.COMPILE, 80.0
        elif i == SPIKE_AT:
            ms = SPIKE_MS  # a slow hit in the middle of the stream
        elif i in RECOMPILES:
            kind, ms = CallKind.RECOMPILE, 60.0
        chart.add(CallRecord(i, "f", kind, ms), segment=0, variant="pitfall", pos=i)
    chart.refresh()
    qtbot.wait(0)
    return chart


def test_the_line_gets_every_call_and_pyqtgraph_draws_a_peak_envelope(qtbot) -> None:
    chart = _chart(qtbot)
    line = chart.lines[False]
    x, _ = line.getOriginalDataset()
    assert x.size == CALLS  # no hand-made decimation before pyqtgraph
    shown_x, shown_y = line.getData()  # what pyqtgraph draws (log10 of the latency)
    assert shown_x.size <= 4 * chart.plot.width()  # downsampled, about two points per pixel
    assert np.isclose(shown_y.max(), np.log10(SPIKE_MS))  # the spike survives


def test_recompile_markers_are_drawn_in_a_wide_view(qtbot) -> None:
    chart = _chart(qtbot)
    recompiles = chart.points[(CallKind.RECOMPILE, False)]
    assert recompiles.isVisible()
    assert list(recompiles.getData()[0]) == list(RECOMPILES)  # not merged into a peak pair
    hits = chart.points[(CallKind.CACHE_HIT, False)]
    assert hits.getData()[0].size == chart.SYMBOL_TAIL - 2  # one marker per newest call


def test_log_axis_labels_decades_only(qtbot) -> None:
    from jitlab.gui.app import application
    from jitlab.gui.views.chart import DecadeAxis

    application()
    axis = DecadeAxis("left")
    levels = axis.logTickValues(-0.3, 1.8, 300, [])
    assert levels[0] == (1.0, [0.0, 1.0])  # 1 ms and 10 ms get text
    assert len(levels[1][1]) > 5  # the 2…9 marks stay, unlabelled (maxTextLevel 0)
    assert axis.style["maxTextLevel"] == 0
