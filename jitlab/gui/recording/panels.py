"""The lab's kitchen panel and latency chart as a recording shows them."""

from __future__ import annotations

from jitlab.gui.style import KIND_COLORS, KIND_ORDER, kind_name
from jitlab.gui.views.call_text import LEGEND_GAP, unbroken
from jitlab.gui.views.chart import ChartView
from jitlab.gui.views.kitchen import KitchenPanel
from jitlab.records.calls import CallKind


class RecordingKitchen(KitchenPanel):
    """The kitchen panel, its counters completed with the recording's aggregated cache hits."""

    hits: int | None = None  # None: not counted (the function was jitted before the watch)

    def refresh(self) -> None:
        super().refresh()
        summary = self.state.segment_summary()
        if self.hits is None:
            self.values["calls"].setText(f"{summary.calls} + ?")
            self.values["hit_rate"].setText("?")
            tip = self.tr(
                "Cache hits of this function were not counted: it was jitted before the "
                "recording began, and a cache hit fires no JAX event."
            )
        else:
            calls = summary.calls + self.hits
            self.values["calls"].setText(str(calls))
            self.values["hit_rate"].setText(f"{self.hits / calls:.0%}" if calls else "0%")
            tip = self.tr("Calls of this function: its compiles plus its cache hits.")
        self.values["calls"].setToolTip(tip)
        self.values["hit_rate"].setToolTip(
            self.tr("Share of this function's calls served from a compiled program.")
        )


class RecordingChart(ChartView):
    """The latency chart without the variant legend (a recording has no variants)."""

    show_runs = False  # no variant runs to mark

    def _offer_next(self) -> None:
        """A recording is not a lesson: no "Now try the fix →" (there is no fix to switch to)."""
        self.next_button.hide()

    def retranslate(self) -> None:
        super().retranslate()
        # Each entry whole on its line: the row wraps between entries, never inside one.
        parts = [
            f"<span style='color:{KIND_COLORS[kind]}'>●</span>&nbsp;{unbroken(kind_name(kind))}"
            for kind in KIND_ORDER
            if kind is not CallKind.CACHE_HIT  # a recording keeps hits as counts, not points
        ]
        self.legend.setText(LEGEND_GAP.join(parts))
        # A watched call is timed until it returned to the program, not until the device was
        # done: JAX dispatches asynchronously (the lab's probe waits; a watch must not).
        self.axis_title = (self.tr("returned after (ms, log scale)"), self.tr("ms, log scale"))
        self._axis_shown = None
        self.plot_tip = self.tr(
            "Each point's height is the time until the call returned to the program. "
            "JAX dispatches asynchronously: on a GPU or TPU a call returns before the "
            "device has finished, so this is compile and dispatch time, not the time the "
            "work took (the lab waits for the result; a watched program is not made to)."
        )
        self._place_hint()
        self.legend.setToolTip(
            self.tr(
                "One point per compile of this function, at the number of the call that made "
                "it; the calls in between were cache hits."
            )
        )
