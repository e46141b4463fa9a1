"""The probe: call a jitted function and record exactly what JAX did for that call."""

from __future__ import annotations

import bisect
import collections
import dataclasses
import inspect
import itertools
import operator
import sys
import threading
import time
import types
import weakref
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import jax

from jitlab.probe import _jax, explain, monitor, scripts, signature, sites, wrappers
from jitlab.records.calls import (
    CallKind,
    CallRecord,
    Change,
    ErrorInfo,
    LeafSpec,
    OutputLine,
    Reason,
    Signature,
    Summary,
)
from jitlab.records.changes import ChangeKind

PhaseCallback = Callable[[str, float], None]
_HIT = CallKind.CACHE_HIT
DEFAULT_MAX_RECORDS = 100_000

# The hot path of a cache hit, bound once (each saves an attribute lookup per call).
_tls = monitor._local  # this thread's collector of the call in flight (events go there)
_route_stdout = monitor._route_stdout
_unroute_stdout = monitor._unroute_stdout
_swap_explain = monitor._swap_explain
_set_explain = monitor._set_explain
_listeners_now = monitor.listeners_now
_LISTENING = monitor.LISTENING
_disable_jit = _jax.DISABLE_JIT  # thread-aware, unlike jax.config.jax_disable_jit
# This thread's innermost trace: JAX's eval trace unless inside a transformation.
_TRACE_STATE, _EVAL_TRACE = _jax.TRACE_STATE, _jax.EVAL_TRACE
_clock = time.perf_counter
_index_of = operator.attrgetter("index")
_SETTLE_AT = 1024  # steady hits left unfiled at most (see Probe._settle)
_new_record = tuple.__new__  # CallRecord without its Python-level __new__ (all fields given)
_RECORD_HEAD = ("index", "function", "kind", "latency_ms", "trace_ms", "lower_ms")
_RECORD_HEAD += ("compile_ms", "signature", "card")
assert CallRecord._fields[: len(_RECORD_HEAD)] == _RECORD_HEAD
# The fields of a hit record after ``card``, at their defaults.
_RECORD_TAIL = tuple(CallRecord._field_defaults[f] for f in CallRecord._fields[len(_RECORD_HEAD) :])


def _tally(counter: itertools.count[int]) -> int:
    """How many times ``next`` was called on a fresh ``itertools.count()``.

    ``next`` on it is atomic under the GIL: hits that are only counted need no lock.
    """
    return int(repr(counter)[6:-1])  # "count(N)"


@dataclass
class Card:
    """One compiled signature in the function's card holder (its in-memory jit cache)."""

    index: int
    signature: Signature
    key: Hashable = field(repr=False)
    created_by: int  # index of the call that compiled it
    compile_ms: float  # trace + lower + compile (or load) time that made it
    hits: int = 0
    context: tuple[Any, ...] = field(default=(), repr=False)  # JAX's trace context then
    # Per traced leaf, was the array committed to its device (jit lowers a committed one with
    # its sharding, an uncommitted one without)? Read on compiles only, for Probe.script.
    committed: tuple[bool, ...] | None = field(default=None, repr=False, compare=False)
    # (created_by, Script) once asked for (Probe.script): made again if the card is rewritten.
    script_cache: Any = field(default=None, repr=False, compare=False)


@dataclass
class Ledger:
    """Per-function bookkeeping: the card holder, counts per kind, time spent compiling."""

    cards: list[Card] = field(default_factory=list)
    # Calls filed under the lock, by kind; hits only counted (Probe(record_hits=False)) are
    # tallied lock-free in unrecorded_hits. ``counts`` adds them up.
    filed: dict[CallKind, int] = field(default_factory=lambda: {k: 0 for k in CallKind})
    trace_ms: float = 0.0
    lower_ms: float = 0.0
    compile_ms: float = 0.0
    ever_compiled: bool = False
    retired: list[Card] = field(default_factory=list)  # cards dropped by a cache clear
    # generation -> wrappers.cache_identity of that function object (kind, function, jit
    # options): tells "jitted again with other options" from a new function object.
    instances: dict[int, Any] = field(default_factory=dict, repr=False, compare=False)
    # Probes that share a ledger (instances of one definition site) share its lock too.
    lock: Any = field(default_factory=threading.RLock, repr=False, compare=False)
    unrecorded_hits: itertools.count[int] = field(
        default_factory=itertools.count, repr=False, compare=False
    )
    steady_hits: int = field(default=0, repr=False)  # hits on the only card (under the lock)

    @property
    def counts(self) -> dict[CallKind, int]:
        """Calls per kind, exact over every call of every probe sharing this ledger."""
        counts = dict(self.filed)
        counts[_HIT] += self.steady_hits + _tally(self.unrecorded_hits)
        return counts

    @property
    def calls(self) -> int:
        return sum(self.counts.values())

    @property
    def time_lost_ms(self) -> float:
        return self.trace_ms + self.lower_ms + self.compile_ms


def _is_jitted(fn: Any) -> bool:
    """jax.jit, flax.nnx.jit, equinox.filter_jit or jax.pmap (raises TypeError for
    wrappers that cannot be probed; see :mod:`jitlab.probe.wrappers`)."""
    return wrappers.recognise(fn) is not None


def _function_name(fun: Any) -> str:
    """The name JAX puts in its compile events (``f`` for trace, ``jit(f)`` for lowering)."""
    return wrappers._fun_name(fun)


class Probe:
    """Wraps a jitted function; every call returns its result and appends a CallRecord.

    ``Probe(jax.jit(f))`` probes an existing jitted function; ``Probe(f, static_argnames=...)``
    jits a plain function for you. The probe blocks until the result is ready so that
    ``latency_ms`` measures the work, not just the asynchronous dispatch.

    ``records`` keeps at most ``max_records`` of the newest records (None: all of them), and
    ``notable`` as many of the newest ones that are not plain cache hits (compiles,
    recompiles, errors…); the oldest are dropped in slices. Counts stay exact over every
    call: :meth:`summary`, :attr:`calls` and ``ledger.counts`` are running totals.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        static_argnums: int | Sequence[int] | None = None,
        static_argnames: str | Sequence[str] | None = None,
        name: str | None = None,
        keep_going: bool = False,
        on_phase: PhaseCallback | None = None,
        echo_output: bool = False,
        keep_records: bool = True,
        on_record: Callable[[CallRecord], None] | None = None,
        block: bool = True,
        record_hits: bool = True,
        capture_output: bool = True,
        ledger: Ledger | None = None,
        generation: int = 0,
        max_records: int | None = DEFAULT_MAX_RECORDS,
        **jit_kwargs: Any,
    ) -> None:
        if _is_jitted(fn):
            if static_argnums is not None or static_argnames is not None or jit_kwargs:
                raise TypeError(
                    "this function is already jitted: pass static_argnums/static_argnames "
                    "to jax.jit, or give Probe the plain function"
                )
            jitted = fn
        else:
            jitted = jax.jit(
                fn, static_argnums=static_argnums, static_argnames=static_argnames, **jit_kwargs
            )
        self.keep_going = keep_going
        self.on_phase = on_phase
        self.echo_output = echo_output
        self.keep_records = keep_records
        self.on_record = on_record
        # Blocking makes latency_ms the real cost of the call; watching a program must not
        # block, or it would break the asynchronous pipelining the program relies on.
        self.block = block
        # False: cache hits only bump ledger.counts (no record, no on_record call).
        self.record_hits = record_hits
        # False: printed text is neither captured nor tagged, and explanations come from
        # JAX's global switch (a watch turns it on for its whole block): the cheapest call.
        self.capture_output = capture_output
        self._records: list[CallRecord] = []  # the newest max_records records
        self.notable: list[CallRecord] = []  # the newest max_records that are not plain hits
        self.dropped_records = 0  # dropped from the front of records to keep it bounded
        self.max_records = max_records
        cap = sys.maxsize if max_records is None else max(1, max_records)
        self._cap = cap
        self._slack = cap // 10  # trimmed this much below the cap: one slice per cap/10 calls
        self._last: CallRecord | None = None  # the newest record, even when not kept
        # Steady hits not filed yet: [index, signature, card, start] plus the end time once
        # the call returned (None: taken back). _settle makes their records when someone
        # reads records or last, before any other call is filed, or a batch at a time.
        self._unfiled: collections.deque[list[Any]] = collections.deque()
        self._calls = 0  # calls filed under the lock (plus unrecorded hits folded in)
        # Hits only counted (record_hits=False): next() on it, lock-free; see _fold.
        self._unrecorded = itertools.count()
        self._folded = 0
        # Running totals over every call (summary() is exact however many records are kept).
        self._kinds = {k: 0 for k in CallKind}
        self._phase_ms = [0.0, 0.0, 0.0]  # trace, lower, compile
        # A shared ledger: several function objects that are one function to the user (the
        # same code jitted again); each instance gets its own generation.
        self.ledger = ledger if ledger is not None else Ledger()
        self._lock = self.ledger.lock
        self._generation = generation
        self._by_key: dict[Hashable, Card] = {}
        self._waiting: list[tuple[Hashable, int]] = []  # hits whose card was not filed yet
        self._in_flight: list[None] = []
        self._compiles = 0  # executables this probe saw made (moves on every compile record)
        self._entries_after_compile = -2  # JAX's cache size after our last compile
        self._spares = threading.local()  # one reusable collector per calling thread
        self._unrecorded_ledger = self.ledger.unrecorded_hits
        self._bind(jitted)
        self._note_instance()
        self.name = name or self.wrapper.name  # the user's (pmap's events say _fun)
        monitor.install()

    def _bind(self, jitted: Callable[..., Any]) -> None:
        info = wrappers.recognise(jitted)
        assert info is not None  # callers jit plain functions first
        self._fn = jitted
        self.wrapper = info  # kind, the user's function, JAX's event name, argument split
        self._trace_name = info.trace_name
        self._statics = info.spec
        # JAX's cache size through the wrapper, looked up once: the hot path calls it directly.
        self._jax_entries = wrappers.cache_size(info)  # type: ignore[method-assign]
        self._cache_id = wrappers.cache_identity(info)
        if self._cache_id is not None:
            if len(_sharing) > 256:  # identities whose probes are all gone
                for gone in [k for k, probes in _sharing.items() if not probes]:
                    del _sharing[gone]
            _sharing.setdefault(self._cache_id, weakref.WeakSet()).add(self)

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        """``@Probe`` on a method binds like ``@jax.jit`` does: ``m.fwd(x)`` calls this
        probe with ``(m, x)`` — one probe, one ledger for every instance."""
        if instance is None:
            return self
        return types.MethodType(self, instance)

    @property
    def function(self) -> Callable[..., Any]:
        """The jitted callable being probed."""
        return self._fn

    def swap(self, fn: Callable[..., Any]) -> None:
        """Probe a new function object from now on, keeping the same ledger.

        Used to show what happens when code builds a new ``lambda``/``partial``/``jax.jit``
        every call: JAX sees a function it has never traced.
        """
        before = self._cache_id
        self._bind(fn if _is_jitted(fn) else jax.jit(fn))
        if before is None or self._cache_id != before:
            # A new function object (same function and options: JAX's cache is shared).
            self._generation += 1
            self._note_instance()

    def _note_instance(self) -> None:
        instances = self.ledger.instances
        instances[self._generation] = self._cache_id
        if len(instances) > 128:  # a closure re-jitted every step: the newest are compared
            for old in sorted(instances)[:64]:
                del instances[old]

    def clear_cache(self) -> None:
        """Empty JAX's caches for this function and the card holder (``jax.clear_caches``)."""
        jax.clear_caches()
        with self._lock:
            self.ledger.retired.extend(self.ledger.cards)
            self.ledger.cards = []
            self._by_key.clear()

    @property
    def calls(self) -> int:
        """Every call this probe made, recorded or only counted."""
        with self._lock:
            self._fold()
            return self._calls

    @property
    def records(self) -> list[CallRecord]:
        """The newest ``max_records`` records, in call order."""
        if self._unfiled:
            with self._lock:
                self._settle()
        return self._records

    @property
    def last(self) -> CallRecord | None:
        """The newest record, even when records are not kept."""
        if self._unfiled:
            with self._lock:
                self._settle()
        return self._last

    def _settle(self) -> None:
        """File the steady hits whose calls have returned, oldest first (lock held).

        A steady hit's record is made here, not in its call: after waiting for the device
        the interpreter runs cold, and even while the device computes (on a machine whose
        cores XLA's threads all use) each record cost ~2 % of a 200 µs step, where a batch
        made warm costs a fraction of that (benchmarks/probe_overhead.py).
        """
        unfiled = self._unfiled
        waiting = []  # calls still in flight (or cut short on their way out): left unfiled
        while unfiled:
            head = unfiled.popleft()
            if len(head) == 5:
                self._file_steady(head)
            else:
                waiting.append(head)
        unfiled.extend(waiting)

    def _file_steady(self, head: list[Any]) -> CallRecord | None:
        """The record of a steady hit whose call has returned (lock held)."""
        index, signature, card, start, end = head
        if end is None:  # the device failed after dispatch: filed as an error instead
            return None
        latency_ms = (end - start) * 1e3
        fields = (index, self.name, _HIT, latency_ms, 0.0, 0.0, 0.0, signature, card)
        record = _new_record(CallRecord, (*fields, *_RECORD_TAIL))
        self._newest(record)
        if self.keep_records:
            self._keep(record)
        return record

    def _newest(self, record: CallRecord) -> None:
        """``last`` is the record of the newest call filed so far (lock held): another
        thread's later call may have been filed first."""
        last = self._last
        if last is None or last.index < record.index:
            self._last = record

    def summary(self) -> Summary:
        """Exact over every call (running totals), however few records are kept."""
        with self._lock:
            self._fold()
            kinds = self._kinds
            calls = self._calls
            others = sum(n for kind, n in kinds.items() if kind is not _HIT)
            counts = {**kinds, _HIT: calls - others}  # hits only counted are hits too
            return Summary.from_counts(counts, calls, *self._phase_ms)

    def records_since(self, calls: int) -> list[CallRecord]:
        """The kept records of calls made after the first ``calls`` (see :attr:`calls`)."""
        with self._lock:
            self._settle()
            records = self._records
            start = len(records)
            while start > 0 and records[start - 1].index >= calls:
                start -= 1
            return records[start:]

    def _fold(self) -> None:
        """Count the hits tallied lock-free into ``_calls`` (call with the lock held)."""
        tally = _tally(self._unrecorded)
        self._calls += tally - self._folded
        self._folded = tally

    def _file(self, record: CallRecord) -> None:
        """Running totals and kept records of one filed call (lock held)."""
        self._newest(record)
        self._kinds[record.kind] += 1
        totals = self._phase_ms
        totals[0] += record.trace_ms
        totals[1] += record.lower_ms
        totals[2] += record.compile_ms
        if self.keep_records:
            if self._unfiled:
                self._settle()
            records = self._records
            records.append(record)
            if len(records) > self._cap:
                self._trim()
            if record.kind is not _HIT:
                notable = self.notable
                notable.append(record)
                if len(notable) > self._cap:
                    del notable[: len(notable) - self._cap + self._slack]

    def _keep(self, record: CallRecord) -> None:
        """Keep a hit filed before its block, in index order though another thread's call
        may have been filed first (lock held)."""
        records = self._records
        if records and records[-1].index > record.index:
            at = bisect.bisect(records, record.index, key=_index_of)
            records.insert(at, record)
            if self._waiting:  # positions of hits waiting for their card move too
                self._waiting = [(k, i + (i >= at)) for k, i in self._waiting]
        else:
            records.append(record)
        if len(records) > self._cap:
            self._trim()

    def _trim(self) -> None:
        """Drop the oldest kept records, a slice at a time (lock held)."""
        drop = len(self._records) - self._cap + self._slack
        del self._records[:drop]
        self.dropped_records += drop
        if self._waiting:  # positions of hits waiting for their card move with the list
            self._waiting = [(key, position - drop) for key, position in self._waiting]

    def adopt(self, record: CallRecord) -> CallRecord:
        """File a record made elsewhere (a call in a fresh process) in this probe's ledger.

        It is renumbered as this probe's next call; a compiled one adds a card unless a card
        with the same signature is already held.
        """
        with self._lock:
            self._fold()
            record = record._replace(index=self._calls, function=self.name)
            self._calls += 1
            ledger = self.ledger
            ledger.filed[record.kind] += 1
            ledger.trace_ms += record.trace_ms
            ledger.lower_ms += record.lower_ms
            ledger.compile_ms += record.compile_ms
            if record.kind.compiled and record.signature is not None:
                key = ("adopted", record.signature)
                card = self._by_key.get(key)
                if card is None:
                    card = Card(
                        len(ledger.cards),
                        record.signature,
                        key,
                        record.index,
                        record.trace_ms + record.lower_ms + record.compile_ms,
                    )
                    ledger.cards.append(card)
                    self._by_key[key] = card
                ledger.ever_compiled = True
                record = record._replace(card=card.index)
            self._file(record)
        return record

    # -- cards and their scripts ----------------------------------------------------------
    def card(self, index: int) -> Card:
        """The card numbered ``index`` (``CallRecord.card``) in the card holder."""
        with self._lock:
            for card in self.ledger.cards:
                if card.index == index:
                    return card
            numbers = ", ".join(str(c.index) for c in self.ledger.cards) or "none"
        raise KeyError(f"{self.name} holds no card {index} (cards: {numbers})")

    def script(self, card: int | Card, *, stablehlo: bool = True) -> scripts.Script:
        """The program JAX compiled for this card: source, jaxpr, StableHLO, HLO, figures.

        Made on first request from the card's abstract signature and kept with the card.
        Asking never changes what the probe records (see :mod:`jitlab.probe.scripts`).
        ``stablehlo=False`` may leave the StableHLO text out (it is then printed when asked
        for: ``scripts.STABLEHLO_ON_REQUEST``); a script kept without it is made again in
        full when it is asked for with it, and a full one serves both.
        """
        held = self.card(card) if isinstance(card, int) else card
        cached = held.script_cache
        fresh = cached is not None and cached[0] == held.created_by
        if fresh and not (stablehlo and cached[1].stablehlo_deferred):
            return cached[1]
        made = (
            scripts.make_script(self, held)
            if stablehlo
            else scripts.make_script(self, held, stablehlo=False)
        )
        held.script_cache = (held.created_by, made)
        return made

    # -- the call -------------------------------------------------------------------------
    def _spare(self) -> monitor.CallCollector:
        """This thread's collector for this probe, reused across calls: a cache hit leaves
        it untouched, anything else is reset once filed."""
        collector = monitor.CallCollector(self._trace_name, None, False, source=self)
        self._spares.collector = collector
        return collector

    def _inlined(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Called while another probed call is in flight on this thread, i.e. while that
        function is being traced: we are inlined into its trace, not dispatched."""
        collector = monitor.CallCollector(self._trace_name, None, False, source=self)
        previous = monitor.begin(collector)
        try:
            return self._fn(*args, **kwargs)
        finally:
            monitor.end(collector, previous)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # The hot path is a cache hit, where JAX fires nothing: do only what a hit needs and
        # leave everything else (keys, signatures, reasons) to the calls that compile.
        if getattr(_tls, "collector", None) is not None:
            return self._inlined(args, kwargs)
        if _listeners_now() is not _LISTENING[0]:  # cleared by the program: see monitor.revive
            monitor.revive()
        collector = getattr(self._spares, "collector", None)
        if collector is None or not collector.quiet or collector.trace_name is not self._trace_name:
            collector = self._spare()  # first call on this thread, an interrupted call, swap()
        # monitor.begin, inlined: route this thread's events, stdout and explanations to us.
        _tls.collector = collector
        capture = self.capture_output
        if capture:
            _route_stdout(collector)
            collector.user_explain = _swap_explain(True)
        error: BaseException | None = None
        result = None
        track = self.record_hits  # a hit only counted needs no card: nothing to track
        if track:
            entries = self._jax_entries()
            # Calls in flight on this probe, on any thread (list append/pop are atomic):
            # another thread's compile may add the executable this call then hits.
            flight = self._in_flight
            flight.append(None)
            lone = len(flight) == 1
            compiles = self._compiles
        start = _clock()
        plain = False  # a cache hit (nothing compiled, no error, not eager)
        # A steady hit, filed before the block: [index, signature, card, start], and its end
        # time once the call returns (see _settle).
        head: list[Any] | None = None
        try:
            try:
                result = self._fn(*args, **kwargs)
            except Exception as exc:
                error = exc
            finally:
                # Dispatched: JAX has traced, compiled and picked its executable; only the
                # device's work is left. Do now all that does not need it, while it
                # computes: after the wait, the interpreter runs cold and every step costs
                # several times more (benchmarks/probe_overhead.py).
                if capture:
                    _set_explain(collector.user_explain)  # explanations come at dispatch
                _tls.collector = None
                if track:
                    lone = lone and len(flight) == 1 and compiles == self._compiles
                    flight.pop()
            plain = error is None and collector.quiet and not _disable_jit.value
            if plain and track:
                # Steady state: one card, and JAX's cache unchanged since we saw it
                # compile (and during this dispatch: another thread may have compiled
                # meanwhile), so this hit used that card. No key needed.
                ledger = self.ledger
                cards = ledger.cards
                if (
                    lone
                    and len(cards) == 1
                    and entries == self._entries_after_compile
                    and self._jax_entries() == entries
                ):
                    card = cards[0]
                    deferred = self.on_record is None  # else the record is wanted at once
                    # `with`, not acquire/release: a Ctrl-C between the two would leave the
                    # lock held and the next call hung.
                    with self._lock:
                        index = self._calls
                        self._calls = index + 1
                        ledger.steady_hits += 1
                        card.hits += 1
                        head = [index, card.signature, card.index, start]
                        if deferred:
                            unfiled = self._unfiled
                            unfiled.append(head)
                            if len(unfiled) > _SETTLE_AT:  # bounded: file a batch, warm
                                self._settle()
            if self.block and error is None:
                try:
                    # No AttributeError raised and caught on every call of a function that
                    # returns a pytree (a training step): after the wait, it would run cold.
                    wait = getattr(result, "block_until_ready", None)
                    if wait is not None:
                        wait()
                    else:  # a pytree of results, a Python scalar, or tracers
                        jax.block_until_ready(result)
                        if plain and _TRACE_STATE.value is not _EVAL_TRACE:
                            # Called inside a transformation (an eager scan's body, vmap,
                            # grad): not a plain hit on a card. _slow files what JAX did.
                            plain = False
                except Exception as exc:  # failed on the device: an error, not a hit
                    error = exc
                    plain = False
        except BaseException as exc:  # interrupted (Ctrl-C) while waiting: no hit
            if head is None:
                raise
            error = exc  # filed as what it is below, then raised again
            plain = False
        finally:
            end = _clock()
            if plain and head is not None:
                head.append(end)  # all a steady hit does after its wait: _settle files it
            if capture:  # after the block: jax.debug.print runs while the device computes
                try:
                    _unroute_stdout(collector)
                except BaseException:  # a Ctrl-C raised on entry: sys.stdout must come back
                    _unroute_stdout(collector)
                    raise
        if plain:
            if head is not None:
                if deferred:
                    return result
                with self._lock:
                    record = self._file_steady(head)
            elif not track:  # counted, not recorded (watching a long program)
                next(self._unrecorded)
                next(self._unrecorded_ledger)
                return result
            else:
                record = self._keyed_hit((end - start) * 1e3, args, kwargs)
            if self.on_record is not None:
                self.on_record(record)
            return result
        if head is not None:  # filed as a hit before the device failed: take it back
            self._take_back(head, card)
        index = None if head is None else head[0]
        return self._file_call(collector, (end - start) * 1e3, args, kwargs, error, result, index)

    def counted_call(self, *args: Any, **kwargs: Any) -> Any:
        """``__call__`` for a probe whose hits are only counted, with no output captured and
        no wait (a watch): a hit costs a thread-local set and two counts. Anything else is
        filed as ``__call__`` files it."""
        if getattr(_tls, "collector", None) is not None:
            return self._inlined(args, kwargs)
        collector = getattr(self._spares, "collector", None)
        if collector is None or not collector.quiet or collector.trace_name is not self._trace_name:
            collector = self._spare()
        _tls.collector = collector  # JAX's compile events during the call are ours
        error: Exception | None = None
        result = None
        start = _clock()
        try:
            result = self._fn(*args, **kwargs)
        except Exception as exc:
            error = exc
        finally:
            _tls.collector = None
        # Not inside a transformation (an eager scan's body, an outer jit, grad, vmap): a
        # call staged there ran nothing of this function's own; _slow files what JAX did.
        if (
            error is None
            and collector.quiet
            and _TRACE_STATE.value is _EVAL_TRACE
            and not _disable_jit.value
        ):
            next(self._unrecorded)  # lock-free counts, folded in by _fold
            next(self._unrecorded_ledger)
            return result
        latency_ms = (_clock() - start) * 1e3
        return self._file_call(collector, latency_ms, args, kwargs, error, result, None)

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
        # Taken from the spares until filed: a callback may call this probe again.
        self._spares.collector = None
        record = self._record(collector, latency_ms, args, kwargs, error, index, result)
        collector.reset()
        self._spares.collector = collector
        if self.on_record is not None:
            self.on_record(record)
        if error is not None and not (self.keep_going and isinstance(error, Exception)):
            raise error
        return result

    def _take_back(self, head: list[Any], card: Card) -> None:
        """Undo a steady hit filed before its block, which then failed or was interrupted."""
        with self._lock:
            self.ledger.steady_hits -= 1
            card.hits -= 1
            head.append(None)  # _settle skips it
            self._settle()

    def _record(
        self,
        collector: monitor.CallCollector,
        latency_ms: float,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        error: BaseException | None,
        index: int | None = None,
        result: Any = None,
    ) -> CallRecord:
        """File a call that compiled, failed or ran eagerly (``index``: already taken)."""
        with self._lock:
            self._fold()
            if index is None:
                index = self._calls
                self._calls += 1
            record = self._slow(index, collector, latency_ms, args, kwargs, error, result)
            self.ledger.filed[record.kind] += 1
            self._file(record)
        return record

    def _keyed_hit(
        self, latency_ms: float, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> CallRecord:
        """A hit when there are several cards (or JAX's cache changed): find its card."""
        # No card at all: JAX served it from a cache filled before we watched — or from the
        # first compile, which another thread has not filed yet.
        key = self._key(args, kwargs)
        with self._lock:
            card = self._by_key.get(key)
            if card is None and key is not None:
                card = self._equivalent_card(key)
            record = self._hit(latency_ms, card)
            if card is None and key is not None and self._cache_id is not None:
                record = self._served_elsewhere(record, key)
            if card is None and key is not None and record.reason is None:
                # Another thread compiled this signature and has not filed its card yet:
                # the hit is filed when the card is (see _file_waiting).
                self._waiting.append((key, len(self._records) - 1 if self.keep_records else -1))
                del self._waiting[:-1000]
        return record

    def _equivalent_card(self, key: Hashable) -> Card | None:
        """The card of a call JAX serves with the same executable though its key is not
        equal (``P()`` and ``P(None, None)`` on one mesh: JAX compares shardings normalised).
        Remembered under this key too (bounded), so the next such hit is one lookup (lock
        held)."""
        for card in self.ledger.cards:
            if signature.equivalent_keys(key, card.key):
                if len(self._by_key) < 4 * len(self.ledger.cards) + 64:
                    self._by_key[key] = card
                if len(self.ledger.cards) == 1:
                    # JAX's C++ cache grew by an entry for the equivalent sharding, without a
                    # compile: the steady path may serve the next hits again.
                    self._entries_after_compile = self._jax_entries()
                return card
        return None

    def _file_waiting(self, card: Card) -> None:
        """File the hits that ran on ``card``'s executable before the card existed."""
        still = []
        for key, position in self._waiting:
            if key != card.key:
                still.append((key, position))
                continue
            card.hits += 1
            if 0 <= position < len(self._records):
                self._records[position] = self._records[position]._replace(
                    signature=card.signature, card=card.index
                )
        self._waiting = still

    def _hit(self, latency_ms: float, card: Card | None) -> CallRecord:
        if card is None:
            head = (self.name, _HIT, latency_ms, 0.0, 0.0, 0.0, None, None)
        else:
            head = (self.name, _HIT, latency_ms, 0.0, 0.0, 0.0, card.signature, card.index)
        lock = self._lock
        lock.acquire()  # acquire/release: a third of what `with` costs on every hit
        try:
            index = self._calls
            self._calls = index + 1
            self.ledger.filed[_HIT] += 1
            if card is not None:
                card.hits += 1
            record = _new_record(CallRecord, (index, *head, *_RECORD_TAIL))
            self._newest(record)
            if self.keep_records:  # _file, minus what a hit leaves at zero
                if self._unfiled:
                    self._settle()
                records = self._records
                records.append(record)
                if len(records) > self._cap:
                    self._trim()
        finally:
            lock.release()
        return record

    def _jax_entries(self) -> int:
        """How many executables JAX's own cache holds for this function (-1 if unknown).

        Replaced in :meth:`_bind` by the wrapper's own bound ``_cache_size`` (see
        :func:`jitlab.probe.wrappers.cache_size`), so a call costs one attribute call.
        """
        return -1

    def _jax_held_others(self) -> bool:
        """Did JAX already hold an executable of this function, compiled for another jax.jit
        of it that jitlab probes? Then this compile is a recompile of the function.

        """
        if self._cache_id is None:
            return False
        # Both: a sharer's cards may be stale (jax.clear_caches()), and JAX's cache size alone
        # counts entries left by calls that failed while tracing.
        return self._jax_entries() > 1 and any(other.ledger.cards for other in self._sharers())

    def _sharers(self) -> list[Probe]:
        """Other probes of the very same function object and jit options (JAX shares one
        cache between their jit objects). Compared by identity, never by ``id()`` alone."""
        fun = self.wrapper.function
        return [
            other
            for other in list(_sharing.get(self._cache_id, ()))
            if other.ledger is not self.ledger and other.wrapper.function is fun
        ]

    def _shared_card(self, key: Hashable) -> tuple[Probe, Card] | None:
        """A card for ``key`` held by another probe of a jax.jit sharing this one's cache."""
        if self._cache_id is None:
            return None
        for other in self._sharers():
            for card in other.ledger.cards:
                if _same_call(card.key, key):
                    return other, card
        return None

    def _served_elsewhere(self, record: CallRecord, key: Hashable) -> CallRecord:
        """A hit on no card of ours: was it an executable another jax.jit of the same
        function compiled? Then the record says so (JAX shares the cache between them)."""
        found = self._shared_card(key)
        if found is None:
            return record
        other, card = found
        change = Change(
            ChangeKind.SHARED_EXECUTABLE, _definition_site(other._fn), after=str(card.signature)
        )
        served = record._replace(signature=card.signature, reason=Reason((change,)))
        records = self._records
        if self.keep_records and records and records[-1] is record:
            records[-1] = served
        if self._last is record:
            self._last = served
        return served

    def _key(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Hashable | None:
        try:
            return signature.fast_key(self._statics, self._generation, args, kwargs)
        except Exception:  # an argument jit would reject anyway
            return None

    def _slow(
        self,
        index: int,
        collector: monitor.CallCollector,
        latency_ms: float,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        error: BaseException | None,
        result: Any = None,
    ) -> CallRecord:
        ledger = self.ledger
        ledger.trace_ms += collector.trace_ms
        ledger.lower_ms += collector.lower_ms
        ledger.compile_ms += collector.compile_ms
        try:
            sig: Signature | None = signature.describe(
                self._statics, self._generation, args, kwargs
            )
        except Exception:
            sig = None
        stdout = tuple(OutputLine(when, text) for when, text in collector.output_lines())
        common = dict(
            index=index,
            function=self.name,
            latency_ms=latency_ms,
            trace_ms=collector.trace_ms,
            lower_ms=collector.lower_ms,
            compile_ms=collector.compile_ms,
            signature=sig,
            stdout=stdout,
        )
        if error is not None:
            info = ErrorInfo(type(error).__name__, _first_lines(str(error)), error)
            return CallRecord(kind=CallKind.ERROR, error=info, **common)
        if _disable_jit.value:
            # jax.disable_jit(): the function ran op by op as plain Python, nothing compiled.
            return CallRecord(kind=CallKind.EAGER, **common)
        layers, staged = _transformation(args, kwargs, result)
        if layers:
            return self._transformed(common, collector, layers, staged, args, kwargs)
        if not (collector.lowered or collector.compiled or collector.persistent):
            # Traced (or printed) but reused an executable: JAX served it from a cache.
            key = self._key(args, kwargs)
            card = self._by_key.get(key)
            if card is not None:
                card.hits += 1
            return CallRecord(kind=CallKind.CACHE_HIT, card=card.index if card else None, **common)
        if collector.persistent:
            kind = CallKind.PERSISTENT_HIT
        elif ledger.ever_compiled or self._jax_held_others():
            kind = CallKind.RECOMPILE
        else:
            kind = CallKind.COMPILE
        key = self._key(args, kwargs)
        context = signature.context_snapshot()
        paths = signature.key_paths(self._statics, args, kwargs) if ledger.cards else None
        reason = self._reason(sig, collector, kind, key, context, paths)
        cost_ms = collector.trace_ms + collector.lower_ms + collector.compile_ms
        card = self._held_card(key, context)
        if card is not None:
            # JAX compiled a signature we hold a card for: it had dropped the executable
            # (jax.clear_caches() or eviction). Still one card per signature: rewrite it.
            card.created_by, card.compile_ms = index, cost_ms
        else:
            card = Card(
                index=len(ledger.cards),
                signature=sig or Signature((), (), "?", self._generation),
                key=key,
                created_by=index,
                compile_ms=cost_ms,
                context=context,
                committed=scripts.committed_flags(self._statics, args, kwargs),
            )
            ledger.cards.append(card)
            if key is not None:
                # Same arguments under another trace context: a second executable in JAX.
                self._by_key[(key, context) if key in self._by_key else key] = card
        self._compiles += 1
        if self._waiting:
            self._file_waiting(card)
        ledger.ever_compiled = True
        self._entries_after_compile = self._jax_entries()
        return CallRecord(kind=kind, card=card.index, reason=reason, **common)

    def _transformed(
        self,
        common: dict[str, Any],
        collector: monitor.CallCollector,
        layers: tuple[str, ...],
        staged: bool,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> CallRecord:
        """A call that got (or returned) tracers: it ran inside a transformation.

        JAX did not use this function's own executables: it ran (or compiled) the
        transformed function — under ``vmap`` the batched one, so the signature is the batch
        JAX compiled — or staged the call into an enclosing trace, where nothing ran. No card:
        the function's own cache is untouched. Under ``grad`` the backward pass compiles
        after the call returns: :func:`_follow_backward` files that executable too.
        """
        try:
            sig = signature.describe(self._statics, self._generation, *_untraced(args, kwargs))
        except Exception:
            sig = common["signature"]
        common = {**common, "signature": sig}
        explanation = "\n".join(collector.explanations) or None
        path = ",".join(layers)
        built = collector.lowered or collector.compiled or collector.persistent
        if staged:
            reason = Reason((Change(ChangeKind.TRANSFORMED, path),), explanation)
            return CallRecord(kind=CallKind.TRACED, reason=reason, **common)
        change = Change(ChangeKind.TRANSFORMED, path, after=str(sig), count=1 if built else 0)
        if "linearize" in layers:
            _follow_backward(self)
        if not built:
            return CallRecord(kind=_HIT, reason=Reason((change,), explanation), **common)
        self._compiles += 1
        kind = CallKind.RECOMPILE if self.ledger.ever_compiled else CallKind.COMPILE
        return CallRecord(kind=kind, reason=Reason((change,), explanation), **common)

    def backward_signature(self, avals: tuple[Any, ...]) -> Signature:
        """The signature JAX compiled grad's backward pass (transpose) of this function for."""
        leaves = tuple(
            LeafSpec(f"in[{i}]", tuple(int(d) for d in a.shape), str(a.dtype), bool(a.weak_type))
            for i, a in enumerate(avals)
            if hasattr(a, "shape") and hasattr(a, "dtype")
        )
        return Signature(leaves, (), "", self._generation)

    def _file_backward(self, lower_ms: float, compile_ms: float, avals: tuple[Any, ...]) -> None:
        """File the executable JAX compiled for this function's backward pass (grad's
        transpose), after the probed call that ran under grad returned."""
        sig = self.backward_signature(avals)
        change = Change(ChangeKind.TRANSFORMED, "transpose", after=str(sig), count=1)
        with self._lock:
            self._fold()
            index = self._calls
            self._calls += 1
            ledger = self.ledger
            ledger.lower_ms += lower_ms
            ledger.compile_ms += compile_ms
            self._compiles += 1
            record = CallRecord(
                index=index,
                function=self.name,
                kind=CallKind.RECOMPILE,
                latency_ms=lower_ms + compile_ms,
                lower_ms=lower_ms,
                compile_ms=compile_ms,
                signature=sig,
                reason=Reason((change,)),
            )
            ledger.filed[record.kind] += 1
            self._file(record)
        if self.on_record is not None:
            self.on_record(record)

    def _reason(
        self,
        sig: Signature | None,
        collector: monitor.CallCollector,
        kind: CallKind,
        key: Hashable | None = None,
        context: tuple[Any, ...] = (),
        paths: tuple[str, ...] | None = None,
    ) -> Reason:
        """What differed from the closest executable JAX had, as data.

        jitlab's own diff comes first (signature, static objects, keywords, trace context);
        without one, JAX's explanation turned into the same changes; without either,
        ``unknown`` with JAX's raw words. "Cache cleared" only when a clear or a drop of
        JAX's cache size was seen, never as a fallback.
        """
        explanation = "\n".join(collector.explanations) or None
        ledger = self.ledger
        if sig is None:
            return Reason(self._jax_or_unknown(explanation), explanation)
        cards = ledger.cards or ledger.retired  # after Probe.clear_cache: what was dropped
        site = _definition_site(self._fn)
        if not cards:
            return self._first_reason(sig, kind, key, explanation)
        # The closest card explains best; on a tie the newest one (what the user just did).
        diffs = [
            self._options_instead(signature.diff(sig, card.signature, key, card.key, site), card)
            + signature.context_changes(context, card.context)
            # Same types on another device: JAX compiles again with no trace or explanation.
            + signature.device_changes(paths, key, card.key)
            for card in reversed(cards)
        ]
        closest = min(diffs, key=signature.distance)
        if closest:
            return Reason(_with_jax_hint(closest, explanation), explanation)
        if not ledger.cards or self._jax_dropped():
            return Reason((Change(ChangeKind.CACHE_CLEARED),), explanation)
        return Reason(self._jax_or_unknown(explanation), explanation)

    def _options_instead(self, changes: list[Change], card: Card) -> list[Change]:
        """The same function jitted again with other jit options is not a new function
        object: JAX would have shared its cache had the options been the same."""
        if not any(c.kind is ChangeKind.NEW_FUNCTION_OBJECT for c in changes):
            return changes
        instances = self.ledger.instances
        new = instances.get(self._generation)
        options = wrappers.option_changes(new, instances.get(card.signature.function))
        if not options:
            return changes
        return [c for c in changes if c.kind is not ChangeKind.NEW_FUNCTION_OBJECT] + options

    def _first_reason(
        self, sig: Signature, kind: CallKind, key: Hashable | None, explanation: str | None
    ) -> Reason:
        """A compile with no card of ours to compare with."""
        if kind is not CallKind.RECOMPILE and not self.ledger.counts[_HIT]:
            first = {CallKind.PERSISTENT_HIT: ChangeKind.FIRST_PERSISTENT_LOAD}
            return Reason((Change(first.get(kind, ChangeKind.FIRST_CALL)),), explanation)
        # JAX held executables of this function we never saw compiled (before this probe,
        # or for another jax.jit of it): the closest of another probe's cards, else JAX's
        # own words (it compared with what it holds), else "first compile jitlab saw".
        theirs = [
            card
            for other in (self._sharers() if kind is CallKind.RECOMPILE else ())
            for card in other.ledger.cards
        ]
        diffs = [signature.diff(sig, card.signature, key, card.key) for card in theirs]
        diffs = [[c for c in d if c.kind is not ChangeKind.NEW_FUNCTION_OBJECT] for d in diffs]
        closest = min(diffs, key=signature.distance) if diffs else []
        if closest:
            return Reason(tuple(closest), explanation)
        parsed = [
            c
            for c in explain.parse(explanation)
            if c.kind not in (ChangeKind.UNKNOWN, ChangeKind.NEW_FUNCTION_OBJECT)
        ]
        return Reason(tuple(parsed) or (Change(ChangeKind.FIRST_SEEN),), explanation)

    def _held_card(self, key: Hashable | None, context: tuple[Any, ...]) -> Card | None:
        """The card for these arguments under this trace context, if we hold one."""
        if key is None:
            return None
        card = self._by_key.get((key, context)) or self._by_key.get(key)
        if card is not None and card.context and context and card.context != context:
            return None
        return card

    def _jax_dropped(self) -> bool:
        """Did JAX's cache for this function lose entries since our last compile?

        After this compile it holds one more entry than after the last one, unless some
        were dropped (``jax.clear_caches()``, eviction) in between.
        """
        entries = self._jax_entries()
        return 0 <= entries <= self._entries_after_compile

    @staticmethod
    def _jax_or_unknown(explanation: str | None) -> tuple[Change, ...]:
        parsed = [c for c in explain.parse(explanation) if c.kind is not ChangeKind.UNKNOWN]
        return tuple(parsed) or (Change(ChangeKind.UNKNOWN, detail=explain.summary(explanation)),)


# Probes of jax.jit objects that share one JAX cache (same function, same options), by
# wrappers.cache_identity: a hit on none of a probe's cards may be another one's executable.
_sharing: dict[Hashable, weakref.WeakSet[Probe]] = {}


_Tracer = _jax.tracer_class()
_tree_leaves = jax.tree_util.tree_leaves


def _transformation(
    args: tuple[Any, ...], kwargs: dict[str, Any], result: Any
) -> tuple[tuple[str, ...], bool]:
    """(the transformations a call ran under, innermost first; was it staged into an
    enclosing trace, so that nothing ran?) — ``((), False)`` for a plain call."""
    try:
        found = [leaf for leaf in _tree_leaves((args, kwargs)) if isinstance(leaf, _Tracer)]
        if not found and result is not None:
            # Concrete arguments, yet tracers out: a call staged into an outer trace.
            found = [leaf for leaf in _tree_leaves(result) if isinstance(leaf, _Tracer)]
        if not found:
            return (), False
        layers, base = max((_jax.tracer_layers(leaf) for leaf in found), key=lambda lb: len(lb[0]))
    except Exception:  # a private class that changed: a plain call, as before
        return (), False
    return layers, isinstance(base, _Tracer)


def _untraced(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """The arguments with each tracer replaced by the value under it (a ``vmap``'s batch):
    what JAX compiled the transformed function for."""

    def under(leaf: Any) -> Any:
        return _jax.tracer_layers(leaf)[1] if isinstance(leaf, _Tracer) else leaf

    return jax.tree_util.tree_map(under, (args, kwargs))


# The probe whose call just ran under grad on this thread: the backward pass that follows
# compiles the transposed function outside any probed call (see _on_backward_compile).
_backward = threading.local()
_backward_lock = threading.Lock()


def _follow_backward(probe: Probe) -> None:
    _backward.probe = weakref.ref(probe)
    _backward.lower_ms = 0.0
    # Registered on the first call under grad; again if the program cleared the listeners
    # (jax.monitoring.clear_event_listeners() rebinds JAX's list). Slow path only.
    if _on_backward_compile not in _jax.duration_listeners():
        with _backward_lock:
            if _on_backward_compile not in _jax.duration_listeners():
                jax.monitoring.register_event_duration_secs_listener(_on_backward_compile)


def _on_backward_compile(event: str, duration: float, **kwargs: Any) -> None:
    """A compile of the function the last grad-traced probed call on this thread ran,
    fired by JAX's backward pass outside any probed call: another executable JAX made."""
    if event != monitor.COMPILE_EVENT and event != monitor.LOWER_EVENT:
        return
    if getattr(_backward, "probe", None) is None or getattr(_tls, "collector", None) is not None:
        return
    if getattr(monitor, "_watchers", None):
        # A watch files every compile outside probed calls itself (it may ask
        # backward_compile whose it is): filing it here too would count it twice.
        return
    fun_name = kwargs.get("fun_name")
    frame = sys._getframe(1)
    if event == monitor.LOWER_EVENT:
        if backward_compile(fun_name, frame, lowering=True) is not None:
            _backward.lower_ms = duration * 1e3
        return
    found = backward_compile(fun_name, frame)
    if found is not None:
        probe, avals = found
        lower_ms, _backward.lower_ms = getattr(_backward, "lower_ms", 0.0), 0.0
        probe._file_backward(lower_ms, duration * 1e3, avals)


def backward_compile(
    fun_name: Any, frame: Any, *, lowering: bool = False
) -> tuple[Probe, tuple[Any, ...]] | None:
    """Called from a compile event listener outside any probed call: is this JAX compiling
    the backward pass (grad's transpose) of the function a probe on this thread last ran
    under grad? Then (that probe, the transposed function's input avals); else None.
    ``probe._file_backward(lower_ms, compile_ms, avals)`` files it as that function's."""
    ref = getattr(_backward, "probe", None)
    probe = ref() if ref is not None else None
    if probe is None or fun_name != _jax.jit_event_name(probe._trace_name):
        return None
    if not _jax.in_backward_pass(frame):
        return None
    if lowering:
        return probe, ()
    found = _jax.compiling_avals(frame)
    site = sites.defined_at(probe._fn)
    if found is None or not site or not (found[0] or "").endswith(site):
        return None  # another function of the same name: not ours
    return probe, found[1]


def _same_call(a: Hashable, b: Hashable) -> bool:
    """Two fast keys of the same call, whatever generation each probe counts."""
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) == 5:
        return a[1:] == b[1:]
    return a == b


def _with_jax_hint(changes: list[Change], explanation: str | None) -> tuple[Change, ...]:
    """A new-function-object change keeps JAX's "re-defined repeatedly" hint."""
    hint = explain.redefined_hint(explanation)
    if not hint:
        return tuple(changes)
    return tuple(
        dataclasses.replace(c, detail=hint)
        if c.kind is ChangeKind.NEW_FUNCTION_OBJECT and not c.detail
        else c
        for c in changes
    )


def _definition_site(fn: Any) -> str:
    """``file:line`` of the probed function's code, for a new-function-object change."""
    try:
        code = inspect.unwrap(fn).__code__
    except (AttributeError, ValueError):
        return ""
    return f"{code.co_filename}:{code.co_firstlineno}"


def _first_lines(text: str, limit: int = 12) -> str:
    lines = text.strip().splitlines()
    return "\n".join(lines[:limit]) + ("\n…" if len(lines) > limit else "")
