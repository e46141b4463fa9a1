"""Which card a cache hit used, and which cards a new compile is closest to, without
looking at every leaf of every card.

A model is a pytree of hundreds to thousands of leaves, but its cards (compiled signatures)
usually differ in a few: the batch, a sequence length. The index keeps, for one probe's
cards of one pytree structure, the leaf positions where they differ. A hit reads only the
few positions that tell the cards apart (at most one fewer than the cards, found greedily),
each through the path that leads to it (``args[1]``, ``kwargs['batch']['x']``), never the
whole tree; a compile ranks the cards on the positions where they differ and diffs the full
signatures of the closest few only.

It answers a hit only when it cannot be wrong (see :meth:`CardIndex.find`); otherwise the
probe keys the whole call as before.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Hashable, Sequence
from itertools import compress
from operator import ne
from typing import Any

import jax

from jitlab.probe.cards import Card
from jitlab.probe.signature import StaticSpec, leaf_aval, leaf_key, statics_key

# One step of the way from the call's arguments to a leaf.
Getter = Callable[[Any], Any]
# What a hit reads: (does the spec split the arguments, the getters of the leaves read, do
# the statics tell cards apart, is a leaf's shape enough, the table from what is read to the
# card).
Lookup = tuple[bool, tuple[Getter, ...], bool, bool, dict[Hashable, Card]]
# Ranking a compile's candidates reads at most this many (position, card) pairs; past it
# only the first positions where the cards differ are read (the closest few are then diffed
# in full, so a coarser ranking costs a less minimal reason at worst, never a false one).
_RANK_BUDGET = 50_000
# Past this many cards of one structure (a shape per call: the recompiles are the problem,
# not the hits' cost) hits are keyed in full and compiles compared with the newest cards.
_MAX_CARDS = 2_048
# A compile's candidates (CardIndex.closest): the newest this many cards, and the newest
# with the call's statics; cards are filed by their leaf keys at the first this many
# positions where the cards differ.
_NEWEST = 8
_AGREE_POSITIONS = 64


class CardIndex:
    """One probe's cards of one function object, indexed by where they differ.

    The probe keeps it under its lock; :meth:`find` runs on the hot path, lock-free (it reads
    a tuple and a dict that :meth:`add` replaces whole).
    """

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.cards: list[Card] = []
        self.ids: set[int] = set()  # id() of each card indexed
        # (generation, tree, keyword names) shared by every card; the cards' keys' layout is
        # signature.fast_key's: (generation, tree, leaf keys, statics, keyword names).
        self.group: tuple[Any, ...] | None = None
        self.mixed = False  # cards of more than one structure: no hit lookup
        self.varying: list[int] = []  # leaf positions where some card differs from the first
        self._varying_set: set[int] = set()
        self.statics_vary = False
        self.getters: dict[int, Getter] = {}  # leaf position -> how to reach it in a call
        self._paths: dict[int, tuple[Any, ...]] = {}  # leaf position -> JAX's key path to it
        self._lookup: Lookup | None = None
        # What the probe's hot path calls: find, or one made for the usual lookup (_hot).
        self.hot: Callable[[tuple[Any, ...], dict[str, Any]], Card | None] = _none
        self._chosen: list[int] = []  # the positions the lookup reads
        # For ranking a compile's candidates without reading every card: per varying
        # position (the first _AGREE_POSITIONS), the cards by their leaf key there; and the
        # cards by their statics.
        self._agree: dict[int, dict[Hashable, list[Card]]] = {}
        self._by_statics: dict[Hashable, list[Card]] = {}

    # -- filled at compiles (lock held) ---------------------------------------------------
    def add(
        self,
        card: Card,
        spec: StaticSpec,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        """Index a new card, made by the call ``(args, kwargs)`` that compiled it."""
        key = card.key
        if not (isinstance(key, tuple) and len(key) == 5) or self.mixed:
            self._give_up()
            return
        group = (key[0], key[1], key[4])
        if self.group is None:
            self.group = group
        elif group != self.group or len(key[2]) != len(_leaves(self.cards[0])):
            self._give_up()  # another structure: keyed in full, as before
            return
        if len(self.cards) >= _MAX_CARDS:
            self._give_up()
            return
        if self.cards:
            first: Any = self.cards[0].key
            for position in _differing(key[2], first[2]):
                if position not in self._varying_set:
                    self._varying_set.add(position)
                    self.varying.append(position)
            self.statics_vary = self.statics_vary or key[3] != first[3]
        self.cards.append(card)
        self.ids.add(id(card))
        self._rank_in(card)
        # Flat in the cards held: the new card is added to the lookup when what it reads
        # tells it apart from the others; the lookup is built again only when not.
        if not self._extend(card, spec, args, kwargs):
            self._lookup = self._build(spec, args, kwargs)
            self.hot = self._hot(spec)

    def _give_up(self) -> None:
        self.mixed = True
        self._lookup = None
        self.hot = _none
        self._agree.clear()
        self._by_statics.clear()

    def _rank_in(self, card: Card) -> None:
        """File the new card where :meth:`closest` looks (the first card is filed at each
        position when that position first varies)."""
        leaves = _leaves(card)
        for position in self.varying[:_AGREE_POSITIONS]:
            values = self._agree.get(position)
            if values is None:  # a position that varies from now: file the earlier cards
                values = self._agree[position] = {}
                for earlier in self.cards[:-1]:
                    values.setdefault(_hashable_leaf(_leaves(earlier)[position]), []).append(
                        earlier
                    )
            values.setdefault(_hashable_leaf(leaves[position]), []).append(card)
        self._by_statics.setdefault(_statics(card), []).append(card)

    def _extend(
        self, card: Card, spec: StaticSpec, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> bool:
        """Add the new card to the lookup in place, if the positions it reads tell the card
        apart and this call's leaves read as its key says (lock held; :meth:`find` may be
        reading the table: a dict gains an entry atomically)."""
        lookup = self._lookup
        if lookup is None or len(self.cards) < 3:
            return False
        _split, getters, statics, by_shape, table = lookup
        if statics != self.statics_vary:
            return False
        leaves = _leaves(card)
        chosen = self._chosen
        try:
            if by_shape:
                root = _root(spec, args, kwargs)
                entry: tuple[Any, ...] = tuple(leaf_aval(leaves[p]).shape for p in chosen)
                for position, get in zip(chosen, getters, strict=True):
                    if tuple(get(root).shape) != tuple(leaf_aval(leaves[position]).shape):
                        return False
            else:
                entry = tuple(_hashable_leaf(leaves[p]) for p in chosen)
            entry_key: Hashable = (_statics(card), entry) if statics else entry
            if entry_key in table:
                return False
        except Exception:
            return False
        table[entry_key] = card
        return True

    def _build(
        self, spec: StaticSpec, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Lookup | None:
        """The positions a hit reads (a greedy separating set), their getters checked on
        this call, and the table from what is read there to the card."""
        cards = self.cards
        chosen: list[int] = []
        groups: list[list[Card]] = [cards] if len(cards) > 1 and not self.statics_vary else []
        if self.statics_vary:  # the cards by their statics, as _rank_in files them
            groups = [g for g in self._by_statics.values() if len(g) > 1]
        flat: list[tuple[Any, Any]] | None = None
        try:
            root = _root(spec, args, kwargs)  # this call, as a hit's getters read it
            if any(p not in self.getters for p in self.varying):
                flat = _flat_paths(spec, args, kwargs)
        except Exception:
            return None
        depths = {p: len(flat[p][0]) if flat is not None else 1 for p in self.varying}
        # Shallow positions first: a top-level argument is one step away.
        for position in sorted(self.varying, key=lambda p: (depths[p], p)):
            if not groups:
                break
            split: list[list[Card]] = []
            splits = False
            for members in groups:
                parts: dict[Hashable, list[Card]] = {}
                for card in members:
                    parts.setdefault(_hashable_leaf(_leaves(card)[position]), []).append(card)
                splits = splits or len(parts) > 1
                split.extend(g for g in parts.values() if len(g) > 1)
            if splits:
                chosen.append(position)
                groups = split
        if groups:
            return None  # cards our keys cannot tell apart (a trace context): keyed in full
        self._chosen = chosen
        getters = []
        for position in chosen:
            getter = self.getters.get(position)
            if getter is None:
                found = flat[position] if flat is not None else None
                getter = _getter(found, root)
                if getter is None or found is None:
                    return None
                self.getters[position] = getter
                self._paths[position] = tuple(found[0])
            getters.append(getter)
        statics = self.statics_vary
        table: dict[Hashable, Card] = {}
        for card in cards:
            entry = tuple(_hashable_leaf(_leaves(card)[p]) for p in chosen)
            table[(_statics(card), entry) if statics else entry] = card
        # Where the shapes alone tell the cards apart (a batch size: the usual case), a hit
        # reads only the shape (no abstract value made, no sharding hashed). Exact: a hit's
        # leaves equal its card's there, so their shapes do too.
        shapes = self._shape_table(chosen, getters, root)
        if shapes is not None:
            return not spec.empty, tuple(getters), statics, True, shapes
        return not spec.empty, tuple(getters), statics, False, table

    def _shape_table(
        self,
        chosen: list[int],
        getters: list[Getter],
        root: Any,
    ) -> dict[Hashable, Card] | None:
        """The table from the chosen leaves' shapes to the cards, if it tells them apart and
        this call's leaves show the shapes their abstract values have; else None."""
        if not chosen:
            return None
        try:
            table: dict[Hashable, Card] = {}
            for card in self.cards:
                entry = tuple(leaf_aval(_leaves(card)[p]).shape for p in chosen)
                table[(_statics(card), entry) if self.statics_vary else entry] = card
            newest = _leaves(self.cards[-1])
            for position, get in zip(chosen, getters, strict=True):
                if tuple(get(root).shape) != tuple(leaf_aval(newest[position]).shape):
                    return None
        except Exception:  # a leaf with no shape (a Python scalar): the full leaf key
            return None
        return table if len(table) == len(self.cards) else None

    def _hot(self, spec: StaticSpec) -> Callable[[tuple[Any, ...], dict[str, Any]], Card | None]:
        """What the probe's hot path calls for the lookup just built: :meth:`find`, or for
        the usual case (no statics; one leaf's shape tells the cards apart, reached by
        items or attributes from the arguments: a batch) a reader of that shape alone."""
        lookup = self._lookup
        if lookup is None:
            return _none
        split, _getters, statics, by_shape, table = lookup
        path = self._paths.get(self._chosen[0]) if len(self._chosen) == 1 else None
        if path is None or len(path) < 2 or split or statics or not by_shape:
            return functools.partial(self.find, spec)
        # The path from (args, kwargs): which of the two, then the steps down to the leaf.
        rest = _steps(path[1:])
        if not rest:
            return functools.partial(self.find, spec)
        read = _chain(rest)
        get = table.get

        def by_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Card | None:
            try:
                return get((read(args).shape,))
            except Exception:  # a path this call does not have: keyed in full
                return None

        def by_kwargs(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Card | None:
            try:
                return get((read(kwargs).shape,))
            except Exception:
                return None

        return by_args if path[0].idx == 0 else by_kwargs

    # -- the hot path ---------------------------------------------------------------------
    def find(self, spec: StaticSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Card | None:
        """The card a cache hit used, read from the few leaves that tell the cards apart.

        Only to be asked when JAX's cache for this function holds exactly the executables
        of these cards (the probe checks its size), so the hit used one of them and the
        call's key equals that card's everywhere the cards agree. None: ask the full key.
        """
        lookup = self._lookup
        if lookup is None:
            return None
        split, getters, statics, by_shape, table = lookup
        try:
            if split:  # the traced arguments as the spec splits them (a few, not the leaves)
                traced, static = spec.split(args, kwargs)
                root: Any = [value for _, value in traced]
            else:  # fast_key flattens (args, kwargs) itself
                root = (args, kwargs)
            if by_shape:
                entry = tuple([get(root).shape for get in getters])
            else:
                entry = tuple([leaf_key(get(root)) for get in getters])
            if statics:
                return table.get((statics_key(static), entry))
            return table.get(entry)
        except Exception:  # a path this call does not have: keyed in full
            return None

    # -- compiles: the cards to compare a new signature with --------------------------------
    def closest(self, key: Hashable | None, context: tuple[Any, ...], limit: int) -> list[Card]:
        """The ``limit`` cards closest to a new call's key, newest first on a tie, ranked on
        the positions where the cards differ (where they all agree, the new call differs
        from each alike); [] if the key is of another structure.

        Flat in the cards held: only the candidates are ranked: the cards that agree with
        the call somewhere the cards differ, the newest cards, and the newest with its
        statics (a card that agrees nowhere can beat those only by a weak type or a
        sharding: a less minimal reason at worst, never a false one)."""
        if not (isinstance(key, tuple) and len(key) == 5) or self.mixed or not self.cards:
            return []
        if (key[0], key[1], key[4]) != self.group or len(key[2]) != len(_leaves(self.cards[0])):
            return []
        leaves = key[2]
        candidates: dict[int, Card] = {id(card): card for card in self.cards[-_NEWEST:]}
        for card in self._by_statics.get(_hashable_leaf(key[3]), [])[-_NEWEST:]:
            candidates[id(card)] = card
        budget = _RANK_BUDGET
        for position, values in self._agree.items():
            agreeing = values.get(_hashable_leaf(leaves[position]), ())
            budget -= len(agreeing) + 1
            if budget < 0:
                break
            for card in agreeing:
                candidates[id(card)] = card
        positions = self.varying[: max(1, _RANK_BUDGET // len(candidates))]
        ranked = []
        for card in candidates.values():
            held = _leaves(card)
            far = sum(_distance(leaves[p], held[p]) for p in positions)
            far += 2 * (key[3] != _statics(card)) + 2 * bool(context and card.context != context)
            ranked.append((far, -card.index, card))
        ranked.sort(key=lambda item: (item[0], item[1]))
        return [card for _, _, card in ranked[:limit]]


def _none(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Card | None:
    return None


def _leaves(card: Card) -> tuple[Any, ...]:
    """The leaf keys of a card's fast_key (indexed cards all have one)."""
    key: Any = card.key
    return key[2]


def _differing(a: tuple[Any, ...], b: tuple[Any, ...]) -> list[int]:
    """The positions where two cards' leaf keys differ (compared at C speed, then checked
    one by one: a key that cannot be compared counts as differing unless it is the same)."""
    try:
        found = list(compress(range(len(a)), map(ne, a, b)))
    except Exception:
        found = list(range(len(a)))
    return [p for p in found if not _same(a[p], b[p])]


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return a is b


def _hashable_leaf(value: Any) -> Hashable:
    try:
        hash(value)
    except TypeError:
        return ("<unhashable>", id(value))
    return value


def _statics(card: Card) -> Hashable:
    key = card.key
    return key[3] if isinstance(key, tuple) and len(key) == 5 else None


def _distance(a: Any, b: Any) -> int:
    """A leaf key's step, weighted as :func:`jitlab.probe.diff.distance` weighs changes."""
    if _same(a, b):
        return 0
    try:
        aval_a, aval_b = leaf_aval(a), leaf_aval(b)
        if _same(aval_a, aval_b):
            return 1  # the sharding (or its commitment to a device) alone
        if aval_a.shape == aval_b.shape and aval_a.dtype == aval_b.dtype:
            return 1  # the weak type alone
    except Exception:
        pass
    return 2


def _flat_paths(
    spec: StaticSpec, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[tuple[Any, Any]]:
    """Each leaf of fast_key's flattening, in its order, with its path from the root
    :meth:`CardIndex.find` reads: ``(args, kwargs)`` for a spec without statics, else the
    list of traced arguments the spec splits off (a bound method's instance, equinox's
    filter: whatever its ``split`` does)."""
    if spec.empty:
        flat = jax.tree_util.tree_flatten_with_path((args, kwargs))[0]
    else:
        traced, _ = spec.split(args, kwargs)
        flat = jax.tree_util.tree_flatten_with_path([value for _, value in traced])[0]
    return [(path, leaf) for path, leaf in flat]


def _root(spec: StaticSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """What the getters start from (see :func:`_flat_paths`)."""
    if spec.empty:
        return (args, kwargs)
    return [value for _, value in spec.split(args, kwargs)[0]]


def _getter(found: tuple[Any, Any] | None, root: Any) -> Getter | None:
    """How to reach a leaf (its path and the leaf, in a call of this structure), or None
    when only a full flatten can (a node whose children are not its items or attributes).
    Checked on this call: the getter must return the very leaf JAX flattens there."""
    if found is None:
        return None
    path, leaf = found
    steps = _steps(path)
    if not steps:
        return None
    getter = _chain(steps)
    try:
        if getter(root) is not leaf:
            return None  # the node's key names something else than its child
    except Exception:
        return None
    return getter


def _steps(path: Sequence[Any]) -> list[Getter] | None:
    """One getter per entry of a JAX key path, or None where only flattening gets in
    (FlattenedIndexKey and the like)."""
    steps: list[Getter] = []
    for entry in path:
        if isinstance(entry, jax.tree_util.SequenceKey):
            steps.append(operator.itemgetter(entry.idx))
        elif isinstance(entry, jax.tree_util.DictKey):
            steps.append(operator.itemgetter(entry.key))
        elif isinstance(entry, jax.tree_util.GetAttrKey):
            steps.append(operator.attrgetter(entry.name))
        else:
            return None
    return steps


def _chain(steps: Sequence[Getter]) -> Getter:
    if len(steps) == 1:  # a top-level traced argument
        return steps[0]
    if len(steps) == 2:  # a top-level argument of a function without statics
        first, second = steps
        return lambda call: second(first(call))

    def walk(call: Any) -> Any:
        node = call
        for step in steps:
            node = step(node)
        return node

    return walk
