"""The latency chart is right from the first call: whole call numbers, a hint while empty,
a marker for every compile however many calls came after, log labels that never pile up or
vanish. Real engine runs feed a real run model; the axes are read as pyqtgraph draws them."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QImage, QPainter
from realrun import drive

from jitlab.gui.views.model import RunState
from jitlab.records.calls import CallKind, CallRecord


def _chart(qtbot, state: RunState | None = None):
    from jitlab.gui.app import application
    from jitlab.gui.views.chart import ChartView

    application()
    chart = ChartView()
    qtbot.addWidget(chart)
    chart.resize(1000, 420)
    chart.show()
    qtbot.waitExposed(chart)
    if state is not None:
        chart.bind(state)
    return chart


def _labels(axis) -> list[tuple[object, str]]:
    """The (rect, text) of every label the axis would draw now."""
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _, _, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(rect, text) for rect, _, text in texts]


def _whole_numbers(chart) -> list[str]:
    axis = chart.plot.getPlotItem().getAxis("bottom")
    texts = [text for _, text in _labels(axis)]
    assert texts, "the call axis has no labels"
    for text in texts:
        assert text.lstrip("-").isdigit(), f"call axis label {text!r} is not a whole number"
    assert "0.001" not in axis.labelString() and "x" not in axis.labelString().split()[-1]
    return texts


def test_an_empty_chart_shows_whole_call_numbers_and_says_what_to_do(qtbot) -> None:
    chart = _chart(qtbot)
    texts = _whole_numbers(chart)
    assert not any(t.startswith("0.") for t in texts)
    assert chart.empty_hint.isVisible()
    assert chart.empty_hint.text() == "Move a slider on the left or press Step"
    hint = chart.empty_hint.geometry()
    assert chart.plot.rect().contains(hint.center())  # over the plot, not off in a corner


def test_the_hint_is_in_chinese_too(qtbot) -> None:
    from jitlab.gui import i18n

    chart = _chart(qtbot)
    try:
        assert i18n.set_language("zh")
        qtbot.waitUntil(
            lambda: chart.empty_hint.text() != "Move a slider on the left or press Step"
        )
        assert "单步" in chart.empty_hint.text() and "滑块" in chart.empty_hint.text()
    finally:
        i18n.set_language("en")
    qtbot.waitUntil(lambda: chart.empty_hint.text() == "Move a slider on the left or press Step")


def test_after_one_real_call_the_axis_counts_whole_calls_and_the_hint_goes(qtbot) -> None:
    state = RunState()
    chart = _chart(qtbot, state)
    drive(state, [8])
    qtbot.waitUntil(lambda: chart.point_count() == 1)
    _whole_numbers(chart)
    (x0, x1), _ = chart.plot.getPlotItem().vb.viewRange()
    assert x0 <= 0 < 1 <= x1 <= 20
    assert not chart.empty_hint.isVisible()
    state.clear("dynamic-shapes")  # a new scenario: empty again, the hint back
    state.notify()
    qtbot.waitUntil(lambda: chart.point_count() == 0)
    assert chart.empty_hint.isVisible()
    _whole_numbers(chart)


RECOMPILE_AT = {600: 16, 1700: 24, 2900: 32, 4100: 48, 4990: 64}


def test_every_recompile_keeps_its_marker_after_5000_real_calls(qtbot) -> None:
    state = RunState()
    chart = _chart(qtbot, state)
    sizes = [RECOMPILE_AT.get(i, 8) for i in range(5000)]
    made = drive(state, sizes, frame=250, after_frame=chart.refresh)
    qtbot.waitUntil(lambda: chart.point_count() == 5000)
    chart.refresh()
    compiled = {
        kind: [r.index for r in made if r.kind is kind]
        for kind in KIND_KEPT
        if any(r.kind is kind for r in made)
    }
    assert len(compiled[CallKind.RECOMPILE]) == len(RECOMPILE_AT)
    for kind, indexes in compiled.items():
        marked = chart.points[(kind, False)]
        assert marked.isVisible()
        assert sorted(int(x) for x in marked.getData()[0]) == indexes, kind
    hits = chart.points[(CallKind.CACHE_HIT, False)].getData()[0]
    assert 0 < hits.size <= chart.SYMBOL_TAIL  # only cache hits are thinned


KIND_KEPT = (CallKind.COMPILE, CallKind.RECOMPILE, CallKind.PERSISTENT_HIT, CallKind.ERROR)


def test_errors_and_persistent_hits_keep_their_markers_among_many_hits(qtbot) -> None:
    chart = _chart(qtbot)
    special = {3: CallKind.COMPILE, 1200: CallKind.PERSISTENT_HIT, 2500: CallKind.ERROR}
    for i in range(4000):
        kind = special.get(i, CallKind.CACHE_HIT)
        chart.add(CallRecord(i, "f", kind, 5.0 if i in special else 0.05), 0, "pitfall", i)
    chart.refresh()
    for i, kind in special.items():
        assert list(chart.points[(kind, False)].getData()[0]) == [i]


def _left_labels(chart, lo_ms: float, hi_ms: float, height: int) -> list[tuple[object, str]]:
    chart.resize(900, height)
    qtbot_wait_layout(chart)
    chart.follow = False
    vb = chart.plot.getPlotItem().vb
    vb.setYRange(np.log10(lo_ms), np.log10(hi_ms), padding=0)
    return _labels(chart.plot.getPlotItem().getAxis("left"))


def qtbot_wait_layout(chart) -> None:
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()


@pytest.mark.parametrize(
    ("lo_ms", "hi_ms"),
    [
        (0.01, 0.1),
        (0.1, 1000.0),
        (0.0001, 100_000.0),  # nine decades
        (2.0, 2.0),  # a single value
        (3.1, 3.3),  # a sliver between 1-2-5 steps
        (0.04, 0.06),
        (0.5, 4.0),
    ],
)
@pytest.mark.parametrize("height", [420, 200])
def test_log_axis_labels_never_pile_up_or_vanish(qtbot, lo_ms, hi_ms, height) -> None:
    chart = _chart(qtbot)
    if lo_ms == hi_ms:  # a chart whose calls all took the same time
        for i in range(3):
            chart.add(CallRecord(i, "f", CallKind.CACHE_HIT, lo_ms), 0, "pitfall", i)
        chart.refresh()
        chart.resize(900, height)
        qtbot_wait_layout(chart)
        labels = _labels(chart.plot.getPlotItem().getAxis("left"))
    else:
        labels = _left_labels(chart, lo_ms, hi_ms, height)
    texts = [text for _, text in labels]
    assert len(labels) >= 2, f"{lo_ms}…{hi_ms} ms: labels {texts}"
    assert len(set(texts)) == len(texts), f"repeated labels {texts}"
    rects = [rect for rect, _ in labels]
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            assert not a.intersects(b), f"{lo_ms}…{hi_ms} ms at {height}px: {texts} overlap"
    for text in texts:
        value = float(text)  # plain numbers, no 10⁻² or ×0.001
        if lo_ms != hi_ms:
            assert lo_ms * 0.999 <= value <= hi_ms * 1.001
