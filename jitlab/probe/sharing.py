"""Executables shared between jit objects: ``jax.jit(f)`` twice, with the same options, is
one cache in JAX (it keys on the Python function and the options, not the jit object).

Probes of such objects register here by :func:`jitlab.probe.wrappers.cache_identity`, so a
hit on none of a probe's cards can be named as another probe's executable, and a first
compile after another probe's is a recompile of the function.
"""

from __future__ import annotations

import weakref
from collections.abc import Hashable
from typing import Any, Protocol

from jitlab.probe import wrappers
from jitlab.probe.cards import Card, Ledger
from jitlab.probe.signature import is_fast_key


class Sharer(Protocol):
    """What sharing reads of a probe (:class:`jitlab.probe.probe.Probe`)."""

    ledger: Ledger
    wrapper: wrappers.Jitted


# Probes by cache identity: weakly, a probe gone is gone from here too.
_sharing: dict[Hashable, weakref.WeakSet[Any]] = {}
# Identities whose probes are all gone are swept when the table has doubled since the last
# sweep: amortised constant time per join (a program jitting 10,000 functions, each alive,
# would otherwise scan the whole table at each join).
_SWEEP_AT = [256]


def join(probe: Sharer, cache_id: Hashable | None) -> None:
    """``probe`` calls a jit object of this cache identity from now on (None: unknown)."""
    if cache_id is None:
        return
    if len(_sharing) > _SWEEP_AT[0]:
        for gone in [k for k, probes in _sharing.items() if not probes]:
            del _sharing[gone]
        _SWEEP_AT[0] = max(256, 2 * len(_sharing))
    _sharing.setdefault(cache_id, weakref.WeakSet()).add(probe)


def sharers(probe: Sharer, cache_id: Hashable | None) -> list[Sharer]:
    """Other probes of the same function and jit options (JAX shares one cache between
    their jit objects): the very function object, or one equal to it while both live (two
    bound methods of one object: :class:`wrappers.FunctionKey`), never by ``id()`` alone."""
    if cache_id is None:
        return []
    return [
        other
        for other in list(_sharing.get(cache_id, ()))
        if other.ledger is not probe.ledger and wrappers.cache_identity(other.wrapper) == cache_id
    ]


def shared_card(
    probe: Sharer, cache_id: Hashable | None, key: Hashable
) -> tuple[Sharer, Card] | None:
    """A card for ``key`` held by another probe of a jax.jit sharing this one's cache."""
    for other in sharers(probe, cache_id):
        for card in other.ledger.cards:
            if _same_call(card.key, key):
                return other, card
    return None


def _same_call(a: Hashable, b: Hashable) -> bool:
    """Two fast keys of the same call, whatever generation each probe counts."""
    if is_fast_key(a) and is_fast_key(b):
        return a[1:] == b[1:]
    return a == b
