"""The probe: call a jitted function and record exactly what JAX did for that call.

Here: :class:`Probe` and its hot path (one for ``__call__`` and ``counted_call``). Its
parts live beside it, each holding its own state: the records and counts it keeps
(:class:`~jitlab.probe.store.RecordStore`), the cards of the function object it calls
(:class:`~jitlab.probe.held.HeldCards`), the card holder shared by every function object of
the function (:class:`~jitlab.probe.cards.Ledger`), its diagnosers
(:class:`~jitlab.probe.diagnosing.ProbeDiagnoses`), and what a call that was not a plain hit
did (:class:`~jitlab.probe.filing.Filing`). Why a call compiled is told by
:mod:`~jitlab.probe.reasons` (JAX-free); calls under transformations and grad's backward pass
by :mod:`~jitlab.probe.transforms`; executables shared between jit objects by
:mod:`~jitlab.probe.sharing`.

Some 700 lines: the hot path is one function on purpose (a hit must not pay for
a call into a helper); everything else it needs lives in the modules above.
"""

from __future__ import annotations

import inspect
import itertools
import threading
import time
import types
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import jax

from jitlab.probe import (
    _jax,
    contract,
    diagnosing,
    filing,
    frames,
    monitor,
    scripts,
    sharing,
    wrappers,
)
from jitlab.probe.cards import Card, Ledger, tally
from jitlab.probe.held import HeldCards
from jitlab.probe.store import OPEN, SETTLE_AT, RecordStore
from jitlab.probe.transforms import backward_compile
from jitlab.records.calls import CallKind, CallRecord, Change, Reason, Signature, Summary
from jitlab.records.changes import ChangeKind
from jitlab.records.diagnoses import Diagnosis

__all__ = ["DEFAULT_MAX_RECORDS", "Card", "Ledger", "PhaseCallback", "Probe", "backward_compile"]

PhaseCallback = Callable[[str, float], None]
_HIT = CallKind.CACHE_HIT
DEFAULT_MAX_RECORDS = 100_000

# The hot path of a cache hit, bound once (each saves an attribute lookup per call).
# This thread's collector of the call in flight (events go there): the probe package's own
# thread-local, read directly.
_tls = monitor._local  # pyright: ignore[reportPrivateUsage]
_route_call = monitor.route_call
_unroute_call = monitor.unroute_call
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


def _is_jitted(fn: Any) -> bool:
    """jax.jit, flax.nnx.jit, equinox.filter_jit or jax.pmap (raises TypeError for
    wrappers that cannot be probed; see :mod:`jitlab.probe.wrappers`)."""
    return wrappers.recognise(fn) is not None


class Probe:
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

    # JAX's cache size through the wrapper, bound in _bind: the hot path calls it directly.
    _jax_entries: Callable[[], int]
    # The function object called now (_bind): which of the ledger's function objects it is,
    # and its cache identity (wrappers.cache_identity).
    _generation: int
    _cache_id: Hashable | None
    # Runs the diagnosers on its compiles (a watch's probes do not: the recording's do, over
    # every function object of one site).
    diagnose = True

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
        self.on_record = on_record
        # Blocking makes latency_ms the real cost of the call; watching a program must not
        # block, or it would break the asynchronous pipelining the program relies on.
        self.block = block
        # False: cache hits only bump ledger.counts (no record, no on_record call).
        self.record_hits = record_hits
        # False: printed text is neither captured nor tagged, and explanations come from
        # JAX's global switch (a watch turns it on for its whole block): the cheapest call.
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
        self._bind(jitted, generation)
        self._held.restart(self._jax_entries())
        self._note_instance()
        self.name = name or self.wrapper.name  # the user's (pmap's events say _fun)

    def _bind(self, jitted: Callable[..., Any], generation: int | None) -> None:
        """Call ``jitted`` from now on as function object ``generation`` of the ledger's
        function (None, from swap: the next, unless JAX shares the cache of the one before)."""
        info = wrappers.recognise(jitted)
        assert info is not None  # callers jit plain functions first
        monitor.install()
        # Calls that trace, print or explain all reach JAX's Python dispatch first (not a
        # pmap's before 0.8, nor where this JAX's dispatch is not as checked): route there.
        self._lazy = monitor.DISPATCH_HOOKED[0] and info.kind in wrappers.JIT_KINDS
        self._fn = jitted
        self.wrapper = info  # kind, the user's function, JAX's event name, argument split
        self._trace_name = info.trace_name
        self._statics = info.spec
        self._jax_entries = wrappers.cache_size(info)
        cache_id = wrappers.cache_identity(info)
        if generation is None:
            # A new function object (same function and options: JAX's cache is shared).
            before = self._cache_id
            new = before is None or cache_id != before
            generation = self._generation + 1 if new else self._generation
        self._cache_id = cache_id
        self._generation = generation
        self._filing.bind(jitted, info.spec, generation, cache_id, self._jax_entries)
        sharing.join(self, cache_id)
        self._look_like(info)

    def _look_like(self, info: wrappers.Jitted) -> None:
        """Look to JAX (and to ``inspect``) exactly like the function probed, as
        ``functools.wraps`` would make it: ``jax.jit(Probe(f))`` is then named ``jit(f)`` in
        JAX's log and events, its arguments named as ``f``'s parameters."""
        user = info.function
        if user is None:
            try:
                user = inspect.unwrap(self._fn)
            except ValueError:  # a cycle of __wrapped__
                user = self._fn
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            value = getattr(user, attr, None)
            if value is not None:
                self.__dict__[attr] = value
        self.__dict__["__wrapped__"] = self._fn
        try:
            self.__dict__["__signature__"] = inspect.signature(user)
        except (TypeError, ValueError):  # a builtin or an object without one
            self.__dict__.pop("__signature__", None)

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        """``@Probe`` on a method binds like ``@jax.jit`` does: ``m.fwd(x)`` calls this
        probe with ``(m, x)`` — one probe, one ledger for every instance."""
        if instance is None:
            return self
        return types.MethodType(self, instance)

    # -- what the probe is and holds (read by scripts, the lab, the watch) ----------------
    @property
    def function(self) -> Callable[..., Any]:
        """The jitted callable being probed."""
        return self._fn

    @property
    def trace_name(self) -> str:
        """The ``fun_name`` of JAX's trace event for this function (``jit(…)`` for the rest)."""
        return self._trace_name

    @property
    def generation(self) -> int:
        """Which function object of the ledger's function this probe calls now (0, 1, …)."""
        return self._generation

    def cache_entries(self) -> int:
        """How many executables JAX's own cache holds for this function (-1 if unknown)."""
        return self._jax_entries()

    @property
    def entries_after_compile(self) -> int:
        """JAX's cache size right after this probe's last compile (-2 before any)."""
        return self._held.entries_after_compile

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

    @property
    def notable(self) -> list[CallRecord]:
        """The newest ``max_records`` records that are not plain hits, in call order."""
        return self._store.notable

    @property
    def dropped_records(self) -> int:
        """Records dropped from the front of :attr:`records` to keep it bounded."""
        return self._store.dropped

    def __repr__(self) -> str:
        """One line for a plain prompt: the counts :meth:`summary` gives and the cards held
        (names as in code, so no language). Reads only running totals; never raises."""
        try:
            s = self.summary()
            cards = len(self.ledger.cards)
            return (
                f"<Probe {self.name!r}: calls={s.calls} compiles={s.compiles} "
                f"recompiles={s.recompiles} hits={s.cache_hits} errors={s.errors} "
                f"cards={cards}>"
            )
        except Exception:  # a half-built probe (its __init__ raised) still prints
            return f"<Probe at {id(self):#x}>"

    def swap(self, fn: Callable[..., Any]) -> None:
        """Probe a new function object from now on, keeping the same ledger.

        Used to show what happens when code builds a new ``lambda``/``partial``/``jax.jit``
        every call: JAX sees a function it has never traced.
        """
        before = self._generation
        self._bind(fn if _is_jitted(fn) else jax.jit(fn), None)
        if self._generation != before:
            self._note_instance()
            with self._lock:
                self._held.new_object(self._jax_entries())

    def _note_instance(self) -> None:
        instances, layers = self.ledger.instances, self.ledger.layers
        instances[self._generation] = self._cache_id
        layers[self._generation] = wrappers.transformations(self.wrapper)
        if len(instances) > 128:  # a closure re-jitted every step: the newest are compared
            for old in sorted(instances)[:64]:
                del instances[old]
                layers.pop(old, None)

    def clear_cache(self) -> None:
        """Empty JAX's caches for this function and the card holder (``jax.clear_caches``)."""
        jax.clear_caches()
        with self._lock:
            self.ledger.retired.extend(self.ledger.cards)
            self.ledger.cards = []
            self._held.clear(self._jax_entries())

    @property
    def calls(self) -> int:
        """Every call this probe made, recorded or only counted."""
        with self._lock:
            return self._fold()

    @property
    def diagnoses(self) -> list[Diagnosis]:
        """What jitlab diagnosed on this probe's compiles (recompile-limit, identity-static:
        the watch's diagnosers), in the order stated: the probe's ``diagnosis`` lines; then
        slow-dispatch, its hits JAX ran through Python dispatch by cause (counted with
        ``capture_output``, where they are routed)."""
        if self._diagnoses is None:  # a watch's probe: the recording's diagnosers state them
            return []
        with self._lock:
            found = list(self._diagnoses.stated)
        if self._dispatches is not None:
            hits: dict[tuple[str, str | None], int | None] = {
                (self.name, self._diagnoses.site): self.summary().cache_hits
            }
            found += self._dispatches.diagnoses(hits, None)
        return found

    @property
    def records(self) -> list[CallRecord]:
        """The newest ``max_records`` records, in call order."""
        if self._unfiled:
            with self._lock:
                self._store.settle()
        return self._store.records

    @property
    def last(self) -> CallRecord | None:
        """The newest record, even when records are not kept."""
        if self._unfiled:
            with self._lock:
                self._store.settle()
        return self._store.last

    def summary(self) -> Summary:
        """Exact over every call (running totals), however few records are kept."""
        with self._lock:
            return self._store.summary(self._fold())

    def records_since(self, calls: int) -> list[CallRecord]:
        """The kept records of calls made after the first ``calls`` (see :attr:`calls`)."""
        with self._lock:
            return self._store.since(calls)

    # -- filing (lock held) ---------------------------------------------------------------
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
        (``linear``). Another executable of this function: a recompile."""
        sig = self.backward_signature(avals)
        change = Change(ChangeKind.TRANSFORMED, path, after=str(sig), count=1)
        with self._lock:
            self._held.compiles += 1
            record = CallRecord(
                index=self._next_index(),
                function=self.name,
                kind=CallKind.RECOMPILE,
                latency_ms=lower_ms + compile_ms,
                lower_ms=lower_ms,
                compile_ms=compile_ms,
                signature=sig,
                reason=Reason((change,)),
            )
            self._file(record)
        if self.on_record is not None:
            self.on_record(record)

    # -- cards and their scripts ----------------------------------------------------------
    def card(self, index: int) -> Card:
        """The card numbered ``index`` (``CallRecord.card``) in the card holder."""
        with self._lock:
            card = self.ledger.card(index)
            if card is not None:
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
        if cached is not None and fresh and not (stablehlo and cached[1].stablehlo_deferred):
            return cached[1]
        made = scripts.make_script(self, held, stablehlo)
        held.script_cache = (held.created_by, made)
        return made

    # -- the call -------------------------------------------------------------------------
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
        # The hot path is a cache hit, where JAX fires nothing: do only what a hit needs and
        # leave everything else (keys, signatures, reasons) to the calls that compile. Each
        # of capture_output, record_hits and block adds its part; a watch's probe, with all
        # three off, costs a thread-local set and one count per hit (counted_call).
        if getattr(_tls, "collector", None) is not None:
            return self._inlined(args, kwargs)
        if (
            _TRACE_STATE.value is not _EVAL_TRACE
            and _EXPLAIN.get_local() is not False
            and _EVAL_SHAPE_ONCE  # JAX 0.6 traces eval_shape's jit twice itself: as plain
            and _traced_by_eval_shape(_getframe(1))
        ):
            return self._for_eval_shape(args, kwargs)
        # Cleared by the program: see monitor.revive.
        if _MONITORING._event_duration_secs_listeners is not _LISTENING[0]:
            monitor.revive()
        collector = getattr(self._spares, "collector", None)
        if collector is None or not collector.quiet or collector.trace_name is not self._trace_name:
            collector = self._spare()  # first call on this thread, an interrupted call, swap()
        # monitor.begin, inlined: route this thread's events to us, and stdout and
        # explanations when JAX dispatches the call in Python (monitor._python_dispatch): a
        # hit, run by C++ alone, prints nothing and explains nothing. Under disable_jit, or
        # where that hook is not in place (collector.lazy False), route them now.
        _tls.collector = collector
        jit_off = _disable_jit.value
        if self.capture_output and (jit_off or not collector.lazy):
            _route_call(collector)
        error: BaseException | None = None
        result = None
        block = self.block
        track = self.record_hits  # a hit only counted needs no card: nothing to track
        # Calls in flight on this probe, on any thread (list append/pop are atomic): another
        # thread's compile may add the executable this call then hits.
        flight = self._in_flight
        entries = compiles = 0
        lone = False
        if track:
            held = self._held
            entries = self._jax_entries()
            flight.append(None)
            lone = len(flight) == 1
            compiles = held.compiles
        start = _clock()
        end = start
        timed = True  # False: a hit only counted returns without reading the clock again
        plain = False  # a cache hit (nothing compiled, no error, not eager)
        deferred = False  # a steady hit's record made later (see RecordStore.settle)
        card: Card | None = None
        # A steady hit, filed before the block: [index, signature, card, start, end], its end
        # written once the call returns (see RecordStore.settle).
        head: list[Any] | None = None
        routed: bool | None = None  # read once dispatched (None: interrupted before that)
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
                if collector.routed:
                    _set_explain(collector.user_explain)  # explanations come at dispatch
                _tls.collector = None
                # JAX ran it in Python (a miss, or a hit with host callbacks, which never
                # takes C++'s fast path): its effects are waited for after its result. A
                # plain hit reads one attribute, and waits for nothing more.
                effects = collector.dispatched
                if effects:
                    collector.dispatched = False
                routed = collector.routed  # read now: after the wait, only locals
                if track:
                    lone = lone and len(flight) == 1 and compiles == held.compiles
                    flight.pop()
            # Without a wait, a call inside a transformation (an eager scan's body, an outer
            # jit, grad, vmap) is told by the trace state: one staged there ran nothing of
            # this function's own, and Filing.record files what JAX did.
            plain = (
                error is None
                and collector.quiet
                and not jit_off
                and (block or _TRACE_STATE.value is _EVAL_TRACE)
            )
            if plain and not track and not block:
                # Only counted, not waited for (a watch's probe): lock-free counts, folded in
                # by _fold, and nothing timed.
                timed = False
                next(self._unrecorded)
                return result
            if plain and track:
                # Steady state: one card, and JAX's cache unchanged since we saw it
                # compile (and during this dispatch: another thread may have compiled
                # meanwhile), so this hit used that card. No key needed.
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
                    # Several cards, and JAX's cache holds exactly their executables: this
                    # hit used one of them, told apart by the few leaves where they differ
                    # (CardIndex.find): no walk of the whole pytree.
                    card = held.index.hot(args, kwargs)
                if card is not None:
                    deferred = self.on_record is None  # else the record is wanted at once
                    # `with`, not acquire/release: a Ctrl-C between the two would leave the
                    # lock held and the next call hung.
                    with self._lock:
                        index = self._calls
                        self._calls = index + 1
                        ledger.steady_hits += 1
                        card.hits += 1
                        head = [index, card.signature, card.index, start, OPEN]
                        if deferred:
                            unfiled = self._unfiled
                            unfiled.append(head)
                            if len(unfiled) > SETTLE_AT:  # bounded: file a batch, warm
                                self._store.settle()
            if block and error is None:
                try:
                    # The type's method, called with the result: no AttributeError raised and
                    # caught for a pytree (a training step), no bound method made here and
                    # freed after the wait, where the interpreter runs cold.
                    wait = getattr(type(result), "block_until_ready", None)
                    if wait is not None:
                        wait(result)
                    else:  # a pytree of results, a Python scalar, or tracers
                        jax.block_until_ready(result)
                        if plain and _TRACE_STATE.value is not _EVAL_TRACE:
                            # Called inside a transformation (an eager scan's body, vmap,
                            # grad): not a plain hit on a card. Filing.record files what JAX did.
                            plain = False
                    if effects:
                        # Its host callbacks may run on the runtime's threads while we wait,
                        # or after the result is ready (a TPU, a CPU mesh): their lines come
                        # while the window is open, and a callback's error is this call's.
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
            # Unrouted after the block: a host callback prints meanwhile (routed None: an
            # interrupt came before it was read).
            if routed or (routed is None and collector.routed):
                if (
                    self._dispatches is not None
                    and collector.lazy
                    and not (jit_off or collector.traced or error is not None)
                    and _TRACE_STATE.value is _EVAL_TRACE
                ):
                    # Routed at dispatch, nothing traced: a hit JAX ran in Python (a hit C++
                    # ran alone is never routed, never gets here).
                    cause = diagnosing.hit_cause()
                    if cause is not None:
                        site = self._diagnoses.site if self._diagnoses is not None else None
                        self._dispatches.count(self.name, site, cause)
                try:
                    _unroute_call(collector)
                except BaseException:  # a Ctrl-C raised on entry: sys.stdout must come back
                    _unroute_call(collector)
                    raise
        if plain:
            record: CallRecord | None
            if head is not None:
                if deferred:
                    return result
                with self._lock:
                    record = self._store.file_steady(head)
            elif not track:  # counted, not recorded (watching a long program)
                next(self._unrecorded)  # lock-free counts, folded in by _fold
                return result
            else:
                record = self._keyed_hit((end - start) * 1e3, args, kwargs)
            if self.on_record is not None and record is not None:
                self.on_record(record)
            return result
        if head is not None and card is not None:  # filed as a hit, then failed: take it back
            self._take_back(head, card)
        taken = None if head is None else int(head[0])
        return self._file_call(collector, (end - start) * 1e3, args, kwargs, error, result, taken)

    # A watch calls its probes (capture_output, record_hits and block all off) through this
    # name: the same hot path, bound once by the watch.
    counted_call = __call__

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

    def _take_back(self, head: list[Any], card: Card) -> None:
        """Undo a steady hit filed before its block, which then failed or was interrupted."""
        with self._lock:
            self.ledger.steady_hits -= 1
            card.hits -= 1
            head[4] = None  # settle skips it
            self._store.settle()

    def _keyed_hit(
        self, latency_ms: float, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> CallRecord:
        """A hit when there are several cards (or JAX's cache changed): find its card."""
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
        return record

    def _hit(self, latency_ms: float, card: Card | None) -> CallRecord:
        lock = self._lock
        lock.acquire()  # acquire/release: a third of what `with` costs on every hit
        try:
            index = self._calls
            self._calls = index + 1
            filed = self.ledger.filed
            filed.calls += 1
            filed.counts[_HIT] += 1
            if card is not None:
                card.hits += 1
            return self._store.file_hit(index, latency_ms, card)
        finally:
            lock.release()
