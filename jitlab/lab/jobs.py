"""The scripts jobs the app runs on its JAX thread: a card's script, one of its texts printed
later, two cards compared. Plain functions of the engine's ``Run``, with no Qt behind them,
so they are tested without a window (``tests/lab/test_jobs.py``); the GUI queues them on its
executor (``Executor.request_script``, ``request_part``, ``request_comparison``,
``request_diff_of``), the one thread that reaches JAX there.

Importing this module loads no JAX (the executor imports it while the first screen paints);
the probe's script maker is imported when a job runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from jitlab.records.scripts import Script, ScriptDiff, compare

if TYPE_CHECKING:
    from jitlab.lab.engine import Run
    from jitlab.probe.probe import Probe

__all__ = [
    "GONE",
    "ScriptOf",
    "ScriptsCompared",
    "card_script",
    "compare_scripts",
    "diff_made",
    "part_script",
]

#: Why a card has no script: the run's card holder no longer holds it.
GONE = "the card is no longer in the run's card holder (reset or switched since)"


@dataclass(frozen=True)
class ScriptOf:
    """A job's result: the script of one card of the current run, or why there is none.

    ``script`` is plain data (the views read it without importing JAX); ``why`` says why it
    is None."""

    function: str
    card: int  # the card's index in its function's holder (CallRecord.card)
    created_by: int  # the call that compiled it, as the GUI knows the card
    script: Script | None = None
    why: str = ""


@dataclass(frozen=True)
class ScriptsCompared:
    """A job's result: two cards' scripts and what differs (None when either script is
    missing: their ``why`` says why)."""

    before: ScriptOf
    after: ScriptOf
    diff: ScriptDiff | None = None


def _probe_of(run: Run | None, function: str, card: int, created_by: int) -> Probe | None:
    """The current run's probe holding ``function``'s card ``card`` (None if none does)."""
    if run is None:
        return None
    probes = list(run._lab.probes) if run._lab is not None else []
    if not probes and run.last_probe is not None:
        probes = [run.last_probe]
    holders = [
        (p, c)
        for p in probes
        if p.name == function
        for c in list(p.ledger.cards)
        if c.index == card
    ]
    for probe, held in reversed(holders):  # the newest function object of that name first
        if held.created_by == created_by:
            return probe
    return holders[-1][0] if holders else None


def card_script(
    run: Run | None,
    function: str,
    card: int,
    created_by: int,
    stablehlo: bool = True,
    view: bool = False,
) -> ScriptOf:
    """The script of a card the kitchen shows. Cached with the card by the probe; asking
    never changes what the probe records (``jitlab.probe.scripts``).
    ``stablehlo=False``: its StableHLO text may be left to be printed when asked for.
    ``view=True``: what a script window shows first (``make_script(..., view=True)``: the
    texts that hold the GIL longest are left to :func:`part_script`); a script already kept
    with the card serves as well. It is not kept with the card (the window keeps it)."""
    probe = _probe_of(run, function, card, created_by)
    if probe is None:
        return ScriptOf(function, card, created_by, None, GONE)
    if not view:
        return ScriptOf(function, card, created_by, probe.script(card, stablehlo=stablehlo))
    from jitlab.probe.scripts import make_script

    held = probe.card(card)
    kept = held.script_cache
    if kept is not None and kept[0] == held.created_by:
        return ScriptOf(function, card, created_by, kept[1])
    return ScriptOf(function, card, created_by, make_script(probe, held, view=True))


def part_script(
    run: Run | None, function: str, card: int, created_by: int, script: Script, part: str
) -> ScriptOf:
    """``script`` (that card's, made without the text ``part``) with that text printed
    (``jitlab.probe.scripts.print_part``)."""
    probe = _probe_of(run, function, card, created_by)
    if probe is None:
        return ScriptOf(function, card, created_by, None, GONE)
    from jitlab.probe.scripts import print_part

    made = print_part(probe, probe.card(card), script, part)
    return ScriptOf(function, card, created_by, made)


def compare_scripts(
    run: Run | None, a: tuple[str, int, int], b: tuple[str, int, int]
) -> ScriptsCompared:
    """Two cards' scripts (made if needed), each ``(function, card, created_by)``, and their
    differences."""
    return diff_made(card_script(run, *a), card_script(run, *b))


def diff_made(before: ScriptOf, after: ScriptOf) -> ScriptsCompared:
    """The differences of two scripts already made (kept by the GUI across a variant switch,
    when their cards have left the run's card holder). Plain data: no JAX runs."""
    diff = None
    if before.script is not None and after.script is not None:
        diff = compare(before.script, after.script)
    return ScriptsCompared(before, after, diff)
