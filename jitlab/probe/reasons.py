"""Why a call compiled: from the earlier cards, the new signature and JAX's explanation to a
:class:`~jitlab.records.calls.Reason` (JAX-free: the probe gathers the evidence, this
decides).

jitlab's own diff comes first (signature and devices, static objects, keywords, trace context);
without one, JAX's explanation turned into the same changes; without either, ``unknown``
with JAX's raw words. "Cache cleared" only when a clear or a drop of JAX's cache size was
seen, never as a fallback: a confident wrong answer is worse than none.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from typing import Any, NamedTuple

from jitlab.probe import diff, explain
from jitlab.records.calls import CallKind, Change, Reason, Signature
from jitlab.records.changes import ChangeKind


class Earlier(NamedTuple):
    """An executable to compare the new call with: a card, and what only JAX's live objects
    tell about it (the probe works those out)."""

    signature: Signature
    key: Hashable | None = None  # the card's fast_key (static values as the objects)
    context: tuple[Any, ...] = ()  # JAX's trace context when it compiled
    # The jit options that differ, when the new call's function object is this card's
    # function jitted again with other options (not a new function object, then).
    options: tuple[Change, ...] = ()
    # This card is another jit of the same function whose options differ, yet JAX served
    # the new call's jit from executables it never compiled: its cache is this card's, the
    # options no part of its key. Neither a new function object nor the options are causes.
    same_cache: bool = False
    # (the new call's transformations, this card's) when they differ: jax.jit(jax.grad(f))
    # beside jax.jit(f), another function of the same code (wrappers.transformations).
    transforms: tuple[tuple[str, ...], tuple[str, ...]] | None = None


def infer(
    new: Signature | None,
    explanation: str | None,
    earlier: Sequence[Earlier] = (),
    *,
    kind: CallKind = CallKind.RECOMPILE,
    key: Hashable | None = None,
    context: tuple[Any, ...] = (),
    context_names: Sequence[str] = (),
    site: str = "",
    retired: bool = False,
    dropped: bool = False,
    hits_seen: bool = False,
    theirs: Sequence[Earlier] = (),
    cleared: str = "",
    name: str = "",
    by_part: bool = True,
    transformed: Sequence[str] = (),
) -> Reason:
    """What differed from the closest executable JAX had, as data. JAX's words are kept with
    a reason of jitlab's own only where they say something (see :func:`explain.says_nothing`);
    with nothing of jitlab's own, even "explanation unavailable" is kept: it is all there is.

    ``earlier``: the cards held, oldest first (after a cache clear, with ``retired``, the
    cards it dropped). ``dropped``: JAX's cache for the function lost entries since the last
    compile. With no earlier card: ``hits_seen`` (the function had cache hits before, so
    JAX held executables jitlab never saw compiled) and ``theirs``, the cards of other
    probes sharing JAX's cache for it. ``site`` names the function's definition in a
    new-function-object change. ``cleared``: what emptied JAX's cache since the last
    compile (``jax.clear_caches()``, ``clear_cache()`` of the function ``name``, or
    ``evicted``; "" when not known), said when the closest card is this very signature.
    ``by_part``: JAX ranks earlier keys by the part that differs first (0.9+), not by the
    size of the difference (:func:`diff.closeness`). ``transformed``: the transformations
    (``jvp``, ``vmap``…) the function's programs compiled so far ran under, with no card of
    a plain call: then a plain compile is its first outside them.
    """
    return explain.keep_words(
        _infer(
            new,
            explanation,
            earlier,
            kind,
            key,
            context,
            context_names,
            site,
            retired,
            dropped,
            hits_seen,
            theirs,
            cleared,
            name,
            by_part,
            tuple(transformed),
        )
    )


def _infer(
    new: Signature | None,
    explanation: str | None,
    earlier: Sequence[Earlier],
    kind: CallKind,
    key: Hashable | None,
    context: tuple[Any, ...],
    context_names: Sequence[str],
    site: str,
    retired: bool,
    dropped: bool,
    hits_seen: bool,
    theirs: Sequence[Earlier],
    cleared: str = "",
    name: str = "",
    by_part: bool = True,
    transformed: tuple[str, ...] = (),
) -> Reason:
    # A first compile is one even where jitlab could not describe the arguments (``new``
    # None: one is no pytree, e.g. a Flax NNX module declared with ``pytree=False``).
    if not earlier and (new is not None or (kind is not CallKind.RECOMPILE and not hits_seen)):
        return _first(new, explanation, kind, key, hits_seen, theirs, transformed)
    if new is None:  # nothing of ours to compare with: JAX's words
        return Reason(_jax_or_unknown(explanation), explanation)
    # The closest card explains best, chosen as JAX chooses the key it explains a miss with
    # (diff.closeness); on a tie the newest one (what the user just did).
    cards = list(reversed(earlier))
    diffs = [
        _another_function(new, card, site)
        if card.transforms is not None
        else _options_instead(
            diff.diff(new, card.signature, key, card.key, site), card.options, card.same_cache
        )
        + diff.context_changes(context, card.context, context_names)
        for card in cards
    ]
    sizes = [
        None if by_part else diff.size_before_0_9(changes, new, card.signature, key, card.key)
        for changes, card in zip(diffs, cards, strict=True)
    ]
    ranks = [diff.closeness(d, by_part, size) for d, size in zip(diffs, sizes, strict=True)]
    closest = diffs[ranks.index(min(ranks))]
    if closest:
        return Reason(_with_jax_hint(closest, explanation), explanation)
    if retired or dropped:
        return cleared_reason(cleared, name, explanation)
    return Reason(_jax_or_unknown(explanation), explanation)


def cleared_reason(cleared: str, name: str, explanation: str | None) -> Reason:
    """A compile of a program JAX held until a clear (``cleared``: ``jax.clear_caches()``,
    ``clear_cache()`` of the function ``name``, ``evicted`` or "" for not known) dropped it."""
    path = name if cleared == "clear_cache()" else ""
    return Reason((Change(ChangeKind.CACHE_CLEARED, path, detail=cleared),), explanation)


def _first(
    new: Signature | None,
    explanation: str | None,
    kind: CallKind,
    key: Hashable | None,
    hits_seen: bool,
    theirs: Sequence[Earlier],
    transformed: tuple[str, ...] = (),
) -> Reason:
    """A compile with no card of ours to compare with. JAX's "never seen function" on a
    first compile only says that this function object was never traced before. After
    programs of it under transformations (``transformed``) it is its first plain one."""
    if (kind is not CallKind.RECOMPILE or transformed) and not hits_seen:
        first = {CallKind.PERSISTENT_HIT: ChangeKind.FIRST_PERSISTENT_LOAD}.get(
            kind, ChangeKind.FIRST_CALL
        )
        detail = ",".join(transformed) if first is ChangeKind.FIRST_CALL else ""
        return Reason((Change(first, detail=detail),), explanation)
    # JAX held executables of this function we never saw compiled (before this probe, or
    # for another jax.jit of it): the closest of another probe's cards, else JAX's own
    # words (it compared with what it holds), else "first compile jitlab saw".
    diffs = [diff.diff(new, card.signature, key, card.key) for card in theirs if new is not None]
    diffs = [[c for c in d if c.kind is not ChangeKind.NEW_FUNCTION_OBJECT] for d in diffs]
    closest = min(diffs, key=diff.distance) if diffs else []
    if closest:
        return Reason(tuple(closest), explanation)
    parsed = [
        c
        for c in explain.parse(explanation)
        if c.kind not in (ChangeKind.UNKNOWN, ChangeKind.NEW_FUNCTION_OBJECT)
    ]
    return Reason(tuple(parsed) or (Change(ChangeKind.FIRST_SEEN),), explanation)


def _another_function(new: Signature, card: Earlier, site: str) -> list[Change]:
    """A card of another transformation of the same code (``jax.jit(jax.grad(f))`` beside
    ``jax.jit(f)``): another function to JAX, never compared leaf by leaf with this one."""
    assert card.transforms is not None
    now, was = card.transforms
    return [
        Change(
            ChangeKind.NEW_FUNCTION_OBJECT,
            site,
            before=",".join(was),
            after=",".join(now),
            count=new.function + 1,
        )
    ]


def _options_instead(
    changes: list[Change], options: tuple[Change, ...], same_cache: bool = False
) -> list[Change]:
    """The same function jitted again with other jit options is not a new function object:
    JAX would have shared its cache had the options been the same (and shares it when
    ``same_cache``: then the options are no cause either)."""
    if same_cache:
        return [c for c in changes if c.kind is not ChangeKind.NEW_FUNCTION_OBJECT]
    if not options or not any(c.kind is ChangeKind.NEW_FUNCTION_OBJECT for c in changes):
        return changes
    return [c for c in changes if c.kind is not ChangeKind.NEW_FUNCTION_OBJECT] + list(options)


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


def _jax_or_unknown(explanation: str | None) -> tuple[Change, ...]:
    parsed = [c for c in explain.parse(explanation) if c.kind is not ChangeKind.UNKNOWN]
    return tuple(parsed) or (Change(ChangeKind.UNKNOWN, detail=explain.summary(explanation)),)
