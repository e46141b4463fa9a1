"""The chart's min/max envelope: fewer points, every compile spike kept, calls in order."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from jitlab.gui.chart import peak_decimate


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 20_000), st.integers(10, 4000), st.integers(0, 2**32 - 1))
def test_envelope_keeps_extremes_and_order(n: int, target: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = np.arange(n, dtype=np.float64)
    y = rng.lognormal(size=n)
    y[rng.integers(0, n, size=3)] *= 1000  # compile spikes
    xs, ys = peak_decimate(x, y, target)
    assert xs.size <= max(n, target + 2 * int(np.ceil(n / max(target // 2, 1))))
    assert ys.max() == y.max() and ys.min() == y.min()
    assert np.all(np.diff(xs) >= 0)
    assert set(xs.tolist()) <= set(x.tolist())


def test_small_series_pass_through_untouched() -> None:
    x = np.arange(5.0)
    y = np.array([1.0, 9.0, 1.0, 1.0, 2.0])
    xs, ys = peak_decimate(x, y, 100)
    assert xs is x and ys is y


def test_log_axis_labels_decades_only(qtbot) -> None:
    from jitlab.gui.app import application
    from jitlab.gui.chart import DecadeAxis

    application()
    axis = DecadeAxis("left")
    levels = axis.logTickValues(-0.3, 1.8, 300, [])
    assert levels[0] == (1.0, [0.0, 1.0])  # 1 ms and 10 ms get text
    assert len(levels[1][1]) > 5  # the 2…9 marks stay, unlabelled (maxTextLevel 0)
    assert axis.style["maxTextLevel"] == 0
