"""The chart's axes: whole call numbers, and a log axis in ms whose labels never pile up
(the lab's chart and the summary page's chart share them)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QFontMetrics

from jitlab.gui.style import ink


def paint(
    plot: pg.PlotWidget, background: QColor, axes: Sequence[str] = ("left", "bottom")
) -> None:
    """A plot in the scheme's colours: the palette's base behind, the ink on its axes (every
    chart of the app, so a scheme change looks the same everywhere)."""
    plot.setBackground(background)
    pen = pg.mkPen(ink())
    for name in axes:
        axis = plot.getPlotItem().getAxis(name)
        axis.setPen(pen)
        axis.setTextPen(pen)


class CallAxis(pg.AxisItem):
    """The call-number axis: whole numbers only, never an SI prefix (no ×0.001)."""

    def __init__(self, orientation: str) -> None:
        super().__init__(orientation)
        self.enableAutoSIPrefix(False)

    def tickValues(self, minVal: float, maxVal: float, size: float) -> Any:
        levels = [
            (spacing, [v for v in values if float(v).is_integer()])
            for spacing, values in super().tickValues(minVal, maxVal, size)
            if spacing >= 1
        ]
        levels = [(spacing, values) for spacing, values in levels if values]
        if not levels and math.isfinite(minVal) and math.isfinite(maxVal):
            first, last = math.ceil(minVal), math.floor(maxVal)
            if 0 <= last - first <= 20:  # zoomed in: each whole call in view
                levels = [(1.0, [float(v) for v in range(first, last + 1)])]
        return levels

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return [str(round(v)) for v in values]


class DecadeAxis(pg.AxisItem):
    """A log axis whose labels never pile up and never vanish, whatever the range.

    Over two or more decades only decades are labelled (every 2nd, 3rd… when they would not
    fit), with 2…9 as bare ticks; under that, 1-2-5, then every 1…9; in a sliver narrower
    than one of those steps, round linear values. Only the first level gets text.
    """

    LABEL_PITCH = 2.2  # label heights from one label to the next, at least

    def __init__(self, orientation: str) -> None:
        super().__init__(orientation)
        self.setStyle(maxTextLevel=0)
        self.enableAutoSIPrefix(False)  # labels are plain ms: 0.05, never 50 ×0.001

    def _room(self, size: float) -> int:
        """How many labels fit along ``size`` pixels without touching."""
        height = QFontMetrics(self.style.get("tickFont") or self.font()).height()
        return max(2, int(size // (max(height, 8) * self.LABEL_PITCH)))

    def logTickValues(self, minVal: float, maxVal: float, size: float, stdTicks: Any) -> Any:
        if not (math.isfinite(minVal) and math.isfinite(maxVal)):
            return []
        if maxVal - minVal < 1e-9:  # a single value: label it
            return [(None, [minVal])]
        room = self._room(size)
        low, high = math.floor(minVal), math.ceil(maxVal)
        decades = [v for v in range(low, high + 1) if minVal <= v <= maxVal]
        between = [
            float(v + np.log10(m))
            for v in range(low, high)
            for m in range(2, 10)
            if minVal < v + np.log10(m) < maxVal
        ]
        if len(decades) >= 2:
            step = math.ceil(len(decades) / room)
            labelled = [float(v) for v in decades if v % step == 0]
            if step == 1:
                return [(1.0, labelled), (None, between)]
            bare = [float(v) for v in decades if v % step]
            return [(float(step), labelled), (None, bare)]
        for mantissas in ((1, 2, 5), range(1, 10)):
            values = [
                float(v + np.log10(m))
                for v in range(low, high + 1)
                for m in mantissas
                if minVal <= v + np.log10(m) <= maxVal
            ]
            if len(values) > room and mantissas == (1, 2, 5):
                # A short axis: every 2nd, 3rd… of them, still round (never the range's
                # own ends, such as 2239 and 141.3).
                values = values[:: math.ceil(len(values) / room)]
            if 2 <= len(values) <= room:
                rest = [v for v in between if all(abs(v - w) > 1e-9 for w in values)]
                return [(None, values), (None, rest)]
        return [(None, self._linear(minVal, maxVal, min(room, 5)))]

    @staticmethod
    def _linear(minVal: float, maxVal: float, count: int) -> list[float]:
        """Round values (1, 2 or 5 × 10ⁿ apart) inside a narrow log range, 2…count of them."""
        lo, hi = 10.0**minVal, 10.0**maxVal
        raw = (hi - lo) / max(count - 1, 1)
        base = 10.0 ** math.floor(math.log10(raw))
        step = next((m * base for m in (1, 2, 5, 10) if m * base >= raw), 10 * base)
        first = math.ceil(lo / step) * step
        values = [first + i * step for i in range(count + 1) if first + i * step <= hi * 1.0000001]
        if len(values) < 2:  # too narrow for two round values: the ends, as they are
            values = [lo, hi] if hi > lo else [lo]
        return [float(np.log10(v)) for v in values if v > 0]

    def logTickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return [_ms_label(10.0**v * scale) for v in values]


def _ms_label(value: float) -> str:
    """A tick label in ms: plain digits (0.05, 2, 1000), as many as the value needs."""
    if value >= 1:
        text = f"{value:.4g}"
        return text if "e" not in text else f"{value:.0f}"
    text = f"{value:.3g}"
    return text if "e" not in text else f"{value:.6f}".rstrip("0").rstrip(".")
