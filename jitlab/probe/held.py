"""The cards of the function object a probe calls now, as the probe finds them: by key, by
where they differ (:class:`~jitlab.probe.card_index.CardIndex`), and whether JAX's cache holds
exactly their executables (then a hit used one of them, and the hot path reads which off a
few leaves). The cards themselves are the ledger's, shared by every function object of the
function (:class:`~jitlab.probe.cards.Ledger`).

JAX-free: JAX's cache size is handed in. The probe's hot path reads the attributes lock-free;
every method runs with the probe's lock held.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from jitlab.probe.card_index import CardIndex
from jitlab.probe.cards import Card
from jitlab.probe.signature import StaticSpec, equivalent_keys


class HeldCards:
    """One function object's cards and what JAX's cache held when they were made."""

    # Slots: the probe's hot path reads several of these on every hit, after the device's
    # work has left the interpreter's data cold; one compact object is the fewest lines.
    __slots__ = (
        "by_key",
        "clears_at_compile",
        "compiles",
        "entries_after_compile",
        "exact",
        "exact_entries",
        "index",
        "sibling_served",
    )

    def __init__(self) -> None:
        self.by_key: dict[Hashable, Card] = {}
        self.index = CardIndex()  # the cards by where they differ
        # JAX's cache for this function object holds exactly the executables of our cards
        # (``exact_entries`` of them): then a hit used one of them (see CardIndex.find).
        self.exact = False
        self.exact_entries = 0
        self.compiles = 0  # executables the probe saw made (moves on every compile record)
        self.sibling_served = False  # hits before its first compile (Filing._served_by_others)
        self.entries_after_compile = -2  # JAX's cache size after the last compile
        # (jax.clear_caches() calls, this jit object's clear_cache() calls) at the last
        # compile: what emptied JAX's cache since (monitor.clears_of).
        self.clears_at_compile: tuple[int, int] = (0, 0)

    def restart(self, entries: int) -> None:
        """Count JAX's ``entries`` from here: exact while every one is a card of ours."""
        self.exact = entries == 0
        self.exact_entries = 0

    def new_object(self, entries: int) -> None:
        """The probe calls a new function object: none of these cards is its own yet."""
        self.index.clear()
        self.restart(entries)

    def clear(self, entries: int) -> None:
        """The cards were dropped (``Probe.clear_cache``)."""
        self.by_key.clear()
        self.new_object(entries)

    def added(
        self,
        card: Card,
        key: Hashable | None,
        entries: int,
        statics: StaticSpec,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        """A compile made ``card`` (filed under ``key``); JAX's cache now holds ``entries``."""
        if key is not None:
            self.by_key[key] = card
        # Exact while each compile adds one entry to JAX's cache and nothing else does.
        self.exact = self.exact and entries == self.exact_entries + 1
        if self.exact:
            self.exact_entries = entries
            self.index.add(card, statics, args, kwargs)

    def held(
        self, key: Hashable | None, context: tuple[Any, ...], plain: Card | None
    ) -> Card | None:
        """The card for these arguments under this trace context, if we hold one
        (``plain``: the card filed under the key alone; one under ``(key, context)`` is
        filed only when there is one)."""
        if key is None or plain is None:
            return None
        card = self.by_key.get((key, context)) or plain
        if card.context and context and card.context != context:
            return None
        return card

    def equivalent(self, key: Hashable, cards: list[Card], entries: int) -> Card | None:
        """The card of a call JAX serves with the same executable though its key is not
        equal (``P()`` and ``P(None, None)`` on one mesh: JAX compares shardings normalised).
        Remembered under this key too (bounded), so the next such hit is one lookup."""
        self.exact = False  # JAX holds an entry for this key that is not a card
        for card in cards:
            if equivalent_keys(key, card.key):
                if len(self.by_key) < 4 * len(cards) + 64:
                    self.by_key[key] = card
                if len(cards) == 1:
                    # JAX's C++ cache grew by an entry for the equivalent sharding, without a
                    # compile: the steady path may serve the next hits again.
                    self.entries_after_compile = entries
                return card
        return None

    def nearest(
        self,
        key: Hashable | None,
        context: tuple[Any, ...],
        cards: list[Card],
        nearest: int,
        others: int,
    ) -> list[Card]:
        """The cards a compile is compared with when there are many: the closest
        ``nearest`` of this function object's structure and the newest ``others`` of the
        rest (of the ledger's ``cards``), oldest first."""
        near = self.index.closest(key, context, nearest)
        chosen = {id(card) for card in near}
        indexed = self.index.ids if near else set[int]()
        rest: list[Card] = []
        # The newest cards the index does not hold, among the newest few (all may be indexed).
        for card in reversed(cards[-8 * others :]):
            if len(rest) == others:
                break
            if id(card) not in indexed and id(card) not in chosen:
                rest.append(card)
        return sorted(near + rest, key=lambda card: card.index)

    def cleared_by(self, clears: tuple[int, int], told: bool) -> str:
        """What emptied JAX's cache since the last compile (``clears`` now, see
        :func:`jitlab.probe.monitor.clears_of`): ``jax.clear_caches()``, the jit object's
        own ``clear_cache()``, ``evicted`` when neither did and both are ``told``; else ""."""
        if clears[0] != self.clears_at_compile[0]:
            return "jax.clear_caches()"
        if clears[1] != self.clears_at_compile[1]:
            return "clear_cache()"
        return "evicted" if told else ""

    def dropped(self, entries: int) -> bool:
        """Did JAX's cache (``entries`` now) lose entries since the last compile?

        After this compile it holds one more entry than after the last one, unless some
        were dropped (``jax.clear_caches()``, eviction) in between.
        """
        return 0 <= entries <= self.entries_after_compile
