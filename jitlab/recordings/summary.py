"""A recording summarised per function: what ``jitlab watch`` prints at the end, the
recording window's table and the report's rows (JAX-free).

Counts per function are the probe's own :class:`~jitlab.records.calls.Summary` of the
recorded calls, counted by :class:`~jitlab.records.history.Tally` (the one counts-by-kind
type); cache hits come from the ``hits`` lines (a hit is a count, not a line).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from jitlab.records.calls import CallKind, Change, Summary
from jitlab.records.change_words import render
from jitlab.records.changes import ChangeKind
from jitlab.records.history import Tally
from jitlab.records.lines import COMPILED, Key, RecordedCall

# What differed, in a terminal's or a notebook's table: the changes that explain the most
# compiles, then how many more ("… 3 more"); the recording window lists more, in a column.
CHANGES_IN_A_TABLE = 4


class Calls(Protocol):
    """What a summary reads of a recording (:class:`~jitlab.recordings.reader.Recording`)."""

    @property
    def calls(self) -> Sequence[RecordedCall]: ...

    @property
    def hits(self) -> Mapping[Key, int]: ...


@dataclass(frozen=True)
class FunctionSummary:
    """One function of a recording: the probe's :class:`Summary` of its recorded calls, with
    its cache hits (counted apart: a hit is a count in the recording, not a line)."""

    function: str
    defined_at: str | None
    totals: Summary = field(default_factory=lambda: Summary.of(()))
    hits: int | None = None  # None when hits were not counted (function jitted before watch)
    signatures: tuple[str, ...] = ()  # distinct compiled signatures, in order of appearance
    # What differed (data, each change first seen first), how often: shown in the reader's
    # language by :meth:`change_words`.
    change_counts: Counter[Change] = field(default_factory=Counter)
    internal: bool = False  # JAX's own kernels (eager ops, jnp.* outside jit): one per primitive

    @property
    def compiles(self) -> int:
        return self.totals.compiles

    @property
    def recompiles(self) -> int:
        return self.totals.recompiles

    @property
    def persistent_hits(self) -> int:
        return self.totals.persistent_hits

    @property
    def errors(self) -> int:
        return self.totals.errors

    @property
    def compile_ms(self) -> float:
        """Trace + lower + compile: the time lost producing executables."""
        return self.totals.time_lost_ms

    @property
    def executables(self) -> int:
        """Programs compiled for it: first compile, recompiles, persistent loads. The
        "compiles" count of both the terminal summary and the recording window."""
        return self.compiles + self.recompiles + self.persistent_hits

    @property
    def ms_text(self) -> str:
        """Time lost compiling as both the terminal summary and the recording window show it."""
        return f"{self.compile_ms:.1f}"

    def listed_changes(
        self, lang: str = "en", *, full: bool = False, at_most: int = CHANGES_IN_A_TABLE
    ) -> tuple[list[tuple[str, int]], int]:
        """The ``at_most`` changes that explain the most compiles (:meth:`change_words`),
        each with its count, and how many more there are: a list that is cut says so."""
        words = self.change_words(lang, full=full).most_common()
        return words[:at_most], max(0, len(words) - at_most)

    def change_words(self, lang: str = "en", *, full: bool = False) -> Counter[str]:
        """What differed between its compiles in ``lang``, how often: equal changes counted
        together (a new function object's running count aside: its ×N says it), so that
        ``most_common()`` ranks them by how many compiles each explains, of equal ones the
        first seen first. What the terminal summary and the recording window list."""
        words: Counter[str] = Counter()
        for change, n in self.change_counts.items():
            if change.kind is ChangeKind.NEW_FUNCTION_OBJECT:
                change = replace(change, count=0)  # "(N function objects so far)": its ×N
            words[render(change, lang, full=full)] += n
        return words


def summarize(recording: Calls, include_internal: bool = True) -> list[FunctionSummary]:
    """Per function, sorted by time lost to compiling (the first one to fix comes first).

    JAX's own kernels (recorded with ``--include-internal``) are one row per primitive,
    wherever they were called from; rows with nothing in them are left out.
    """
    return Summarizer(include_internal).update(recording)


class _Tally:
    """One function's running totals: its :class:`Tally`, and what a row shows beyond it."""

    __slots__ = ("changes", "first", "internal", "signatures", "totals")

    def __init__(self, first: int, internal: bool) -> None:
        self.first = first  # the position of its first call line
        self.internal = internal
        self.totals = Tally()
        self.signatures: dict[str, None] = {}  # an ordered set
        # What differed, per recompile: each reason's changes (a few distinct ones, counted
        # whole by their place in Summarizer._distinct; spread change by change, in the same
        # order, by Summarizer._row).
        self.changes: dict[int, int] = {}


class Summarizer:
    """:func:`summarize`, kept up to date as a recording grows: each :meth:`update` reads
    only the call lines added since the last one, so following a long file (or reading it
    a piece at a time) costs in proportion to what is new. Same rows, same order."""

    def __init__(self, include_internal: bool = True) -> None:
        self.include_internal = include_internal
        self._seen = 0
        self._tallies: dict[Key, _Tally] = {}
        self._distinct: dict[tuple[Change, ...], int] = {}  # each reason's changes: a place
        self._items: list[tuple[Change, ...]] = []  # ... and by place

    def update(self, recording: Calls) -> list[FunctionSummary]:
        """The rows, the call lines added since the last look counted first."""
        self.count(recording)
        tallies = self._tallies
        keys = sorted(tallies, key=lambda k: tallies[k].first)
        keys += [key for key in recording.hits if key not in tallies]
        rows = [self._row(key, tallies.get(key), recording.hits.get(key)) for key in keys]
        rows = [s for s in rows if s.executables or s.errors or s.hits]
        return sorted(rows, key=lambda s: s.compile_ms, reverse=True)

    def count(self, recording: Calls) -> None:
        """Count the call lines added since the last look (a window reading a long file
        counts each piece as it comes, so that showing the rows costs little)."""
        calls = recording.calls
        if len(calls) < self._seen:  # another recording, or read again: start over
            self._seen, self._tallies, self._distinct, self._items = 0, {}, {}, []
        tallies = self._tallies
        include_internal = self.include_internal
        distinct, items = self._distinct, self._items
        # A recording's reasons are a few objects read again and again: each one's place
        # once (kept by id while its calls hold it, for this update only).
        places: dict[int, int] = {}
        for position in range(self._seen, len(calls)):
            call = calls[position]
            internal = call.internal
            if internal and not include_internal:
                continue
            record = call.record
            key = (record.function, None if internal else call.defined_at)  # call.key
            tally = tallies.get(key)
            if tally is None:
                tally = tallies[key] = _Tally(position, internal)
            tally.totals.add(record)
            kind = record.kind
            if kind in COMPILED:
                signature = record.signature
                if signature is not None:
                    tally.signatures.setdefault(str(signature))
                reason = record.reason
                if kind is CallKind.RECOMPILE and reason is not None:
                    place = places.get(id(reason))
                    if place is None:
                        place = distinct.setdefault(reason.items, len(items))
                        if place == len(items):
                            items.append(reason.items)
                        places[id(reason)] = place
                    tally.changes[place] = tally.changes.get(place, 0) + 1
        self._seen = len(calls)

    def _row(self, key: Key, tally: _Tally | None, hits: int | None) -> FunctionSummary:
        if tally is None:
            return FunctionSummary(*key, totals=Summary.of(()), hits=hits)
        changes: Counter[Change] = Counter()  # each first seen first, as counted one by one
        for place, n in tally.changes.items():
            for change in self._items[place]:
                changes[change] += n
        return FunctionSummary(
            *key,
            totals=tally.totals.summary(),
            hits=hits,
            signatures=tuple(tally.signatures),
            change_counts=changes,
            internal=tally.internal,
        )
