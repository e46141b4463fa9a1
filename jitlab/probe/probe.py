"""The probe: call a jitted function and record exactly what JAX did for that call.

Here: :class:`Probe`, what it is made of, and its hot path (``__call__``, ``_call`` and
``_after``). Its bases are its other parts, each in its own module: the function
object it calls and how it looks like it (:class:`~jitlab.probe.binding.Binding`), how its
calls are numbered, counted and filed off the hot path
(:class:`~jitlab.probe.bookkeeping.Bookkeeping`), and what it tells of what it holds
(:class:`~jitlab.probe.views.Views`). The objects it holds keep their own state: the records
and counts (:class:`~jitlab.probe.store.RecordStore`), the cards of the function object it
calls (:class:`~jitlab.probe.held.HeldCards`), the card holder shared by every function
object of the function (:class:`~jitlab.probe.cards.Ledger`), its diagnosers
(:class:`~jitlab.probe.diagnosing.ProbeDiagnoses`), and what a call that was not a plain hit
did (:class:`~jitlab.probe.filing.Filing`). Why a call compiled is told by
:mod:`~jitlab.probe.reasons` (JAX-free); calls under transformations and grad's backward pass
by :mod:`~jitlab.probe.transforms`; executables shared between jit objects by
:mod:`~jitlab.probe.sharing`.

The hot path is a cache hit, where JAX fires nothing: it does only what a hit needs and
leaves everything else (keys, signatures, reasons) to the calls that compile.

- The steady path (``__call__``): once a probe that waits has seen a steady hit (below), the
  thread it was on holds ``Probe._steady``, one tuple of what such a hit reads. Its next
  calls there check JAX's state (trace, jit switch, listeners), dispatch, confirm the hit
  (JAX ran it in C++, its cache unchanged), file it while the device computes, and after
  the wait only write the end time. On an accelerator the thread sleeps in that wait and
  wakes with cold caches; before the dispatch it runs cold too (on a TPU VM the five
  checks a probe makes before it cost ~5 µs, ten attribute reads after the wait ~1 µs:
  ``benchmarks/README.md``). A call that turns out to be
  anything else goes on in ``_after``, as if it had come through ``_call``.
- Every other call (``_call``): each of ``capture_output``, ``record_hits`` and ``block``
  adds its part; a watch's probe, with all three off, costs a thread-local set and one
  lock-free count per hit (``counted_call``), then ``_after`` files it.
- Routing: ``monitor.begin``, inlined. This thread's events go to the call's collector, and
  stdout and explanations too once JAX dispatches the call in Python
  (``monitor._python_dispatch``): a hit, run by C++ alone, prints nothing and explains
  nothing. Under ``disable_jit``, or where that hook is not in place (``collector.lazy``
  False), they are routed before the call.
- Dispatched: JAX has traced, compiled and picked its executable; only the device's work is
  left. All that does not need it is done while it computes: after the wait the
  interpreter runs cold and every step costs several times more
  (``benchmarks/probe_overhead.py``). A call JAX ran in Python (a miss, or a hit with host
  callbacks, which never takes C++'s fast path) has its effects waited for after its result.
- A steady hit: one card and JAX's cache unchanged since that card's compile (and during
  this dispatch: another thread may compile meanwhile), so the hit used that card; or
  several cards whose executables are exactly JAX's cache, told apart by the few leaves
  where they differ (``CardIndex.hot``). Its head ``[index, signature, card, start, end]``
  is filed before the block and its end written after; its record is made later, warm
  (``RecordStore.settle``), unless ``on_record`` wants it at once.
- Without a wait, a call inside a transformation (an eager scan's body, an outer jit,
  grad, vmap) is told by the trace state: one staged there ran nothing of this function's
  own, and ``Filing.record`` files what JAX did.
- A call routed is unrouted after its block, so a host callback printing meanwhile is the
  call's (``Bookkeeping._end_routed``).
"""

from __future__ import annotations

import itertools
import threading
import time
import types
from collections.abc import Callable, Sequence
from typing import Any

import jax

from jitlab.probe import _jax, contract, diagnosing, filing, frames, monitor
from jitlab.probe.binding import jitted
from jitlab.probe.cards import Card, Ledger
from jitlab.probe.held import HeldCards
from jitlab.probe.store import OPEN, SETTLE_AT, Head, RecordStore
from jitlab.probe.transforms import backward_compile
from jitlab.probe.views import Views
from jitlab.records.calls import CallRecord

__all__ = ["DEFAULT_MAX_RECORDS", "Card", "Ledger", "PhaseCallback", "Probe", "backward_compile"]

PhaseCallback = Callable[[str, float], None]
DEFAULT_MAX_RECORDS = 100_000

# The hot path of a cache hit, bound once (each saves an attribute lookup per call).
# This thread's collector of the call in flight (events go there): the probe package's own
# thread-local, read directly.
_tls = monitor._local  # pyright: ignore[reportPrivateUsage]
_route_call = monitor.route_call
_wait_for_effects = monitor.wait_for_effects
_EXPLAIN = _jax.EXPLAIN
_set_explain = _EXPLAIN.set_local
_swap_explain = _EXPLAIN.swap_local
_getframe = frames.getframe
_traced_by_eval_shape = _jax.traced_by_eval_shape
_EVAL_SHAPE_ONCE = _jax.EVAL_SHAPE_TRACES_A_JIT_ONCE
# JAX's duration listeners, read as one attribute (no call) before each dispatch: after a
# wait the interpreter runs cold until the next call (monitor.listeners_now's list).
_MONITORING = _jax.MONITORING
_LISTENING = monitor.LISTENING
_disable_jit = _jax.DISABLE_JIT  # thread-aware, unlike jax.config.jax_disable_jit
# This thread's innermost trace: JAX's eval trace unless inside a transformation.
_TRACE_STATE, _EVAL_TRACE = _jax.TRACE_STATE, _jax.EVAL_TRACE
_clock = time.perf_counter
_get_ident = threading.get_ident  # whose steady path a probe holds (Probe._steady)
_Steady = tuple[
    int,
    monitor.CallCollector,
    Callable[..., Any],
    Callable[[], int],
    HeldCards,
    list[None],
    Ledger | None,
    bool,
]


class Probe(Views):
    """Wraps a jitted function; every call returns its result and appends a CallRecord.

    ``Probe(jax.jit(f))`` probes an existing jitted function; ``Probe(f, static_argnames=...)``
    jits a plain function for you. The probe blocks until the result is ready so that
    ``latency_ms`` measures the work, not just the asynchronous dispatch, and then until the
    call's host callbacks have run (a TPU runs them on its own threads, maybe later): every
    line they print, and a callback's error, is the call's. ``block=False`` (a watch's
    probes) waits for nothing: its record holds what was printed before the call returned.

    ``records`` keeps at most ``max_records`` of the newest records (None: all of them), and
    ``notable`` as many of the newest ones that are not plain cache hits (compiles,
    recompiles, errors…); the oldest are dropped in slices. Counts stay exact over every
    call: :meth:`summary`, :attr:`calls` and ``ledger.counts`` are running totals.

    ``diagnoses``: what the watch's diagnosers state on its compiles (recompile-limit past
    ``warn_after`` compiles, else ``JITLAB_WARN_AFTER``, else 8; identity-static).
    """

    # Runs the diagnosers on its compiles (a watch's probes do not: the recording's do, over
    # every function object of one site).
    diagnose = True
    # What one thread's steady hits use, read at once by __call__: (thread ident, its
    # collector, the jitted function, JAX's cache size, the held cards, the calls in flight,
    # the ledger or None where hits are only counted, whether the record is made later).
    # Set by a steady hit in _after; None again whenever any of it may have changed (a new
    # function object or collector, a call filed, block, record_hits, capture_output or
    # on_record set).
    _steady: _Steady | None = None

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
        warn_after: int | None = None,
        **jit_kwargs: Any,
    ) -> None:
        # Refuse, before any call is classified, on a JAX whose events jitlab cannot see. In a
        # watched program only the names: its backend is the program's to start.
        contract.require(compile=not monitor.watching())
        called = jitted(fn, static_argnums, static_argnames, **jit_kwargs)
        self.keep_going = keep_going
        self.on_phase = on_phase
        self.echo_output = echo_output
        # How it calls (properties: each change sends the next call down the general path).
        self.on_record = on_record
        self.block = block
        self.record_hits = record_hits
        self.capture_output = capture_output
        # The records and counts (every method with the lock held).
        self._store = RecordStore("", keep_records, max_records)
        self._unfiled = self._store.unfiled  # read on every steady hit
        # The calls' numbering stays here, where the hot path counts each hit (in the store,
        # one more object read after the device's wait: +0.2 µs a hit in
        # benchmarks/probe_overhead.py): calls numbered under the lock (plus the hits only
        # counted, folded in), and the hits only counted (record_hits=False), lock-free.
        self._calls = 0
        self._unrecorded = itertools.count()
        self._folded = 0
        # The watch's diagnosers, on this probe's compiles (see diagnoses); recompile-limit
        # after ``warn_after`` compiles (else JITLAB_WARN_AFTER, else 8; 0: never).
        self._diagnoses: diagnosing.ProbeDiagnoses | None = None
        if self.diagnose:
            after = (
                diagnosing.resolve_warn_after(warn_after)
                if warn_after is not None
                else diagnosing.warn_after_from_environment()
            )
            self._diagnoses = diagnosing.ProbeDiagnoses(after)
        # slow-dispatch: hits JAX ran through its Python dispatch, by cause (see diagnoses)
        self._dispatches = diagnosing.SlowDispatch() if self.diagnose else None
        # A shared ledger: several function objects that are one function to the user (the
        # same code jitted again); each instance gets its own generation.
        self.ledger = ledger if ledger is not None else Ledger()
        self._lock = self.ledger.lock
        self._held = HeldCards()  # the cards of the function object called now
        self._in_flight: list[None] = []
        self._spares = threading.local()  # one reusable collector per calling thread
        self.ledger.hit_tallies.append(self._unrecorded)  # the ledger sums its probes' hits
        # What a call that is not a plain hit was (off the hot path). Its key, bound once: a
        # hit on several cards reads it (no hop through the filing per call).
        self._filing = filing.Filing(self, self._store, self._held)
        self._key = self._filing.key
        self._bind(called, generation)
        self._held.restart(self._jax_entries())
        self._note_instance()
        self.name = name or self.wrapper.name  # the user's (pmap's events say _fun)

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        """``@Probe`` on a method binds like ``@jax.jit`` does: ``m.fwd(x)`` calls this
        probe with ``(m, x)`` — one probe, one ledger for every instance."""
        if instance is None:
            return self
        return types.MethodType(self, instance)

    # -- how it calls: each change takes the steady path away until the next steady hit --
    @property
    def block(self) -> bool:
        """Wait for the result and the call's effects, so ``latency_ms`` is the real cost of
        the call. A watch's probes do not: a program's asynchronous pipelining stays as is."""
        return self._block

    @block.setter
    def block(self, value: bool) -> None:
        self._block = value
        self._steady = None

    @property
    def record_hits(self) -> bool:
        """False: cache hits only bump ``ledger.counts`` (no record, no ``on_record`` call)."""
        return self._record_hits

    @record_hits.setter
    def record_hits(self, value: bool) -> None:
        self._record_hits = value
        self._steady = None

    @property
    def capture_output(self) -> bool:
        """False: printed text is neither captured nor tagged, and explanations come from
        JAX's global switch (a watch turns it on for its whole block): the cheapest call."""
        return self._capture_output

    @capture_output.setter
    def capture_output(self, value: bool) -> None:
        self._capture_output = value
        self._steady = None

    @property
    def on_record(self) -> Callable[[CallRecord], None] | None:
        """Called with each call's record as it is filed (a steady hit's at once, not later)."""
        return self._on_record

    @on_record.setter
    def on_record(self, value: Callable[[CallRecord], None] | None) -> None:
        self._on_record = value
        self._steady = None

    def _spare(self) -> monitor.CallCollector:
        """This thread's collector for this probe, reused across calls: a cache hit leaves
        it untouched, anything else is reset once filed."""
        collector = monitor.CallCollector(self._trace_name, None, False, source=self)
        # jitlab's own diff says why this function compiled: JAX's explanation of a miss of
        # a function it holds many executables of is put off, and made only where that
        # diff cannot say (monitor.EXPLAIN_AT_ONCE, Filing.record).
        collector.defer_explain = True
        collector.lazy = self._lazy
        self._spares.collector = collector
        self._steady = None  # it named this thread's collector before
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

    def _for_eval_shape(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``jax.eval_shape(probe)``: JAX traces its own ``jit(probe)`` (it calls ``.trace``
        directly only on a ``jax.jit`` object), and inside it the probed ``jit(f)`` is traced
        once more, a miss ``eval_shape(jax.jit(f))`` never has. JAX's log must stay JAX's:
        this inner trace is not explained to the user (jitlab still files the call)."""
        previous = _swap_explain(False)
        try:
            return self(*args, **kwargs)
        finally:
            _set_explain(previous)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # The steady hit (see the module's docstring), where JAX fires nothing: one read of
        # what this thread's steady hits use, the checks JAX's state needs, and nothing else
        # before the dispatch; its end time and return after the wait. Anything else, or a
        # call that turns out not to be such a hit, goes on in _call and _after.
        steady = self._steady
        if (
            steady is None
            or steady[0] != _get_ident()
            or getattr(_tls, "collector", None) is not None
            or _TRACE_STATE.value is not _EVAL_TRACE
            or _MONITORING._event_duration_secs_listeners is not _LISTENING[0]
            or _disable_jit.value
        ):
            return self._call(*args, **kwargs)
        _, collector, fn, entries_of, held, flight, ledger, deferred = steady
        if flight or not collector.quiet:  # another call in flight, or an interrupted one
            return self._call(*args, **kwargs)
        entries = entries_of()
        compiles = held.compiles
        flight.append(None)
        _tls.collector = collector  # monitor.begin, inlined
        start = _clock()
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:
            flight.pop()
            effects = _dispatched(collector)
            return self._after(
                collector, args, kwargs, None, exc, start, False, True, False, 0, effects
            )
        lone = len(flight) == 1 and compiles == held.compiles
        flight.pop()
        track = ledger is not None  # None: record_hits off, a hit is only counted
        if collector.routed or collector.dispatched or not collector.quiet:  # JAX's Python
            effects = _dispatched(collector)
            return self._after(
                collector, args, kwargs, result, None, start, False, track, lone, entries, effects
            )
        _tls.collector = None
        card: Card | None = None
        head: Head | None = None
        if ledger is not None:  # tracked: find the card
            if lone and entries_of() == entries:
                cards = ledger.cards
                if len(cards) == 1 and entries == held.entries_after_compile:
                    card = cards[0]
                elif held.exact and entries == held.exact_entries:
                    card = held.index.hot(args, kwargs)
            if card is None:  # JAX's cache moved: found by its key (_after)
                return self._after(
                    collector, args, kwargs, result, None, start, False, True, lone, entries, False
                )
            head = self._file_steady(card, start, deferred)
        try:
            wait = getattr(type(result), "block_until_ready", None)
            if wait is not None and not isinstance(wait, property):
                wait(result)
            else:  # a pytree of results, or a Python scalar
                jax.block_until_ready(result)
        except BaseException as exc:  # failed on the device, or interrupted: no hit
            end = _clock()
            if card is not None and head is not None:
                self._take_back(head, card)
            taken = None if head is None else int(head[0])
            return self._file_call(collector, (end - start) * 1e3, args, kwargs, exc, result, taken)
        if head is None:
            next(self._unrecorded)  # only counted: lock-free, folded in by _fold
            return result
        head[4] = _clock()  # all a steady hit does after its wait: settle files it
        if deferred:
            return result
        return self._steady_record(head, result)

    def _call(self, *args: Any, **kwargs: Any) -> Any:
        """Every call but a steady hit on its thread's steady path: routed, counted and
        dispatched as each of ``capture_output``, ``record_hits`` and ``block`` asks, then
        :meth:`_after`. A watch's probe, all three off, costs a thread-local set and one
        lock-free count per hit here (``counted_call``)."""
        if getattr(_tls, "collector", None) is not None:
            return self._inlined(args, kwargs)
        if (
            _TRACE_STATE.value is not _EVAL_TRACE
            and _EXPLAIN.get_local() is not False
            and _EVAL_SHAPE_ONCE  # JAX 0.6 traces eval_shape's jit twice itself: as plain
            and _traced_by_eval_shape(_getframe(1))
        ):
            return self._for_eval_shape(args, kwargs)
        if _MONITORING._event_duration_secs_listeners is not _LISTENING[0]:
            monitor.revive()  # cleared by the program
        collector = getattr(self._spares, "collector", None)
        if collector is None or not collector.quiet or collector.trace_name is not self._trace_name:
            collector = self._spare()  # first call on this thread, an interrupted call, swap()
        _tls.collector = collector  # monitor.begin, inlined
        jit_off = _disable_jit.value
        if self._capture_output and (jit_off or not collector.lazy):
            _route_call(collector)
        track = self._record_hits  # a hit only counted needs no card: nothing to track
        # Calls in flight on this probe, on any thread (list append/pop are atomic): another
        # thread's compile may add the executable this call then hits.
        flight = self._in_flight
        entries = compiles = 0
        lone = False
        if track:
            entries = self._jax_entries()
            flight.append(None)
            lone = len(flight) == 1
            compiles = self._held.compiles
        start = _clock()
        error: BaseException | None = None
        result = None
        try:
            result = self._fn(*args, **kwargs)
        except BaseException as exc:  # an interrupt too: _after raises it again, unrouted
            error = exc
        effects = _dispatched(collector)
        if track:
            lone = lone and len(flight) == 1 and compiles == self._held.compiles
            flight.pop()
        elif not (self._block or jit_off or error is not None or collector.routed) and (
            collector.quiet and _TRACE_STATE.value is _EVAL_TRACE
        ):
            next(self._unrecorded)  # a watch's probe: counted lock-free, folded in by _fold
            return result
        return self._after(
            collector, args, kwargs, result, error, start, jit_off, track, lone, entries, effects
        )

    # A watch calls its probes (capture_output, record_hits and block all off) through this
    # name, bound once by the watch.
    counted_call = _call

    def _after(
        self,
        collector: monitor.CallCollector,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        result: Any,
        error: BaseException | None,
        start: float,
        jit_off: bool,
        track: bool,
        lone: bool,
        entries: int,
        effects: bool,
    ) -> Any:
        """The rest of a call JAX returned from (or raised in): which hit it was, the wait
        for its result and effects, and its record; a call that was no plain hit is filed
        (``_file_call``). An interrupt JAX raised is raised again once the call is
        unrouted."""
        block = self._block
        routed = collector.routed  # read now: after the wait, only locals
        end = start
        timed = True  # False: a hit only counted returns without reading the clock again
        plain = False  # a cache hit (nothing compiled, no error, not eager)
        deferred = False  # a steady hit's record made later (see RecordStore.settle)
        card: Card | None = None
        head: Head | None = None  # a steady hit, filed before the block
        try:
            if error is not None and not isinstance(error, Exception):
                raise error  # interrupted (Ctrl-C) while JAX ran it: not filed
            plain = (
                error is None
                and collector.quiet
                and not jit_off
                and (block or _TRACE_STATE.value is _EVAL_TRACE)
            )
            if plain and not track:  # counted, lock-free
                if not block:
                    timed = False
                    next(self._unrecorded)  # folded in by _fold
                    return result
                self._arm(collector, block, None, False)
            if plain and track:
                held = self._held
                ledger = self.ledger
                cards = ledger.cards
                if (
                    lone
                    and len(cards) == 1
                    and entries == held.entries_after_compile
                    and self._jax_entries() == entries
                ):
                    card = cards[0]
                elif (
                    lone
                    and held.exact
                    and entries == held.exact_entries
                    and self._jax_entries() == entries
                ):
                    card = held.index.hot(args, kwargs)
                if card is not None:
                    deferred = self._on_record is None  # else the record is wanted at once
                    head = self._file_steady(card, start, deferred)
                    self._arm(collector, block, ledger, deferred)
            if block and error is None:
                try:
                    # The type's method, called with the result: no AttributeError raised and
                    # caught for a pytree, no bound method made and freed after the wait.
                    wait = getattr(type(result), "block_until_ready", None)
                    if wait is not None and not isinstance(wait, property):  # 0.6's tracers
                        wait(result)
                    else:  # a pytree of results, a Python scalar, or tracers
                        jax.block_until_ready(result)
                        if plain and _TRACE_STATE.value is not _EVAL_TRACE:
                            plain = False  # inside a transformation: Filing.record files it
                    if effects:
                        # Host callbacks may run on the runtime's threads while we wait, or
                        # after the result is ready (a TPU): their lines and errors are the call's.
                        _wait_for_effects(collector)
                        if not collector.quiet:  # printed while waited for: filed with it
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
            if timed:
                end = _clock()
                if plain and head is not None:
                    head[4] = end  # all a steady hit does after its wait: settle files it
            if routed:
                self._end_routed(collector, jit_off, error)
        if plain:
            if deferred:
                return result
            if head is not None:  # a steady hit whose record on_record wants at once
                return self._steady_record(head, result)
            if not track:  # counted, not recorded (watching a long program)
                next(self._unrecorded)  # lock-free, folded in by _fold
                return result
            return self._keyed_hit((end - start) * 1e3, args, kwargs, result)
        if head is not None and card is not None:  # filed as a hit, then failed: take it back
            self._take_back(head, card)
        taken = None if head is None else int(head[0])
        return self._file_call(collector, (end - start) * 1e3, args, kwargs, error, result, taken)

    def _arm(
        self, collector: monitor.CallCollector, block: bool, ledger: Ledger | None, deferred: bool
    ) -> None:
        """A steady hit (``ledger`` None: a hit only counted): this thread's next ones take
        the steady path (``__call__``), unless another thread's do, or they must wait for
        nothing, or their output would be routed before the dispatch."""
        if self._steady is None and block and (collector.lazy or not self._capture_output):
            self._steady = (
                _get_ident(),
                collector,
                self._fn,
                self._jax_entries,
                self._held,
                self._in_flight,
                ledger,
                deferred,
            )

    def _file_steady(self, card: Card, start: float, deferred: bool) -> Head:
        """Number and count a steady hit on ``card`` before its wait; its head
        ``[index, signature, card, start, end]`` is left to ``RecordStore.settle`` when
        ``deferred`` (its end written after the wait)."""
        with self._lock:  # not acquire/release: a Ctrl-C between would hang it
            index = self._calls
            self._calls = index + 1
            self.ledger.steady_hits += 1
            card.hits += 1
            head = [index, card.signature, card.index, start, OPEN]
            if deferred:
                unfiled = self._unfiled
                unfiled.append(head)
                if len(unfiled) > SETTLE_AT:  # bounded: file a batch, warm
                    self._store.settle()
        return head

    def _steady_record(self, head: Head, result: Any) -> Any:
        """A steady hit whose record ``on_record`` wants at once: filed now, then handed."""
        with self._lock:
            record = self._store.file_steady(head)
        on_record = self._on_record
        if on_record is not None and record is not None:
            on_record(record)
        return result


def _dispatched(collector: monitor.CallCollector) -> bool:
    """JAX returned from (or raised in) a call: this thread's events are no longer the
    call's, and explanations come back to the user's switch. Returns whether JAX ran it in
    Python (a miss, or a hit with host callbacks, which never takes C++'s fast path): its
    effects are waited for after its result."""
    if collector.routed:
        _set_explain(collector.user_explain)  # explanations come at dispatch
    _tls.collector = None
    effects = collector.dispatched
    if effects:
        collector.dispatched = False
    return effects
