"""The shape histogram with few and with hundreds of sizes: the bars, bands, labels and buckets
it shows, items reused from one function to the next, and ``suggest_buckets`` giving
``suggest_buckets``'s answer (the fast one the histogram uses)."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pyqtgraph as pg
import pytest

from jitlab.gui.views.shape_histogram import ShapeHistogram
from jitlab.recordings.buckets import suggest_buckets
from jitlab.recordings.ledger import default_compiles, padding
from jitlab.records.calls import LeafSpec, Signature


def signatures(sizes: list[int]) -> list[Signature]:
    return [
        Signature(
            (LeafSpec("x", (n, 128), "float32", False), LeafSpec("y", (n,), "int32", False)),
            (),
            "((*, *), {})",
        )
        for n in sizes
    ]


@pytest.fixture
def histogram(qtbot) -> ShapeHistogram:
    widget = ShapeHistogram()
    qtbot.addWidget(widget)
    widget.resize(1100, 420)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def bars(widget: ShapeHistogram) -> tuple[dict[float, float], set[float]]:
    """Bar centre → height over both bar items, and the centres drawn as bucket sizes."""
    shown: dict[float, float] = {}
    buckets: set[float] = set()
    for item, is_bucket in zip(widget._bars, (False, True), strict=True):
        x0, x1 = item.opts["x0"], item.opts["x1"]
        for left, height in zip(x0, item.opts["height"], strict=True):
            shown[float(left)] = float(height)
        assert np.all(x1 > x0)
        if is_bucket:
            buckets.update(float(left) for left in x0)
    return shown, buckets


def visible_labels(widget: ShapeHistogram) -> list[pg.TextItem]:
    return [t for t in widget._labels if t.isVisible()]


def plot_items(widget: ShapeHistogram) -> int:
    return len(widget.plot.getPlotItem().items)


def test_many_sizes_bars_buckets_and_labels(histogram: ShapeHistogram) -> None:
    rng = random.Random(3)
    sizes = rng.sample(range(1, 4097), 500)
    repeated = sizes[:7]  # compiled twice each (say another dtype): bars of height 2
    histogram.set_signatures("step", signatures(sizes + repeated))
    distinct = sorted(sizes)
    expected = {n: (2 if n in repeated else 1) for n in distinct}
    assert histogram.observed() == expected
    assert histogram.compiles.value() == default_compiles(500) == 8  # a few, to start with
    assert histogram.buckets == suggest_buckets(distinct, 8)
    histogram.compiles.setValue(167)  # a third of the sizes: bars and labels crowd
    assert histogram.buckets == suggest_buckets(distinct, 167)
    # One bar per size, the bucket sizes in the bucket colour; each bar cut where the next
    # begins (500 sizes over 4096: the widest bars would overlap).
    shown, bucket_bars = bars(histogram)
    assert len(shown) == 500 and len(bucket_bars) == 167
    lefts = sorted(shown)
    assert [shown[x] for x in lefts] == [float(expected[n]) for n in distinct]
    for item in histogram._bars:
        assert np.all(item.opts["x1"][:-1] <= item.opts["x0"][1:])  # no overlap
    # Bands: one per bucket, alternating colours, each ending right of its bucket.
    lows = np.concatenate([histogram._bands[0].opts["x0"], histogram._bands[1].opts["x0"]])
    highs = np.concatenate([histogram._bands[0].opts["x1"], histogram._bands[1].opts["x1"]])
    assert len(lows) == 167
    assert [b < h for b, h in zip(histogram.buckets, sorted(highs), strict=True)]
    # Labels: only what fits side by side, the largest bucket always among them.
    labels = visible_labels(histogram)
    assert 3 <= len(labels) < 60
    texts = {t.toPlainText() for t in labels}
    assert f"▼{histogram.buckets[-1]}" in texts
    assert texts <= {f"▼{b}" for b in histogram.buckets}
    rects = sorted((t.sceneBoundingRect() for t in labels), key=lambda r: r.left())
    assert all(a.right() <= b.left() for a, b in itertools.pairwise(rects))
    # The summary leaves the middle of the list out; the code has every bucket.
    assert "…" in histogram.summary.text()
    assert f"BUCKETS = {tuple(histogram.buckets)}" in histogram.code.toPlainText()
    pad = padding(distinct, histogram.buckets)
    assert f"{pad / sum(distinct):.0%}" in histogram.summary.text()


def test_few_sizes_unchanged(histogram: ShapeHistogram) -> None:
    sizes = [32, 32, 7, 16, 5, 13, 16, 32, 9]
    histogram.set_signatures("eval_step", signatures(sizes))
    assert histogram.observed() == {5: 1, 7: 1, 9: 1, 13: 1, 16: 2, 32: 3}
    assert histogram.buckets == [16, 32] == suggest_buckets([5, 7, 9, 13, 16, 32], 2)
    shown, bucket_bars = bars(histogram)
    width = 2 * 0.7  # the smallest gap, 7 - 5, and bars 0.7 of it wide, none cut
    for item in histogram._bars:
        assert np.allclose(item.opts["x1"] - item.opts["x0"], width)
        assert item.opts["pen"] is not None
    assert sorted(shown.values()) == [1, 1, 1, 1, 2, 3]
    assert len(bucket_bars) == 2
    assert sorted(t.toPlainText() for t in visible_labels(histogram)) == ["▼16", "▼32"]
    assert "16, 32" in histogram.summary.text() and "…" not in histogram.summary.text()


def test_items_reused_and_labels_follow(histogram: ShapeHistogram, qtbot) -> None:
    many = signatures(random.Random(1).sample(range(1, 4097), 500))
    few = signatures([4, 8, 8, 10, 12, 15])
    histogram.set_signatures("a", many)
    items = plot_items(histogram)
    histogram.set_signatures("b", few)
    assert plot_items(histogram) == items  # no item made or left behind per draw
    assert histogram.buckets == [10, 15]
    assert sorted(t.toPlainText() for t in visible_labels(histogram)) == ["▼10", "▼15"]
    histogram.set_signatures("a", many)
    assert plot_items(histogram) == items
    wide = len(visible_labels(histogram))
    histogram.resize(500, 420)  # narrower: fewer labels fit
    qtbot.waitUntil(lambda: len(visible_labels(histogram)) < wide)
    histogram.compiles.setValue(1)
    assert histogram.buckets == [max(histogram.observed())]
    assert [t.toPlainText() for t in visible_labels(histogram)] == [f"▼{histogram.buckets[0]}"]
