"""call-site-cost (jax#27993): compile cost totalled per call site of the user's code.

Each compile (compile, recompile, persistent load) is charged to the program's line that made
the call (``RecordedCall.called_from``): trace + lower + compile milliseconds, summed per
line and ranked, costliest first. JAX-free and read from the ``call`` lines a recording
already holds (each has its ``called_from`` and phase times), so it is never written twice
and a recording cut short is ranked too: ``jitlab summary`` (and any reader: report, app)
ranks them with :func:`site_costs` and states the costly ones with
:func:`site_cost_diagnoses`, as ``call-site-cost`` diagnoses rendered like the others.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from jitlab.records.diagnoses import CALL_SITE_COST, Diagnosis
from jitlab.records.lines import RecordedCall
from jitlab.records.messages import say
from jitlab.records.text import format_ms

STATED = 5  # the costliest call sites stated, of those that compiled more than once
LISTED = 20  # call sites listed by the faces (summary, report, notebook, app), costliest first


@dataclass(frozen=True)
class SiteCost:
    """One call site's compiles (``called_from`` None: the line was not found)."""

    called_from: str | None
    compiles: int
    trace_ms: float
    lower_ms: float
    compile_ms: float
    function: str  # the costliest function compiled from this line
    defined_at: str | None  # where that function is defined
    functions: int  # how many functions this line compiled
    rank: int  # 1: the costliest site
    sites: int  # call sites ranked
    share: float  # of all compile time in the recording, 0..1

    @property
    def ms(self) -> float:
        return self.trace_ms + self.lower_ms + self.compile_ms

    def figures(self) -> dict[str, Any]:
        """The JSON figures (a ``call-site-cost`` diagnosis's, ``--json``'s ``call_sites``)."""
        return {
            "called_from": self.called_from,
            "compiles": self.compiles,
            "ms": round(self.ms, 4),
            "trace_ms": round(self.trace_ms, 4),
            "lower_ms": round(self.lower_ms, 4),
            "compile_ms": round(self.compile_ms, 4),
            "functions": self.functions,
            "rank": self.rank,
            "sites": self.sites,
            "share": round(self.share, 4),
        }


def site_costs(calls: Iterable[RecordedCall]) -> list[SiteCost]:
    """The call sites of the recording's compiles, costliest first (JAX's own kernels out)."""
    totals: dict[str | None, list[float]] = {}  # site -> [compiles, trace, lower, compile]
    per_function: dict[str | None, dict[tuple[str, str | None], float]] = {}
    for call in calls:
        record = call.record
        if not record.kind.compiled or call.internal:
            continue
        phases = (record.trace_ms or 0.0, record.lower_ms or 0.0, record.compile_ms or 0.0)
        total = totals.setdefault(call.called_from, [0, 0.0, 0.0, 0.0])
        total[0] += 1
        for i, ms in enumerate(phases, 1):
            total[i] += ms
        functions = per_function.setdefault(call.called_from, {})
        key = (record.function, call.defined_at)
        functions[key] = functions.get(key, 0.0) + sum(phases)
    everything = sum(sum(t[1:]) for t in totals.values())
    ranked = sorted(totals.items(), key=lambda item: (-sum(item[1][1:]), item[0] or ""))
    found = []
    for rank, (site, (n, trace, lower, compile_)) in enumerate(ranked, 1):
        functions = per_function[site]
        (function, defined_at), _ = max(functions.items(), key=lambda item: item[1])
        share = (trace + lower + compile_) / everything if everything > 0 else 0.0
        found.append(
            SiteCost(
                site,
                int(n),
                trace,
                lower,
                compile_,
                function,
                defined_at,
                len(functions),
                rank,
                len(ranked),
                share,
            )
        )
    return found


def site_cost_diagnoses(calls: Iterable[RecordedCall], top: int = STATED) -> list[Diagnosis]:
    """``call-site-cost``: the costliest call sites whose cache misses cumulated (the line
    compiled more than once), up to ``top``, ranked among all sites."""
    return [
        Diagnosis(CALL_SITE_COST, cost.function, cost.defined_at, cost.figures())
        for cost in site_costs(calls)[:top]
        if cost.compiles > 1
    ]


def site_heads(lang: str = "en") -> tuple[str, ...]:
    """The columns of a call-site table, as every face names them."""
    keys = ("sites.col.site", "col.compiles", "col.ms_compiling", "sites.col.share")
    return (*(say(k, lang) for k in keys), say("sites.col.costliest", lang))


def site_cells(cost: SiteCost, lang: str = "en") -> tuple[str, str, str, str, str]:
    """One call site's row, plain text (every face escapes it): its line, compiles, time,
    share of all compile time and its costliest function (``+n``: other functions too)."""
    function = cost.function
    if cost.functions > 1:
        function += f" (+{cost.functions - 1})"
    return (
        cost.called_from or say("sites.unknown", lang),
        str(cost.compiles),
        format_ms(cost.ms),
        f"{cost.share:.0%}",
        function,
    )
