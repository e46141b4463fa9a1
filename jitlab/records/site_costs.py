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

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from jitlab.records.diagnoses import CALL_SITE_COST, Diagnosis, new_signature
from jitlab.records.lines import RecordedCall
from jitlab.records.messages import say
from jitlab.records.text import format_ms

STATED = 5  # the costliest call sites stated, of those that compiled more than once
# A call site is stated only past both floors: its compiles cost at least this many ms
# (JITLAB_SITE_COST_FLOOR_MS overrides it) and this share of all compile time (a line
# costing 0.2 s of a program is no finding).
FLOOR_MS = 1000.0
FLOOR_SHARE = 0.10
FLOOR_VARIABLE = "JITLAB_SITE_COST_FLOOR_MS"


def floor_ms() -> float:
    """The floor in ms: ``JITLAB_SITE_COST_FLOOR_MS`` where it is a number >= 0, else
    :data:`FLOOR_MS` (read when a recording's sites are stated)."""
    value = _floor_of(os.environ.get(FLOOR_VARIABLE, ""))
    return FLOOR_MS if value is None else value


def _floor_of(text: str) -> float | None:
    """A floor's value, as ``JITLAB_SITE_COST_FLOOR_MS`` holds it; None: unset or unusable."""
    try:
        value = float(text.strip()) if text.strip() else None
    except ValueError:
        return None
    return value if value is not None and 0 <= value < float("inf") else None


def floor_ignored(lang: str = "en") -> str | None:
    """The warning for a ``JITLAB_SITE_COST_FLOOR_MS`` jitlab cannot use (not a number, below
    0, infinite), which :func:`floor_ms` ignores; None where it is unset or usable."""
    text = os.environ.get(FLOOR_VARIABLE, "")
    if not text.strip() or _floor_of(text) is not None:
        return None
    default = say("env.floor_default", lang, ms=f"{FLOOR_MS:g}")
    expected = say("env.floor_ms", lang)
    shown = repr(text[:40])
    return say(
        "env.ignored", lang, name=FLOOR_VARIABLE, value=shown, expected=expected, default=default
    )


LISTED = 20  # call sites listed by the faces (summary, report, notebook, app), costliest first
PATHS_LISTED = 40  # rows of the call-path trie shown


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


def listed_sites(calls: Iterable[RecordedCall]) -> list[SiteCost]:
    """The call sites the faces list: :func:`site_costs`, or none when no calling line was
    found at all (a Probe's records: one function, its callers unknown)."""
    costs = site_costs(calls)
    return costs if any(cost.called_from is not None for cost in costs) else []


def site_cost_diagnoses(
    calls: Iterable[RecordedCall], stated: Sequence[Diagnosis] = (), top: int = STATED
) -> list[Diagnosis]:
    """``call-site-cost``: the costliest call sites (up to ``top``) that compiled more than
    once, past both floors (:func:`floor_ms`, :data:`FLOOR_SHARE`), ranked among all sites;
    a site whose line was not found is ranked but not stated (there is no line to name).

    Each says whether something at that line is wrong (:attr:`Diagnosis.problem`): its
    compiles that made a signature compiled before (``wasted``: a function made anew, a
    cleared cache, a static equal in content), and the ids of the problems ``stated`` about
    the functions it compiled (``diagnosed``). Where neither, it is a ranking: where the
    compile time goes, each compile a signature the program needed."""
    calls = list(calls)
    found = []
    least = floor_ms()
    for cost in site_costs(calls)[:top]:
        if cost.compiles < 2 or cost.called_from is None:
            continue
        if cost.ms < least or cost.share < FLOOR_SHARE:
            continue
        here = [
            c
            for c in calls
            if c.called_from == cost.called_from and c.record.kind.compiled and not c.internal
        ]
        wasted = sum(
            1 for c in here if new_signature(c.record.reason, c.record.executables) is False
        )
        functions = {(c.record.function, c.defined_at) for c in here}
        diagnosed = sorted(
            {
                d.id
                for d in stated
                if d.id != CALL_SITE_COST and d.problem and (d.function, d.site) in functions
            }
        )
        figures = {**cost.figures(), "wasted": wasted, "diagnosed": ", ".join(diagnosed) or None}
        found.append(Diagnosis(CALL_SITE_COST, cost.function, cost.defined_at, figures))
    return found


def site_heads(lang: str = "en") -> tuple[str, ...]:
    """The columns of a call-site table, as every face names them."""
    keys = ("sites.col.site", "col.compiles", "sites.col.time", "sites.col.share")
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


@dataclass
class CallPath:
    """A node of the call-path trie: a user's line, the compiles that went through it on
    their way to ``jax.jit``, and the lines that called it (its callers)."""

    site: str | None
    compiles: int = 0
    ms: float = 0.0
    callers: dict[str | None, CallPath] = field(default_factory=dict)


def call_paths(
    calls: Iterable[RecordedCall], limit: int = PATHS_LISTED
) -> list[tuple[int, CallPath]]:
    """The call sites, costliest first, each followed by the lines that led to it (a stack
    trie as tlparse draws one, rooted at the line that called the jitted function): (depth,
    node) rows in order. Empty when no compile recorded more than its calling line (older
    recordings, functions jitted before the watch)."""
    roots: dict[str | None, CallPath] = {}
    deeper = False
    for call in calls:
        record = call.record
        if not record.kind.compiled or call.internal:
            continue
        ms = (record.trace_ms or 0.0) + (record.lower_ms or 0.0) + (record.compile_ms or 0.0)
        path = call.stack if call.stack and call.stack[-1] == call.called_from else ()
        deeper = deeper or len(path) > 1
        nodes = roots
        for site in reversed(path or (call.called_from,)):
            node = nodes.setdefault(site, CallPath(site))
            node.compiles += 1
            node.ms += ms
            nodes = node.callers
    rows: list[tuple[int, CallPath]] = []

    def walk(nodes: dict[str | None, CallPath], depth: int) -> None:
        for node in sorted(nodes.values(), key=lambda n: (-n.ms, n.site or "")):
            if len(rows) >= limit:
                return
            rows.append((depth, node))
            walk(node.callers, depth + 1)

    if deeper:
        walk(roots, 0)
    return rows


def path_text(node: CallPath, lang: str = "en") -> str:
    """One row of the trie, plain text (every face escapes it)."""
    return say(
        "sites.path",
        lang,
        site=node.site or say("sites.unknown", lang),
        compiles=say("n.compiles", lang, n=node.compiles),
        ms=format_ms(node.ms),
    )


def path_lines(calls: Iterable[RecordedCall], lang: str = "en") -> list[str]:
    """The trie as plain-text lines (the heading, then each row indented by its depth, a
    caller marked ``←``); none when there is no path to show."""
    rows = call_paths(calls)
    if not rows:
        return []
    lines = [say("sites.paths", lang)]
    for depth, node in rows:
        lines.append("  " * (depth + 1) + ("← " if depth else "") + path_text(node, lang))
    return lines
