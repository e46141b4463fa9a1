"""The card holder: one card per compiled signature, and the counts of a function's calls.

JAX-free: a card is data about an executable, not the executable (see :mod:`jitlab.probe.probe`).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from jitlab.records.calls import CallKind, Signature
from jitlab.records.history import Tally
from jitlab.records.scripts import Script

_HIT = CallKind.CACHE_HIT


def tally(counter: itertools.count[int]) -> int:
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
    script_cache: tuple[int, Script] | None = field(default=None, repr=False, compare=False)
    # Emptied from JAX's cache by a clear jitlab saw (jax.clear_caches(), the jit object's
    # clear_cache()): kept in the ledger, never again the program a compile is compared with.
    dropped_by: str = field(default="", repr=False, compare=False)  # its words, or ""


@dataclass
class Ledger:
    """Per-function bookkeeping: the card holder, counts per kind, time spent compiling."""

    cards: list[Card] = field(default_factory=list)
    # Calls filed under the lock: counts by kind and phase times. Hits only counted
    # (Probe(record_hits=False)) are tallied lock-free in hit_tallies, steady hits in
    # steady_hits; ``counts`` adds them up.
    filed: Tally = field(default_factory=Tally)
    ever_compiled: bool = False
    # The programs compiled under a transformation ((path, signature text) -> the function
    # object that compiled it first), and the hits on them: a plain compile after them is
    # not the function's first, and those hits are no executables compiled out of sight.
    transformed: dict[tuple[str, str], int] = field(default_factory=dict, repr=False)
    transformed_hits: int = 0
    retired: list[Card] = field(default_factory=list)  # cards dropped by a cache clear
    # generation -> wrappers.cache_identity of that function object (kind, function, jit
    # options): tells "jitted again with other options" from a new function object.
    instances: dict[int, Any] = field(default_factory=dict, repr=False, compare=False)
    # generation -> wrappers.transformations of that function object: jax.jit(jax.grad(f))
    # and jax.jit(f) are two functions of one code, not one defined again.
    layers: dict[int, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)
    # Probes that share a ledger (instances of one definition site) share its lock too.
    lock: Any = field(default_factory=threading.RLock, repr=False, compare=False)
    # Each probe's lock-free tally of its counted hits (Probe._unrecorded): one count per
    # hit, summed here when read.
    hit_tallies: list[itertools.count[int]] = field(default_factory=list, repr=False, compare=False)
    # Hits whose card was known before their wait (one card, or CardIndex.find): filed
    # under the lock, their records made later (RecordStore.settle).
    steady_hits: int = field(default=0, repr=False)

    @property
    def counts(self) -> dict[CallKind, int]:
        """Calls per kind, exact over every call of every probe sharing this ledger."""
        counts = dict(self.filed.counts)
        counts[_HIT] += self.steady_hits + sum(tally(counted) for counted in self.hit_tallies)
        return counts

    @property
    def hits(self) -> int:
        """Cache hits, as ``counts`` has them, without copying the counts (the watch reads
        every function's hits once a second: with thousands of functions that adds up)."""
        hits = self.filed.counts[_HIT] + self.steady_hits
        for counted in self.hit_tallies:
            hits += tally(counted)
        return hits

    @property
    def calls(self) -> int:
        return sum(self.counts.values())

    @property
    def trace_ms(self) -> float:
        return self.filed.trace_ms

    @property
    def lower_ms(self) -> float:
        return self.filed.lower_ms

    @property
    def compile_ms(self) -> float:
        return self.filed.compile_ms

    @property
    def time_lost_ms(self) -> float:
        return self.trace_ms + self.lower_ms + self.compile_ms

    def card(self, index: int) -> Card | None:
        """The held card numbered ``index``, if any (lock held by the caller)."""
        for card in self.cards:
            if card.index == index:
                return card
        return None
