"""A probe's records and totals: the newest ``max_records`` records, the notable ones, the
steady hits not filed yet, and the running totals over every call filed. JAX-free; every
method but the constructor runs with the probe's lock held. (The calls' numbering is the
probe's own: its hot path counts each hit there, see ``Probe._calls``.)

Not :class:`jitlab.records.history.History`: a hit filed late by another thread is inserted
in call order, a hit waiting for its card and a hit served by another probe's executable are
rewritten in place, and ``Probe.records`` has always been a plain list.
"""

from __future__ import annotations

import bisect
import collections
import operator
import sys
from collections.abc import Callable, Hashable
from typing import Any

from jitlab.probe.cards import Card
from jitlab.records.calls import CallKind, CallRecord, Summary
from jitlab.records.history import Tally

_HIT = CallKind.CACHE_HIT
SETTLE_AT = 1024  # steady hits left unfiled at most (see RecordStore.settle)
_index_of = operator.attrgetter("index")
# CallRecord without its Python-level __new__ (all fields given). tuple.__new__'s overloads
# are generic in the items: typed here as what it makes of CallRecord's.
_new_record: Callable[..., CallRecord] = tuple.__new__  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
_RECORD_HEAD: tuple[str, ...] = (
    *("index", "function", "kind", "latency_ms", "trace_ms"),
    *("lower_ms", "compile_ms", "signature", "card"),
)
assert CallRecord._fields[: len(_RECORD_HEAD)] == _RECORD_HEAD
# The fields of a hit record after ``card``, at their defaults.
_RECORD_TAIL = tuple(CallRecord._field_defaults[f] for f in CallRecord._fields[len(_RECORD_HEAD) :])

# A steady hit not filed yet: [index, signature, card, start, end], its end OPEN until its
# call returns (None: taken back). Made whole before the device's wait: after it the call
# only writes its end (no list grown while the interpreter runs cold).
Head = list[Any]
OPEN: Any = object()


class RecordStore:
    """The records one probe keeps, bounded (the oldest are dropped in slices), and its
    totals, exact over every call however few records are kept."""

    def __init__(self, name: str, keep: bool, max_records: int | None) -> None:
        self.name = name  # the function's name in every record made here
        self.keep = keep
        self.records: list[CallRecord] = []  # the newest max_records records
        self.notable: list[CallRecord] = []  # the newest max_records that are not plain hits
        self.dropped = 0  # dropped from the front of records to keep it bounded
        self.max_records = max_records
        cap = sys.maxsize if max_records is None else max(1, max_records)
        self.cap = cap
        self.slack = cap // 10  # trimmed this much below the cap: one slice per cap/10 calls
        self.last: CallRecord | None = None  # the newest record, even when not kept
        # Steady hits not filed yet (see Head). settle makes their records when someone
        # reads records or last, before any other call is filed, or a batch at a time.
        self.unfiled: collections.deque[Head] = collections.deque()
        self.waiting: list[tuple[Hashable, int]] = []  # hits whose card was not filed yet
        self.totals = Tally()  # every call filed by file() (hits are the calls left over)

    # -- totals ---------------------------------------------------------------------------
    def counts(self, calls: int) -> dict[CallKind, int]:
        """Calls per kind, exact over the probe's ``calls``: hits are the calls no other kind
        counts (hits only counted, and steady hits, are filed by no :meth:`file`)."""
        counts = self.totals.counts
        others = sum(n for kind, n in counts.items() if kind is not _HIT)
        return {**counts, _HIT: calls - others}

    def summary(self, calls: int) -> Summary:
        """Exact over the probe's ``calls`` (running totals), however few records are kept."""
        totals = self.totals
        return Summary.from_counts(
            self.counts(calls), calls, totals.trace_ms, totals.lower_ms, totals.compile_ms
        )

    def settle(self) -> None:
        """File the steady hits whose calls have returned, oldest first.

        A steady hit's record is made here, not in its call: after waiting for the device
        the interpreter runs cold, and even while the device computes (on a machine whose
        cores XLA's threads all use) each record cost ~2 % of a 200 µs step, where a batch
        made warm costs a fraction of that (benchmarks/probe_overhead.py).
        """
        unfiled = self.unfiled
        # Calls still in flight (or cut short on their way out): left unfiled.
        waiting: list[Head] = []
        while unfiled:
            head = unfiled.popleft()
            if head[4] is not OPEN:
                self.file_steady(head)
            else:
                waiting.append(head)
        unfiled.extend(waiting)

    def file_steady(self, head: Head) -> CallRecord | None:
        """The record of a steady hit whose call has returned."""
        index, signature, card, start, end = head
        if end is None:  # the device failed after dispatch: filed as an error instead
            return None
        latency_ms = (end - start) * 1e3
        fields = (index, self.name, _HIT, latency_ms, 0.0, 0.0, 0.0, signature, card)
        record: CallRecord = _new_record(CallRecord, (*fields, *_RECORD_TAIL))
        self.newest(record)
        if self.keep:
            self._keep_late(record)
        return record

    def newest(self, record: CallRecord) -> None:
        """``last`` is the record of the newest call filed so far: another thread's later
        call may have been filed first."""
        last = self.last
        if last is None or last.index < record.index:
            self.last = record

    def file(self, record: CallRecord) -> None:
        """Count and keep the record of a call filed now."""
        self.totals.add(record)
        self.newest(record)
        if self.keep:
            if self.unfiled:
                self.settle()
            records = self.records
            records.append(record)
            if len(records) > self.cap:
                self._trim()
            if record.kind is not _HIT:
                notable = self.notable
                notable.append(record)
                if len(notable) > self.cap:
                    del notable[: len(notable) - self.cap + self.slack]

    def file_hit(self, index: int, latency_ms: float, card: Card | None) -> CallRecord:
        """The record of a hit found by its key: :meth:`file`, minus what a hit leaves at
        zero."""
        fields: tuple[Any, ...]
        if card is None:
            fields = (index, self.name, _HIT, latency_ms, 0.0, 0.0, 0.0, None, None)
        else:
            fields = (index, self.name, _HIT, latency_ms, 0.0, 0.0, 0.0, card.signature, card.index)
        record: CallRecord = _new_record(CallRecord, (*fields, *_RECORD_TAIL))
        self.newest(record)
        if self.keep:
            if self.unfiled:
                self.settle()
            records = self.records
            records.append(record)
            if len(records) > self.cap:
                self._trim()
        return record

    def _keep_late(self, record: CallRecord) -> None:
        """Keep a hit filed before its block, in index order though another thread's call
        may have been filed first."""
        records = self.records
        if records and records[-1].index > record.index:
            at = bisect.bisect(records, record.index, key=_index_of)
            records.insert(at, record)
            if self.waiting:  # positions of hits waiting for their card move too
                self.waiting = [(k, i + (i >= at)) for k, i in self.waiting]
        else:
            records.append(record)
        if len(records) > self.cap:
            self._trim()

    def _trim(self) -> None:
        """Drop the oldest kept records, a slice at a time."""
        drop = len(self.records) - self.cap + self.slack
        del self.records[:drop]
        self.dropped += drop
        if self.waiting:  # positions of hits waiting for their card move with the list
            self.waiting = [(key, position - drop) for key, position in self.waiting]

    def since(self, calls: int) -> list[CallRecord]:
        """The kept records of calls made after the first ``calls``."""
        self.settle()
        records = self.records
        start = len(records)
        while start > 0 and records[start - 1].index >= calls:
            start -= 1
        return records[start:]

    # -- hits whose card was not filed yet --------------------------------------------------
    def wait_for_card(self, key: Hashable) -> None:
        """The newest hit ran on an executable another thread compiled and has not filed
        its card yet: it gets that card when the card is filed (see :meth:`card_filed`)."""
        self.waiting.append((key, len(self.records) - 1 if self.keep else -1))
        del self.waiting[:-1000]

    def card_filed(self, card: Card) -> None:
        """File the hits that ran on ``card``'s executable before the card existed."""
        if not self.waiting:
            return
        still: list[tuple[Hashable, int]] = []
        records = self.records
        for key, position in self.waiting:
            if key != card.key:
                still.append((key, position))
                continue
            card.hits += 1
            if 0 <= position < len(records):
                records[position] = records[position]._replace(
                    signature=card.signature, card=card.index
                )
        self.waiting = still

    def replace_newest(self, record: CallRecord, by: CallRecord) -> None:
        """``record``, just filed, is ``by`` instead (wherever it is kept)."""
        records = self.records
        if self.keep and records and records[-1] is record:
            records[-1] = by
        if self.last is record:
            self.last = by
