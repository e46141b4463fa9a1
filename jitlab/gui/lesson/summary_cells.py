"""The summary page's plain functions of the records: a cell's text, where a run compiled,
and its error types (no widget: testable on their own). The count a prediction names is
:func:`jitlab.records.text.prediction_number`, shared with the lesson notebooks."""

from __future__ import annotations

from collections.abc import Iterable

from jitlab.records.calls import CallKind, CallRecord, Summary
from jitlab.records.text import format_ms


def cell_text(key: str, summary: Summary | None, records: Iterable[CallRecord]) -> str:
    """The table's cell ``key`` (a row of ``SummaryPage.ROWS``) for one run."""
    if summary is None or not summary.calls:
        return "–"
    if key == "calls":
        return str(summary.calls)
    if key == "compiles":
        return str(summary.compiles + summary.recompiles)
    if key == "recompiles":
        return str(summary.recompiles)
    if key == "hit_rate":
        return f"{summary.hit_rate:.0%}"
    if key == "time_lost":
        return format_ms(summary.time_lost_ms)
    if key == "mean_hit":
        hits = [r.latency_ms for r in records if r.kind is CallKind.CACHE_HIT]
        return format_ms(sum(hits) / len(hits)) if hits else "–"
    return format_ms(sum(r.latency_ms for r in records))


def compile_calls(records: Iterable[CallRecord]) -> list[str]:
    """Where a run compiled, by the call numbers the log, the live chart and the ledger show
    (``#6``, not "call 0 of the fix run": one numbering everywhere)."""
    kinds = (CallKind.COMPILE, CallKind.RECOMPILE)
    return [f"#{r.index}" for r in records if r.kind in kinds]


def error_types(records: Iterable[CallRecord]) -> str:
    names: list[str] = []
    for r in records:
        if r.kind is CallKind.ERROR and r.error is not None and r.error.type not in names:
            names.append(r.error.type)
    return ", ".join(names) or "?"
