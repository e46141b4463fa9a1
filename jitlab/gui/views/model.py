"""The run-state model: what the views show, updated from engine events, free of Qt.

The chart, the kitchen panel, the log, the output and error panes and the summary all read
this one model, so they can never disagree (and tests can check the state without looking
at pixels). A view subscribes with :meth:`RunState.subscribe` and is told once per frame
what changed (:class:`Change`); adding a view never means editing the main window.
"""

from __future__ import annotations

import enum
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from jitlab.lab.events import CallFinished, CallStarted, Event, PhaseEnded
from jitlab.lab.spec import Param
from jitlab.records.calls import CallKind, CallRecord, Reason, Signature, Summary
from jitlab.records.change_words import reason_text
from jitlab.records.history import History, Tally

T = TypeVar("T")


def default_cap() -> int:
    try:
        return max(1, int(os.environ.get("JITLAB_RECORD_CAP", "")))
    except ValueError:
        return RECORD_CAP


# Records kept in memory per list (about 850 bytes a call with the log's): a long session
# at full speed stays under a fixed size. Counts and sums are kept exactly beside them.
RECORD_CAP = 100_000


class Phase(enum.StrEnum):
    """What the kitchen is doing right now."""

    IDLE = "idle"  # nothing in flight
    ORDER = "order"  # a call started: looking for a matching card
    REHEARSING = "rehearsing"  # no card fits: tracing (inferred after a short wait)
    WRITING = "writing"  # trace done: lowering and compiling the script
    COOKING = "cooking"  # the executable runs
    SERVED = "served"  # the call finished


@dataclass
class CardView:
    """One compiled signature in the card holder, as the kitchen draws it."""

    key: tuple[str, int]  # (function, card index)
    signature: str
    created_by: int
    compile_ms: float
    hits: int = 0
    sig: Signature | None = None
    number: int = 0  # 1, 2, 3… in the order the cards entered the holder (all functions)


@dataclass
class Segment:
    """Calls made since the last reset or variant switch: one comparable run.

    Counts are kept as calls arrive, so a summary costs the same after 100,000 calls and
    stays exact after the oldest records have dropped off ``records`` (a :class:`History`:
    ``len(records)`` is still the exact number of calls).
    """

    variant: str
    records: History[CallRecord] = field(default_factory=lambda: History(default_cap()))
    totals: Tally = field(default_factory=Tally)

    @property
    def counts(self) -> dict[CallKind, int]:
        return self.totals.counts

    @property
    def calls(self) -> int:
        return self.totals.calls

    def add(self, record: CallRecord) -> None:
        self.records.append(record)
        self.totals.add(record)

    def summary(self) -> Summary:
        return self.totals.summary()


@dataclass(frozen=True)
class Served:
    """A call that finished, with where it sits in the model."""

    record: CallRecord
    segment: int  # index into ``RunState.segments``
    position: int  # index into ``RunState.records``


@dataclass(frozen=True)
class Change:
    """What happened since the views were last told: one per frame, never one per call.

    A view that keeps its own copy (a chart buffer, a table) applies it in order:
    ``cleared`` first (forget everything), then ``served``.
    """

    served: tuple[Served, ...] = ()  # calls finished, in order
    cleared: bool = False  # a new scenario: every record is forgotten
    new_segment: bool = False  # reset or variant switch: the card holder emptied
    failure: str = ""  # something outside a call failed (the worker's report)


Listener = Callable[[Change], None]


class RunState:
    """Counters, card holder, phase and last reason of the current scenario run."""

    def __init__(self, cap: int | None = None) -> None:
        self.cap = cap if cap is not None else default_cap()  # records kept per list
        self._listeners: list[Listener] = []
        # Seconds the last call had run when it was abandoned (it never returned); shown
        # until the next call starts, across the reset or switch that abandoned it.
        self.abandoned_after: float | None = None
        self.started_at = 0.0  # perf_counter() when the call in flight started
        self._served: list[Served] = []
        self._cleared = False
        self._new_segment = False
        self._failure = ""
        self.dirty = False  # something changed that the views have not been told
        self.clear()

    # -- subscription ---------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        """Views register here; they are told once per frame what changed, never per call."""
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def touch(self) -> None:
        """Something the views show changed without an event (a clock, an abandoned call)."""
        self.dirty = True

    def notify(self) -> Change:
        """Tell every view what changed since the last time (the frame loop calls this)."""
        change = Change(tuple(self._served), self._cleared, self._new_segment, self._failure)
        self._served = []
        self._cleared = self._new_segment = False
        self._failure = ""
        self.dirty = False
        for listener in list(self._listeners):
            listener(change)
        return change

    # -- events ---------------------------------------------------------------------------
    @property
    def last_reason(self) -> str:
        """The last compile's reason in English (see ``last_reason_of`` for the data)."""
        return reason_text(self.last_reason_of)

    def apply(self, event: Event) -> None:
        """Update from one engine event (typed dispatch; the engine itself is not needed)."""
        match event:
            case CallStarted(index=index, params=params):
                self.call_started(index, params)
            case PhaseEnded(index=index, phase=phase, ms=ms):
                self.phase_ended(index, phase, ms)
            case CallFinished(record=record):
                self.call_finished(record)

    def failed(self, text: str) -> None:
        """Something outside a probed call failed; the error pane shows it."""
        self._failure = text
        self.dirty = True

    # -- mutation -------------------------------------------------------------------------
    def clear(
        self, scenario: str = "", variant: str = "pitfall", params: Iterable[Param] = ()
    ) -> None:
        """A new scenario: forget every record. ``params``: its parameters, so that every view
        names a call's values by their labels (:func:`~jitlab.lab.spec.values_text`)."""
        self.scenario = scenario
        self.params = tuple(params)
        self.variant = variant
        self.records: History[CallRecord] = History(self.cap)  # len() is exact
        self.totals = Tally()  # exact over the whole scenario, whatever records keeps
        self.segments: list[Segment] = []
        self.version = 0  # bumped on clear so views know to rebuild
        self._served = []  # calls of the old scenario the views were not told of
        self._cleared = True
        self.new_segment(variant)

    def new_segment(self, variant: str) -> None:
        """Reset or variant switch: the card holder empties, a new comparable run begins."""
        self.variant = variant
        self.segments.append(Segment(variant, History(self.cap)))
        self.cards: dict[tuple[str, int], CardView] = {}
        self.card_count = 0  # numbers given out in this segment: each card's is unique
        self.pulled: tuple[str, int] | None = None
        self.phase = Phase.IDLE
        self.in_flight: int | None = None
        self.last_kind: CallKind | None = None
        self.last_reason_of: Reason | None = None  # the core's typed reason of the last compile
        self.last_error: CallRecord | None = None
        self.ever_compiled = False
        self.version += 1
        self._new_segment = True
        self.dirty = True

    def call_abandoned(self, seconds: float) -> None:
        """The call in flight never returned and was left behind; the kitchen is free."""
        self.abandoned_after = seconds
        self.in_flight = None
        self.phase = Phase.IDLE
        self.dirty = True

    def call_started(self, index: int, params: dict[str, Any]) -> None:
        self.abandoned_after = None
        self.in_flight = index
        self.started_at = time.perf_counter()
        self.phase = Phase.ORDER
        self.pulled = None
        self.dirty = True

    def phase_ended(self, index: int, phase: str, ms: float) -> None:
        if index != self.in_flight:
            return
        self.dirty = True
        if phase == "trace":
            self.phase = Phase.WRITING
        elif phase in ("compile", "load"):
            self.phase = Phase.COOKING

    def tick(self, elapsed_s: float) -> bool:
        """Called once per frame: a call slower than a cache hit is rehearsing (tracing).

        An in-memory cache hit sends no event at all, and tracing sends one only when it ends,
        so "rehearsing" is inferred from the wait; it is replaced as soon as the trace ends.
        """
        if self.phase is Phase.ORDER and elapsed_s > 0.08:
            self.phase = Phase.REHEARSING
            self.dirty = True
            return True
        return False

    def call_finished(self, record: CallRecord) -> None:
        self._served.append(Served(record, len(self.segments) - 1, len(self.records)))
        self.dirty = True
        self.records.append(record)
        self.totals.add(record)
        self.segments[-1].add(record)
        self.in_flight = None
        self.phase = Phase.SERVED
        self.last_kind = record.kind
        key = (record.function, record.card) if record.card is not None else None
        if record.kind.compiled and key is not None:
            text = str(record.signature) if record.signature else "?"
            held = self.cards.get(key)
            if held is not None and held.signature != text:
                # Another function of the same name (a new probe): its card stays on show.
                self.cards[(*key, held.number)] = self.cards.pop(key)  # type: ignore[index]
            number = held.number if held is not None and held.signature == text else 0
            if not number:  # a rewritten card (caches cleared) keeps its number
                self.card_count += 1
                number = self.card_count
            self.cards[key] = CardView(
                key,
                text,
                record.index,
                record.trace_ms + record.lower_ms + record.compile_ms,
                sig=record.signature,
                number=number,
            )
            self.ever_compiled = True
            self.pulled = key
        elif record.kind is CallKind.CACHE_HIT and key is not None:
            card = self.cards.get(key)
            if card is not None:
                card.hits += 1
            self.pulled = key
        if record.reason is not None and (
            record.kind is not CallKind.COMPILE or self.last_reason_of is None
        ):
            self.last_reason_of = record.reason
        if record.error is not None:
            self.last_error = record

    # -- views ----------------------------------------------------------------------------
    @property
    def recompiling(self) -> bool:
        """A miss after this run already compiled once: the alarm-coloured re-rehearsal."""
        return self.ever_compiled and self.phase in (Phase.REHEARSING, Phase.WRITING)

    def set_cap(self, cap: int) -> None:
        """Keep at most ``cap`` records per list from now on (counts stay exact)."""
        self.cap = max(1, int(cap))
        self.records.set_cap(self.cap)
        for segment in self.segments:
            segment.records.set_cap(self.cap)

    @property
    def calls(self) -> int:
        """Exact number of calls of this scenario (``len(records)`` says the same)."""
        return self.totals.calls

    def summary(self) -> Summary:
        return self.totals.summary()

    def segment_summary(self) -> Summary:
        return self.segments[-1].summary()

    def latest(self, variant: str) -> Segment | None:
        """The newest run of ``variant`` that made calls (for the pitfall-vs-fix summary)."""
        for segment in reversed(self.segments):
            if segment.variant == variant and segment.records:
                return segment
        return None
