"""A probe's books: how its calls are numbered, counted and filed, off the hot path.

:class:`Bookkeeping` is a part of :class:`jitlab.probe.probe.Probe` (a base, above
:class:`~jitlab.probe.binding.Binding`): it owns the numbering of calls (``_calls``, with the
hits only counted lock-free and folded in), the record store's settings (``name``,
``keep_records``, ``max_records``), and every way a call gets into the ledger and the store
but a steady hit (the hot path files those): a hit found by its key, a call that compiled,
failed or ran eagerly (told by :class:`~jitlab.probe.filing.Filing`), a steady hit taken back,
a record adopted from another process, grad's backward pass; and the end of a call routed at
JAX's Python dispatch (its output given back, a slow dispatch counted). Methods marked "lock
held" expect the ledger's lock taken; the others take it.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Hashable
from typing import Any

from jitlab.probe import _jax, diagnosing, filing, monitor
from jitlab.probe.binding import Binding
from jitlab.probe.cards import Card, tally
from jitlab.probe.store import Head, RecordStore
from jitlab.records.calls import CallKind, CallRecord, Change, Reason, Signature
from jitlab.records.changes import ChangeKind

__all__ = ["Bookkeeping"]

_HIT = CallKind.CACHE_HIT
_TRACE_STATE, _EVAL_TRACE = _jax.TRACE_STATE, _jax.EVAL_TRACE


class Bookkeeping(Binding):
    """Numbers, counts and files a probe's calls (see the module's docstring)."""

    # Set by the probe's __init__ (see Probe.__init__ for what each is).
    keep_going: bool
    on_record: Callable[[CallRecord], None] | None
    _store: RecordStore
    _calls: int
    _unrecorded: itertools.count[int]
    _folded: int
    _diagnoses: diagnosing.ProbeDiagnoses | None
    _dispatches: diagnosing.SlowDispatch | None
    _spares: threading.local
    _steady: Any  # the probe's steady path (Probe._steady)
    _key: Callable[[tuple[Any, ...], dict[str, Any]], Hashable | None]

    @property
    def name(self) -> str:
        return self._store.name

    @name.setter
    def name(self, value: str) -> None:
        self._store.name = value

    @property
    def keep_records(self) -> bool:
        return self._store.keep

    @keep_records.setter
    def keep_records(self, value: bool) -> None:
        self._store.keep = value

    @property
    def max_records(self) -> int | None:
        return self._store.max_records

    def _fold(self) -> int:
        """Count the hits tallied lock-free into ``_calls``; returns it (lock held)."""
        counted = tally(self._unrecorded)
        self._calls += counted - self._folded
        self._folded = counted
        return self._calls

    def _next_index(self) -> int:
        """The index of a call filed now (lock held)."""
        index = self._fold()
        self._calls = index + 1
        return index

    def _file(self, record: CallRecord) -> None:
        """File one call's record in the ledger and the store (counts, kept records); a
        compile also goes to the diagnosers (lock held)."""
        self.ledger.filed.add(record)
        self._store.file(record)
        if record.kind.compiled and self._diagnoses is not None:  # the compile path only
            self._diagnoses.compiled(record, self._fn)

    def _end_routed(
        self, collector: monitor.CallCollector, jit_off: bool, error: BaseException | None
    ) -> None:
        """End a call routed to its collector (stdout, explanations), after its block so a
        host callback printing meanwhile is the call's; a hit JAX ran in Python is counted
        by cause for slow-dispatch."""
        if (
            self._dispatches is not None
            and collector.lazy
            and not (jit_off or collector.traced or error is not None)
            and _TRACE_STATE.value is _EVAL_TRACE
        ):
            # Routed at dispatch, nothing traced: a hit JAX ran in Python (a hit C++ ran
            # alone is never routed, never gets here).
            cause = diagnosing.hit_cause()
            if cause is not None:
                site = self._diagnoses.site if self._diagnoses is not None else None
                self._dispatches.count(self.name, site, cause)
        try:
            monitor.unroute_call(collector)
        except BaseException:  # a Ctrl-C raised on entry: sys.stdout must come back
            monitor.unroute_call(collector)
            raise

    def _keyed_hit(
        self, latency_ms: float, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any
    ) -> Any:
        """File a hit on several cards, or after JAX's cache changed: its card is found by
        its key. Returns the call's result."""
        # No card at all: JAX served it from a cache filled before we watched — or from the
        # first compile, which another thread has not filed yet.
        key = self._key(args, kwargs)
        with self._lock:
            held = self._held
            card = held.by_key.get(key)
            if card is None and key is not None:
                card = held.equivalent(key, self.ledger.cards, self._jax_entries())
            record = self._hit(latency_ms, card)
            if card is None and key is not None and self._cache_id is not None:
                record = self._filing.served_elsewhere(record, key)
            if card is None and key is not None and record.reason is None:
                # Another thread compiled this signature and has not filed its card yet:
                # the hit is filed when the card is (see RecordStore.card_filed).
                self._store.wait_for_card(key)
        if self.on_record is not None:
            self.on_record(record)
        return result

    def _hit(self, latency_ms: float, card: Card | None) -> CallRecord:
        """Number and count a hit found by its key, and file its record (lock held)."""
        index = self._calls
        self._calls = index + 1
        filed = self.ledger.filed
        filed.calls += 1
        filed.counts[_HIT] += 1
        if card is not None:
            card.hits += 1
        return self._store.file_hit(index, latency_ms, card)

    def _take_back(self, head: Head, card: Card) -> None:
        """Undo a steady hit filed before its block, which then failed or was interrupted."""
        with self._lock:
            self.ledger.steady_hits -= 1
            card.hits -= 1
            head[4] = None  # settle skips it
            self._store.settle()

    def _file_call(
        self,
        collector: monitor.CallCollector,
        latency_ms: float,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        error: BaseException | None,
        result: Any,
        index: int | None,
    ) -> Any:
        """File a call that compiled, failed or ran eagerly, and end it as the call would."""
        # Taken from the spares (and the steady path) until filed: a callback may call this
        # probe again.
        self._spares.collector = None
        self._steady = None
        with self._lock:
            if index is None:
                index = self._next_index()
            record = self._filing.record(index, collector, latency_ms, args, kwargs, error, result)
            if record.kind.compiled:  # its fate in JAX's persistent cache, if one is on
                loaded = record.kind is CallKind.PERSISTENT_HIT
                fate = monitor.persistent_fate(collector.trace_name, loaded)
                if fate is not None:
                    record = record._replace(persistent=fate)
            self._file(record)
        collector.reset()
        self._spares.collector = collector
        if self.on_record is not None:
            self.on_record(record)
        if error is not None:
            if not (self.keep_going and isinstance(error, Exception)):
                raise error
            # A call that failed while waited for (a device or callback error arriving with
            # the result, as on a TPU) returns what any failed call returns: no result.
            return None
        return result

    def adopt(self, record: CallRecord) -> CallRecord:
        """File a record made elsewhere (a call in a fresh process) in this probe's ledger.

        It is renumbered as this probe's next call; a compiled one adds a card unless a card
        with the same signature is already held.
        """
        with self._lock:
            record = record._replace(index=self._next_index(), function=self.name)
            held = self._held
            held.exact = False  # a card with no executable in this process
            ledger = self.ledger
            if record.kind.compiled and record.signature is not None:
                key = ("adopted", record.signature)
                card = held.by_key.get(key)
                if card is None:
                    cost_ms = record.trace_ms + record.lower_ms + record.compile_ms
                    card = Card(len(ledger.cards), record.signature, key, record.index, cost_ms)
                    ledger.cards.append(card)
                    held.by_key[key] = card
                ledger.ever_compiled = True
                record = record._replace(card=card.index)
            self._file(record)
        return record

    def backward_signature(self, avals: tuple[Any, ...]) -> Signature:
        """The signature JAX compiled grad's backward pass (transpose) of this function for."""
        return filing.backward_signature(avals, self._generation)

    def file_backward(
        self, lower_ms: float, compile_ms: float, avals: tuple[Any, ...], path: str = "transpose"
    ) -> None:
        """File the executable JAX compiled for this function after the probed call that ran
        under grad or ``jax.linearize`` returned: its backward pass (``path`` ``transpose``)
        or its linear part, as the function ``jax.linearize`` returned is applied
        (``linear``); or, after a call staged into ``jax.checkpoint``'s trace, the program
        its eager run compiled (``remat``). A program of this function under that
        transformation: a recompile unless it is the function's first."""
        sig = self.backward_signature(avals)
        change = Change(ChangeKind.TRANSFORMED, path, after=str(sig), count=1)
        with self._lock:
            ledger = self.ledger
            first = not (ledger.ever_compiled or ledger.transformed)
            ledger.transformed.setdefault((path, str(sig)), self._generation)
            self._held.compiles += 1
            record = CallRecord(
                index=self._next_index(),
                function=self.name,
                kind=CallKind.COMPILE if first else CallKind.RECOMPILE,
                latency_ms=lower_ms + compile_ms,
                lower_ms=lower_ms,
                compile_ms=compile_ms,
                signature=sig,
                reason=Reason((change,)),
            )
            self._file(record)
        if self.on_record is not None:
            self.on_record(record)
