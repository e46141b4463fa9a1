"""How a probe tells what a call that was not a plain hit was: compiled, failed, ran
eagerly or ran under a transformation; its card and the evidence for its reason.

:class:`Filing` is the off-hot-path part of :class:`jitlab.probe.probe.Probe`: an object the
probe holds, every method run with the probe's lock held. Its inputs are handed in: the
probe as its sharers and grad's backward pass know it (:class:`Filer`, held weakly: no
cycle keeps a probe alive), the probe's parts it works through, each holding its own state —
the records and counts (:class:`~jitlab.probe.store.RecordStore`) and this function object's
cards (:class:`~jitlab.probe.held.HeldCards`) — and the function object called now
(:meth:`Filing.bind`, again at each ``swap``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Protocol

from jitlab.probe import (
    _jax,
    abstract,
    executables,
    explain,
    monitor,
    reasons,
    sharing,
    signature,
    transforms,
    wrappers,
)
from jitlab.probe.cards import Card
from jitlab.probe.held import HeldCards
from jitlab.probe.sites import definition_site
from jitlab.probe.store import RecordStore
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

_HIT = CallKind.CACHE_HIT
_disable_jit = _jax.DISABLE_JIT  # thread-aware, unlike jax.config.jax_disable_jit
# Up to this many cards (as many as JAX explains at once) a compile is compared with every
# one (exact: the closest explains); past it with the closest few by where the cards differ
# (CardIndex.closest) and the newest cards of other structures, so the work at a compile
# stays flat as the card holder fills.
_COMPARE_ALL = 8
_COMPARE_NEAREST = 4
_COMPARE_OTHERS = 8
# Reasons JAX's words could make say more: jitlab's diff named no change.
_CANNOT_TELL = frozenset({ChangeKind.UNKNOWN, ChangeKind.FIRST_SEEN})


class Filer(sharing.Sharer, transforms.Followed, Protocol):
    """The probe a :class:`Filing` files for (:class:`jitlab.probe.probe.Probe`), as the
    probes sharing its cache and grad's backward pass that follows a call know it, with its
    running totals."""

    def summary(self) -> Summary: ...


class Filing:
    """The calls a cache hit is not, of one probe: made into records and cards (lock held)."""

    # The function object called now (bind).
    _fn: Callable[..., Any]
    _statics: signature.StaticSpec
    _generation: int
    _cache_id: Hashable | None
    _jax_entries: Callable[[], int]

    def __init__(self, probe: Filer, store: RecordStore, held: HeldCards) -> None:
        # Weakly, as its collectors hold it: the probe holds this filing.
        self._owner = weakref.ref(probe)
        self._ledger = probe.ledger  # the card holder, shared by the function's objects
        self._store = store
        self._held = held

    @property
    def _probe(self) -> Filer:
        """The probe filed for: alive while it files (its own methods call this one's)."""
        probe = self._owner()
        assert probe is not None
        return probe

    def bind(
        self,
        fn: Callable[..., Any],
        statics: signature.StaticSpec,
        generation: int,
        cache_id: Hashable | None,
        entries: Callable[[], int],
    ) -> None:
        """The function object the probe calls from now on: the jitted callable, how its
        arguments split, which of the ledger's function objects it is, its cache identity
        (:func:`wrappers.cache_identity`) and JAX's cache size for it."""
        self._fn = fn
        self._statics = statics
        self._generation = generation
        self._cache_id = cache_id
        self._jax_entries = entries
        info = wrappers.recognise(fn)
        self._owner_jit = wrappers.cache_owner(info) if info is not None else None

    def served_elsewhere(self, record: CallRecord, key: Hashable) -> CallRecord:
        """A hit on no card of ours: was it an executable another jax.jit of the same
        function compiled? Then the record says so (JAX shares the cache between them)."""
        found = sharing.shared_card(self._probe, self._cache_id, key)
        if found is None:
            return record
        other, card = found
        change = Change(
            ChangeKind.SHARED_EXECUTABLE,
            definition_site(other.wrapper.call),
            after=str(card.signature),
        )
        served = record._replace(signature=card.signature, reason=Reason((change,)))
        self._store.replace_newest(record, served)
        return served

    def key(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Hashable | None:
        """The call's fast key (:func:`signature.fast_key`); None for arguments jit rejects."""
        try:
            return signature.fast_key(self._statics, self._generation, args, kwargs)
        except Exception:  # an argument jit would reject anyway
            return None

    def record(
        self,
        index: int,
        collector: monitor.CallCollector,
        latency_ms: float,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        error: BaseException | None,
        result: Any = None,
    ) -> CallRecord:
        """The record of call ``index``, which was not a plain hit: its kind, signature,
        card and reason, made from what ``collector`` heard (a compile files its card)."""
        # JAX's explanations of this call's misses that were put off (see _spare): made below
        # only where jitlab's own diff cannot say why it compiled.
        put_off, collector.deferred = collector.deferred, None
        key = signature.hashed_once(self.key(args, kwargs))
        sig: Signature | None
        leaves: list[Any] | None = None  # the traced leaves, in key order, if describe had them
        try:
            sig, key, leaves = signature.describe_keyed(
                self._statics, self._generation, args, kwargs, key
            )
        except Exception:
            sig = None
        stdout = tuple(OutputLine(when, text) for when, text in collector.output_lines())
        common = CallRecord(
            index=index,
            function=self._store.name,
            kind=_HIT,
            latency_ms=latency_ms,
            trace_ms=collector.trace_ms,
            lower_ms=collector.lower_ms,
            compile_ms=collector.compile_ms,
            signature=sig,
            stdout=stdout,
        )
        if error is not None:
            info = ErrorInfo(type(error).__name__, _first_lines(str(error)), error)
            return common._replace(kind=CallKind.ERROR, error=info)
        if _disable_jit.value:
            # jax.disable_jit(): the function ran op by op as plain Python, nothing compiled.
            return common._replace(kind=CallKind.EAGER)
        layers, staged = transforms.transformation(args, kwargs, result)
        if layers:
            if put_off:  # JAX's words as they were: no diff of ours for these
                _words_now(collector, put_off)
            return self._transformed(common, collector, layers, staged, args, kwargs)
        if not (collector.lowered or collector.compiled or collector.persistent):
            # Traced (or printed) but reused an executable: JAX served it from a cache.
            found = self._held.by_key.get(key)
            if found is not None:
                found.hits += 1
            return common._replace(card=found.index if found else None)
        ledger = self._ledger
        if collector.persistent:
            kind = CallKind.PERSISTENT_HIT
        elif ledger.ever_compiled or ledger.transformed or self._jax_held_others():
            kind = CallKind.RECOMPILE
        else:
            kind = CallKind.COMPILE
        context = signature.context_snapshot()
        explanation = "\n".join(collector.explanations) or None
        reason = self._reason(sig, explanation, kind, key, context)
        # jitlab's diff found nothing to name: ask JAX now, with the miss's own keys.
        if put_off and _CANNOT_TELL.intersection(reason.kinds()) and _words_now(collector, put_off):
            explanation = "\n".join(collector.explanations)
            reason = self._reason(sig, explanation, kind, key, context)
        cost_ms = collector.trace_ms + collector.lower_ms + collector.compile_ms
        mine = self._held
        plain = mine.by_key.get(key) if key is not None else None
        card = mine.held(key, context, plain)
        entries = self._jax_entries()
        if card is not None:
            # JAX compiled a signature we hold a card for: it had dropped the executable
            # (jax.clear_caches() or eviction). Still one card per signature: rewrite it.
            card.created_by, card.compile_ms, card.dropped_by = index, cost_ms, ""
            mine.exact = False
        else:
            card = Card(
                index=len(ledger.cards),
                signature=sig or Signature((), (), "?", self._generation),
                key=key,
                created_by=index,
                compile_ms=cost_ms,
                context=context,
                # Per traced leaf, committed to its device? (key order, for Probe.script.)
                committed=abstract.shared_flags(
                    abstract.committed_flags(self._statics, args, kwargs)
                    if leaves is None
                    else abstract.committed_of(leaves)
                ),
            )
            ledger.cards.append(card)
            # Same arguments under another trace context: a second executable in JAX.
            filed_as = (key, context) if plain is not None and key is not None else key
            mine.added(card, filed_as, entries, self._statics, args, kwargs)
        mine.compiles += 1
        self._store.card_filed(card)
        ledger.ever_compiled = True
        mine.entries_after_compile = entries
        mine.clears_at_compile = monitor.clears_of(self._owner_jit)
        made, collector.executable = collector.executable, None  # held no longer
        held = executables.LIVE.compiled(executables.function_key(self._fn), made, sig)
        return common._replace(kind=kind, card=card.index, reason=reason, executables=held)

    def _transformed(
        self,
        common: CallRecord,
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
        after the call returns: :func:`transforms.follow_backward` files that executable too.
        """
        sig: Signature | None
        try:
            untraced_args, untraced_kwargs = transforms.untraced(args, kwargs)
            sig = signature.describe(
                self._statics, self._generation, untraced_args, untraced_kwargs
            )
        except Exception:
            sig = common.signature
        common = common._replace(signature=sig)
        explanation = "\n".join(collector.explanations) or None
        path = ",".join(layers)
        built = collector.lowered or collector.compiled or collector.persistent
        if staged:
            # jax.checkpoint runs the trace it staged this call into eagerly, right after:
            # that compiles this function outside the call (followed, filed as "remat").
            transforms.follow_backward(self._probe, staged=True)
            reason = Reason((Change(ChangeKind.TRANSFORMED, path),), explanation)
            return common._replace(kind=CallKind.TRACED, reason=reason)
        change = Change(ChangeKind.TRANSFORMED, path, after=str(sig), count=1 if built else 0)
        if "linearize" in layers:
            transforms.follow_backward(self._probe)
        ledger = self._ledger
        if not built:
            ledger.transformed_hits += 1
            return common._replace(kind=_HIT, reason=Reason((change,), explanation))
        self._held.compiles += 1
        before = ledger.ever_compiled or ledger.transformed
        kind = CallKind.RECOMPILE if before else CallKind.COMPILE
        changes = [change]
        compiled_by = ledger.transformed.setdefault((path, str(sig)), self._generation)
        if compiled_by != self._generation:
            # JAX compiled this very program for an earlier function object of the same
            # code: the transformation is no cause, the function object made anew is.
            hint = explain.redefined_hint(explanation)
            site = definition_site(self._fn)
            anew = ChangeKind.NEW_FUNCTION_OBJECT
            changes.insert(0, Change(anew, site, detail=hint, count=self._generation + 1))
        return common._replace(kind=kind, reason=Reason(tuple(changes), explanation))

    def _reason(
        self,
        sig: Signature | None,
        explanation: str | None,
        kind: CallKind,
        key: Hashable | None,
        context: tuple[Any, ...],
    ) -> Reason:
        """The evidence :func:`reasons.infer` decides from: the cards (or, after
        Probe.clear_cache, what was dropped), what only JAX's objects tell about each, and
        what JAX's cache did."""
        ledger = self._ledger
        clears = monitor.clears_of(self._owner_jit)
        cleared = self._held.cleared_by(clears, monitor.CLEARS_TOLD[0])
        dropped = self._held.dropped(self._jax_entries())
        if dropped and cleared in _NAMED_CLEARS:  # it came after the last compile: JAX holds
            for card in ledger.cards:  # none of the cards made before it
                card.dropped_by = card.dropped_by or cleared
            self._held.index.clear()
        live = [card for card in ledger.cards if not card.dropped_by]
        plain = self._held.by_key.get(key) if key is not None else None
        same = self._held.held(key, context, plain)
        if same is not None and same.dropped_by:  # the very program this call needs
            return reasons.cleared_reason(same.dropped_by, self._store.name, explanation)
        # Compared with what JAX still holds; else with what a clear dropped (said so, below).
        cards = live or ledger.cards or ledger.retired
        if not cards:  # its first compile, unless JAX held executables we never saw
            sharers = (
                sharing.sharers(self._probe, self._cache_id) if kind is CallKind.RECOMPILE else []
            )
            theirs = [_earlier(card) for other in sharers for card in other.ledger.cards]
            # Hits on its own executables (not on its transformed programs), or executables
            # of it another jax.jit compiled: JAX held programs jitlab never saw compiled.
            plain_hits = ledger.counts[_HIT] - ledger.transformed_hits
            held = kind is CallKind.RECOMPILE and (
                not ledger.transformed or self._jax_held_others()
            )
            hits_seen = held or plain_hits > 0
            return reasons.infer(
                sig,
                explanation,
                kind=kind,
                key=key,
                hits_seen=hits_seen,
                theirs=theirs,
                transformed=_paths(ledger.transformed),
            )
        if sig is None:  # no signature of ours to compare with the cards
            return reasons.infer(None, explanation)
        if len(cards) > _COMPARE_ALL and live:
            cards = self._held.nearest(key, context, live, _COMPARE_NEAREST, _COMPARE_OTHERS)
            cards = [card for card in cards if not card.dropped_by]
        instances = ledger.instances
        new_instance = instances.get(self._generation)
        my_layers = ledger.layers.get(self._generation)
        shared = self._served_by_others()
        earlier: list[reasons.Earlier] = []
        for card in cards:
            its_layers = ledger.layers.get(card.signature.function)
            if my_layers is not None and its_layers is not None and my_layers != its_layers:
                earlier.append(_earlier(card)._replace(transforms=(my_layers, its_layers)))
                continue
            options = wrappers.option_changes(new_instance, instances.get(card.signature.function))
            if options and shared:
                earlier.append(_earlier(card)._replace(same_cache=True))
            else:
                earlier.append(_earlier(card, options))
        return reasons.infer(
            sig,
            explanation,
            earlier,
            kind=kind,
            key=key,
            context=context,
            context_names=_context_names(),
            site=definition_site(self._fn),
            retired=not live,
            dropped=dropped,
            cleared=cleared,
            name=self._store.name,
            by_part=_jax.RANKS_KEYS_BY_PART,
        )

    def _served_by_others(self) -> bool:
        """Did JAX serve this jit object executables before it compiled any of its own (its
        calls before the first compile were hits)? Then its cache is another jit's of the
        same function, and the options that differ between them are no part of JAX's key
        (``keep_unused`` on 0.10): a recompile is never blamed on them (lock held)."""
        held = self._held
        if held.compiles == 0 and not held.sibling_served:
            # This call is counted, not yet filed: a hit to the counts.
            held.sibling_served = self._probe.summary().cache_hits - 1 > 0
        return held.sibling_served

    def _jax_held_others(self) -> bool:
        """Did JAX already hold an executable of this function, compiled for another jax.jit
        of it that jitlab probes? Then this compile is a recompile of the function."""
        if self._cache_id is None:
            return False
        # Both: a sharer's cards may be stale (jax.clear_caches()), and JAX's cache size alone
        # counts entries left by calls that failed while tracing.
        return self._jax_entries() > 1 and any(
            o.ledger.cards for o in sharing.sharers(self._probe, self._cache_id)
        )


_NAMED_CLEARS = ("jax.clear_caches()", "clear_cache()")  # held.cleared_by's words


def backward_signature(avals: tuple[Any, ...], generation: int) -> Signature:
    """The signature JAX compiled grad's backward pass (transpose) of a function for: the
    function object numbered ``generation`` of its ledger."""
    leaves = tuple(
        LeafSpec(
            f"in[{i}]",
            tuple(int(d) for d in a.shape),
            signature.dtype_name(a.dtype),
            bool(a.weak_type),
        )
        for i, a in enumerate(avals)
        if hasattr(a, "shape") and hasattr(a, "dtype")
    )
    return Signature(leaves, (), "", generation)


def _words_now(collector: monitor.CallCollector, put_off: list[Callable[[], Any]]) -> bool:
    """Make JAX's put-off explanations now, as the call's own; False if JAX said nothing."""
    words = monitor.explain_now(put_off)
    if words is not None:
        collector.explanations.append(words)
    return words is not None


def _earlier(card: Card, options: Sequence[Change] = ()) -> reasons.Earlier:
    return reasons.Earlier(card.signature, card.key, card.context, tuple(options))


def _paths(programs: dict[tuple[str, str], int]) -> tuple[str, ...]:
    """The transformations the function's compiled programs ran under, each once, in order."""
    return tuple(dict.fromkeys(path for path, _ in programs))


def _context_names() -> tuple[str, ...]:
    try:
        return tuple(_jax.trace_context_names())
    except Exception:  # private API: without it a context entry is named by its position
        return ()


def _first_lines(text: str, limit: int = 12) -> str:
    lines = text.strip().splitlines()
    return "\n".join(lines[:limit]) + ("\n…" if len(lines) > limit else "")
