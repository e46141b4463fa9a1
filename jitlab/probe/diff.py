"""What differs between two signatures, trace contexts or keys, as data (JAX-free).

The signatures are :class:`jitlab.records.calls.Signature`; a key is
:func:`jitlab.probe.signature.fast_key`'s, whose static values are the very objects jit
caches on. Nothing here imports JAX, so a reason can be worked out (and tested) from data.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Hashable, Sequence
from itertools import compress
from operator import is_not
from typing import Any

from jitlab.probe import explain
from jitlab.probe.identity import (
    identity_class,
    identity_of,
    is_nnx_graph_node,
    name_of,
    named_pairs,
    same,
    same_data,
    static_parts,
)
from jitlab.records.calls import Change, LeafSpec, Signature
from jitlab.records.changes import ChangeKind
from jitlab.records.diagnoses import identity_parts

__all__ = ["diff", "identity_class", "static_value_changes"]


def key_statics(key: Hashable | None) -> dict[str, Any] | None:
    """The static values (real objects) held in a :func:`fast_key`; None if unknown."""
    if isinstance(key, tuple) and len(key) == 5:
        return dict(key[3])
    return None


def key_keywords(key: Hashable | None) -> frozenset[str] | None:
    """The names passed by keyword in a :func:`fast_key`'s call; None if unknown."""
    if isinstance(key, tuple) and len(key) == 5:
        return frozenset(key[4])
    return None


def short_repr(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def diff(
    new: Signature,
    old: Signature,
    new_key: Hashable | None = None,
    old_key: Hashable | None = None,
    site: str = "",
) -> list[Change]:
    """What differs between two signatures, as data (new ← old): every difference, the
    leaves' and the tree's (a static field that changed beside a leaf is named too).

    With the probe's keys, static values are compared as the objects themselves (a long
    repr hides nothing), keyword-vs-positional passing is seen, and a pytree's static data
    is named field by field wherever it changed. ``site`` is where the function is defined,
    named in a new-function-object change.
    """
    changes: list[Change] = []
    if new.function != old.function:
        changes.append(Change(ChangeKind.NEW_FUNCTION_OBJECT, site, count=new.function + 1))
    aligned = _aligned_changes(new.leaves, old.leaves)
    if aligned is not None:
        changes += aligned
    else:
        found: list[Change] = []
        old_leaves = {leaf.path: leaf for leaf in old.leaves}
        new_leaves = {leaf.path: leaf for leaf in new.leaves}
        for path, leaf in new_leaves.items():
            before = old_leaves.get(path)
            if before is None:
                found.append(Change(ChangeKind.NEW_ARGUMENT, path, None, leaf.type_text))
            else:
                _leaf_changes(found, leaf, before)
        for path, before in old_leaves.items():
            if path not in new_leaves:
                found.append(Change(ChangeKind.ARGUMENT_GONE, path, before.type_text))
        found = _regrown(found, new.leaves, old.leaves)
        changes += _grown_subtrees(found, new, old, new_key, old_key)
    if new.tree != old.tree:
        changes += _tree_changes(new, old, new_key, old_key, changes, aligned is not None)
    changes += _static_changes(new, old, key_statics(new_key), key_statics(old_key))
    changes += _keyword_changes(new, old, key_keywords(new_key), key_keywords(old_key))
    return changes


def _tree_changes(
    new: Signature,
    old: Signature,
    new_key: Hashable | None,
    old_key: Hashable | None,
    found: list[Change],
    aligned: bool,
) -> list[Change]:
    """The tree's own differences beside the leaves' (``found``): static data and nodes
    with no leaves, each where it is. With the leaves at the same paths (``aligned``) each
    is a difference of its own; otherwise only those away from the sub-trees that gained or
    lost leaves (already named there), and the static data of a node above them (a
    difference of its own: its children's leaves do not say it)."""
    nodes = tree_node_changes(new, old, new_key, old_key)
    if nodes is None:  # the treedefs cannot be walked: the whole structure, unnamed
        whole = [Change(ChangeKind.TREE_STRUCTURE, "", old.tree, new.tree)]
        return whole if aligned or not found else []
    if aligned:
        return nodes
    moved = (ChangeKind.TREE_STRUCTURE, ChangeKind.NEW_ARGUMENT, ChangeKind.ARGUMENT_GONE)
    covered = [c.path for c in found if c.kind in moved]
    return [
        c
        for c in nodes
        if not any(
            _related(c.path, path) and not (_is_static(c.detail) and _under(path, c.path))
            for path in covered
        )
    ]


def _related(a: str, b: str) -> bool:
    """Is one of two paths at or under the other (the arguments' root, "", is above all)?"""
    return a == b or not a or not b or _under(a, b) or _under(b, a)


def _aligned_changes(new: Sequence[LeafSpec], old: Sequence[LeafSpec]) -> list[Change] | None:
    """The changes between two signatures whose leaves have the same paths in the same
    order (a model's compiles, mostly), looking only where the leaf specs are not the very
    same object (the probe makes one per path and type); None when not aligned."""
    if len(new) != len(old):
        return None
    changes: list[Change] = []
    for i in compress(range(len(new)), map(is_not, new, old)):
        leaf, before = new[i], old[i]
        if leaf.path != before.path:
            return None
        _leaf_changes(changes, leaf, before)
    return changes


def _leaf_changes(changes: list[Change], leaf: LeafSpec, before: LeafSpec) -> None:
    """What differs in one argument's leaf (same path), appended to ``changes``."""
    if leaf == before:
        return
    path = leaf.path
    if leaf.dtype != before.dtype:
        changes.append(Change(ChangeKind.DTYPE, path, before.type_text, leaf.type_text))
    elif leaf.shape != before.shape:
        changes.append(Change(ChangeKind.SHAPE, path, before.type_text, leaf.type_text))
    elif leaf.weak_type != before.weak_type:
        changes.append(Change(ChangeKind.WEAK_TYPE, path, before.type_text, leaf.type_text))
    if leaf.sharding != before.sharding:
        changes.append(Change(ChangeKind.SHARDING, path, before.sharding, leaf.sharding))
    elif leaf.device != before.device and leaf.sharding is None:
        # One device for another, or committed for placed where the call runs (None): JAX
        # compiles again with no trace and no explanation.
        changes.append(
            Change(ChangeKind.SHARDING, path, before.device, leaf.device, detail="device")
        )


def _regrown(
    changes: list[Change], new: Sequence[LeafSpec], old: Sequence[LeafSpec]
) -> list[Change]:
    """An argument whose leaves are new and gone at once (``args[1]`` a leaf before, a
    tuple now) changed its pytree structure there: one change at that argument, as JAX's
    ``different input pytree … at input path`` says, not a new and a gone argument."""
    grown = [c.path for c in changes if c.kind is ChangeKind.NEW_ARGUMENT]
    gone = [c.path for c in changes if c.kind is ChangeKind.ARGUMENT_GONE]
    if not grown or not gone:
        return changes
    roots = set()
    for a in grown:
        for b in gone:
            if _under(a, b):
                roots.add(b)
            elif _under(b, a):
                roots.add(a)
    if not roots:
        return changes
    kept = [
        c
        for c in changes
        if c.kind not in (ChangeKind.NEW_ARGUMENT, ChangeKind.ARGUMENT_GONE)
        or not any(c.path == r or _under(c.path, r) for r in roots)
    ]
    for root in sorted(roots):
        before, after = _subtree_text(old, root), _subtree_text(new, root)
        kept.append(Change(ChangeKind.TREE_STRUCTURE, root, before, after))
    return kept


# -- a pytree that changed its structure: where, and how many leaves --------------------------
# One entry of a leaf's path text: ``.name``, ``[0]``, ``['w']`` (after the argument's name).
_ENTRY = re.compile(r"\.[A-Za-z_]\w*|\[(?:'[^']*'|\"[^\"]*\"|[^\]]*)\]")
_NAME = re.compile(r"[A-Za-z_]\w*")


def path_entries(path: str) -> list[str]:
    """A leaf's path text split into its argument's name and its entries
    (``state.opt_state[1].mu['w']`` → ``state``, ``.opt_state``, ``[1]``, ``.mu``, ``['w']``);
    the whole text as one entry when it does not read so."""
    m = _NAME.match(path)
    if m is None:
        return [path]
    entries, at = [m.group()], m.end()
    while at < len(path):
        e = _ENTRY.match(path, at)
        if e is None:
            return [path]
        entries.append(e.group())
        at = e.end()
    return entries


def _common_prefix(paths: Sequence[str]) -> list[str]:
    split = [path_entries(p) for p in paths]
    if not split:
        return []
    common = split[0]
    for entries in split[1:]:
        n = 0
        while n < min(len(common), len(entries)) and common[n] == entries[n]:
            n += 1
        common = common[:n]
    return common


def _subtree_leaves(leaves: Sequence[LeafSpec], root: str) -> str:
    """Every leaf under ``root`` with its type, in full (the record keeps it all; rendering
    shortens it)."""
    parts = [
        f"{leaf.path[len(root) :]}: {leaf.type_text}" if leaf.path != root else leaf.type_text
        for leaf in leaves
        if leaf.path == root or _under(leaf.path, root)
    ]
    return ", ".join(parts) or "no leaves"


def _grown_subtrees(
    changes: list[Change],
    new_sig: Signature,
    old_sig: Signature,
    new_key: Hashable | None,
    old_key: Hashable | None,
) -> list[Change]:
    """Leaves new and gone below an argument that was there before (an optimizer state
    that gained its moments: ``state.opt_state[1].mu['w']`` …): one structure change at the
    sub-tree they share (``state.opt_state[1]``), ``count`` the leaves added, ``detail``
    ``removed=N``, before/after that sub-tree's leaves in full — not one change per leaf."""
    moved = [c for c in changes if c.kind in (ChangeKind.NEW_ARGUMENT, ChangeKind.ARGUMENT_GONE)]
    if len(moved) < 2:
        return changes
    new, old = new_sig.leaves, old_sig.leaves
    prefix = _common_prefix([c.path for c in moved])
    if len(prefix) < 2:  # not below one argument both calls had
        return changes
    # The outermost node that changed, when the keys tell (an EmptyState that became a
    # TraceState: its node, not the dict of new leaves inside it).
    for outer in tree_node_changes(new_sig, old_sig, new_key, old_key) or ():
        if outer.path and not _is_static(outer.detail):
            entries = path_entries(outer.path)
            if 2 <= len(entries) <= len(prefix) and prefix[: len(entries)] == entries:
                prefix = entries
                break
    root = "".join(prefix)
    if not any(leaf.path == prefix[0] or _under(leaf.path, prefix[0]) for leaf in old):
        return changes
    added = sum(c.kind is ChangeKind.NEW_ARGUMENT for c in moved)
    change = Change(
        ChangeKind.TREE_STRUCTURE,
        root,
        _subtree_leaves(old, root),
        _subtree_leaves(new, root),
        detail=f"removed={len(moved) - added}",
        count=added,
    )
    return [c for c in changes if c not in moved] + [change]


def tree_node_changes(
    new: Signature,
    old: Signature,
    new_key: Hashable | None,
    old_key: Hashable | None,
) -> list[Change] | None:
    """Every node where the keys' treedefs differ, outermost first: a static field that
    changed (one change per field, ``detail`` ``static`` or ``identity:…``), a node of
    another class (``detail`` ``class``), another structure (``removed=0``). Named by the
    leaves under each node, else by the node's keys, an argument by its name. None when the
    keys are not a probe's or the treedefs do not walk so."""
    if not (isinstance(new_key, tuple) and isinstance(old_key, tuple)):
        return None
    if len(new_key) != 5 or len(old_key) != 5:
        return None
    try:
        a, b = new_key[1], old_key[1]
        if a == b:  # equal to JAX (node data compared by ``==``), though not in text: 1, True
            return []
        paths_a = [leaf.path for leaf in new.leaves]
        paths_b = [leaf.path for leaf in old.leaves]
        if a.num_leaves != len(paths_a) or b.num_leaves != len(paths_b):
            return None
        walk = _TreeWalk(paths_a, paths_b, new.arguments, old.arguments)
        walk.root(a, b)
    except Exception:  # a treedef that does not walk so: shown whole
        return None
    return walk.found or None


class _TreeWalk:
    """Two treedefs walked together, down every child where they differ (see
    :func:`tree_node_changes`); ``pa``/``pb`` the leaves' path texts of each."""

    def __init__(
        self, pa: list[str], pb: list[str], names_a: Sequence[str], names_b: Sequence[str]
    ) -> None:
        self.pa, self.pb = pa, pb
        self.names_a, self.names_b = names_a, names_b
        self.found: list[Change] = []

    def root(self, a: Any, b: Any) -> None:
        """The arguments' node: a list of them, or ``(args, kwargs)`` for a function with no
        statics; either way its arguments named in order (``Signature.arguments``)."""
        if a == b:
            return
        found_a, found_b = _argument_nodes(a), _argument_nodes(b)
        if found_a is None or found_b is None:
            return
        parts_a, parts_b = found_a[1], found_b[1]
        if found_a[0] != found_b[0]:  # other keywords (named as such): each argument by name
            self._by_name(parts_a, parts_b)
            return
        if len(parts_a) != len(parts_b):
            self.node(a, b, 0, 0, [])  # another number of arguments: said at the root
            return
        ia = ib = 0
        for j, (x, y) in enumerate(zip(parts_a, parts_b, strict=True)):
            if x != y:
                name = self._entry(x, y, ia, ib, [], None, j)
                self.node(x, y, ia, ib, [name])
            ia += x.num_leaves
            ib += y.num_leaves

    def _by_name(self, parts_a: list[Any], parts_b: list[Any]) -> None:
        """The arguments passed in another order (some by keyword instead of by position):
        each argument both calls passed compared with itself, found by its name."""
        if len(self.names_a) != len(parts_a) or len(self.names_b) != len(parts_b):
            return
        at_b: dict[str, tuple[Any, int]] = {}
        start = 0
        for name, y in zip(self.names_b, parts_b, strict=True):
            at_b[name] = (y, start)
            start += y.num_leaves
        ia = 0
        for name, x in zip(self.names_a, parts_a, strict=True):
            y, ib = at_b.get(name, (None, 0))
            if y is not None and x != y:
                self.node(x, y, ia, ib, [name])
            ia += x.num_leaves

    def node(self, a: Any, b: Any, ia: int, ib: int, entries: list[str]) -> None:
        """Nodes ``a`` (new) and ``b`` at ``entries``, their first leaves at ``ia``/``ib``."""
        if a == b:
            return
        path = "".join(entries)
        data_a, data_b = a.node_data(), b.node_data()
        kids_a, kids_b = a.children(), b.children()
        kind_a = data_a[0] if data_a is not None else None
        kind_b = data_b[0] if data_b is not None else None
        if kind_a is not kind_b or len(kids_a) != len(kids_b):
            classes = _is_custom(kind_a) and _is_custom(kind_b) and kind_a is not kind_b
            before, after = _node_summary(b, kind_b), _node_summary(a, kind_a)
            detail = "class" if classes else "removed=0"
            self.found.append(Change(ChangeKind.TREE_STRUCTURE, path, before, after, detail=detail))
            return
        if data_a != data_b:
            assert data_a is not None and data_b is not None  # a leaf is equal to a leaf
            if not _is_custom(kind_a):  # a dict's other keys: another structure
                before, after = _node_summary(b, kind_b), _node_summary(a, kind_a)
                change = Change(ChangeKind.TREE_STRUCTURE, path, before, after, detail="removed=0")
                self.found.append(change)
                return
            if not self._static(kind_a, data_a[1], data_b[1], path):
                return  # its children are others (an NNX node's attributes)
        for j, (x, y) in enumerate(zip(kids_a, kids_b, strict=True)):
            if x != y:
                entry = self._entry(x, y, ia, ib, entries, (kind_a, data_a), j)
                self.node(x, y, ia, ib, [*entries, entry])
            ia += x.num_leaves
            ib += y.num_leaves

    def _static(self, kind: Any, new: Any, old: Any, path: str) -> bool:
        """Name what differs in a registered node's static data; True when its children
        still pair up one to one (only static values changed)."""
        parts = static_fields(kind, new, old)
        if not parts:
            name = getattr(kind, "__name__", str(kind))
            before, after = f"{name}{old!r}", f"{name}{new!r}"
            self.found.append(Change(ChangeKind.TREE_STRUCTURE, path, before, after, "static"))
            return parts is None and not is_nnx_graph_node(kind)
        graph = is_nnx_graph_node(kind)
        for name, after, before in parts:
            identity = identity_of(after, before)
            detail = identity.detail(name_of(kind), graph) if identity is not None else "static"
            at = f"{path}.{name}" if path else name
            self.found.append(
                Change(
                    ChangeKind.TREE_STRUCTURE,
                    at,
                    short_repr(before),
                    short_repr(after),
                    detail=detail,
                )
            )
        return True

    def _entry(
        self,
        x: Any,
        y: Any,
        ia: int,
        ib: int,
        above: list[str],
        parent: tuple[Any, Any] | None,
        j: int,
    ) -> str:
        """The path entry of child ``j`` (``x`` new, ``y`` old): read off a leaf under it
        (the entry after ``above``), else the parent's keys; an argument (no ``parent``) by
        its name."""
        for paths, start, child in ((self.pa, ia, x), (self.pb, ib, y)):
            if child.num_leaves:
                entries = path_entries(paths[start])
                if entries[: len(above)] == above and len(entries) > len(above):
                    return entries[len(above)]
        if parent is None:
            names = self.names_a if len(self.names_a) > j else self.names_b
            return names[j] if len(names) > j else f"args[{j}]"
        return _child_entry(parent[0], parent[1], j)


def _argument_nodes(root: Any) -> tuple[Any, list[Any]] | None:
    """(the keywords' names, the arguments' nodes) under the root a probe keys on: the
    list's children (no keywords apart), or for ``(args, kwargs)`` the tuple's and the
    dict's; None for another root."""
    data = root.node_data()
    kind = data[0] if data is not None else None
    kids = root.children()
    if kind is list:
        return None, list(kids)
    if kind is tuple and len(kids) == 2:
        first, second = (kid.node_data() for kid in kids)
        if first is not None and second is not None and (first[0], second[0]) == (tuple, dict):
            return second[1], [*kids[0].children(), *kids[1].children()]
    return None


def _child_entry(kind: Any, data: Any, j: int) -> str:
    """The path entry of a child with no leaves, from its parent's kind and static data
    (as JAX writes keys: ``[0]``, ``['w']``, ``.name``); its index otherwise."""
    aux = data[1] if data is not None else None
    if kind is dict and isinstance(aux, list | tuple) and j < len(aux):
        return f"[{aux[j]!r}]"
    fields = getattr(kind, "_fields", None)
    if isinstance(fields, tuple) and j < len(fields):
        return f".{fields[j]}"
    if is_nnx_graph_node(kind) and isinstance(aux, tuple) and aux and j < len(aux[0]):
        return f".{aux[0][j]}"
    dynamic = _dynamic_fields(kind)
    if dynamic is not None and j < len(dynamic):
        return f".{dynamic[j]}"
    return f"[{j}]"


def _fields_of(kind: Any) -> tuple[str, ...] | None:
    """A namedtuple's fields (its node data is None: a change is another structure)."""
    fields = getattr(kind, "_fields", None)
    return fields if isinstance(fields, tuple) and isinstance(kind, type) else None


def _is_custom(kind: Any) -> bool:
    """A node of a registered class (not a leaf, None, tuple, list, dict or namedtuple)."""
    return (
        isinstance(kind, type)
        and kind not in (tuple, list, dict, type(None))
        and _fields_of(kind) is None
    )


def _node_summary(tree: Any, kind: Any) -> str:
    """A node as the user wrote it: a registered class by its name (``Tsit5``), never its
    treedef; a container (tuple, list, dict, None) as JAX prints its structure, with each
    registered class inside it by its name too (``(Config(*),)``, not ``CustomNode(…)``)."""
    if _is_custom(kind):
        return _class_name(kind)
    try:
        return _structure_text(tree)
    except Exception:  # a treedef that does not walk so: JAX's own text
        return str(tree).removeprefix("PyTreeDef(").removesuffix(")")


def _class_name(kind: Any) -> str:
    return str(getattr(kind, "__qualname__", getattr(kind, "__name__", kind)))


def _structure_text(tree: Any) -> str:
    """A treedef written as JAX writes a container's structure (``*`` a leaf), a registered
    class (a dataclass, a namedtuple, ``Partial``) by its name with its children."""
    data = tree.node_data()
    if data is None:
        return "*"
    kind, aux = data
    kids = [_structure_text(child) for child in tree.children()]
    if kind is type(None):
        return "None"
    if kind is tuple:
        return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
    if kind is list:
        return "[" + ", ".join(kids) + "]"
    if kind is dict:
        return "{" + ", ".join(f"{key!r}: {kid}" for key, kid in zip(aux, kids, strict=True)) + "}"
    return f"{_class_name(kind)}({', '.join(kids)})"


# -- a node's static data, field by field -----------------------------------------------------
def static_fields(kind: Any, new: Any, old: Any) -> list[tuple[str, Any, Any]] | None:
    """(name, new value, old value) of each static field that differs between two nodes'
    static data where its layout is known; None where it is not. A class registered by
    ``jax.tree_util.register_dataclass`` (meta fields listed, or marked ``static`` for the
    decorator form; ``flax.struct``) is read by the meta fields JAX flattens it with, never
    by its declaration; besides, the layouts of :func:`jitlab.probe.identity.static_parts`
    (Flax NNX graph nodes), a dataclass's ``static`` fields (Equinox's
    ``field(static=True)``, after its wrapper slot), a ``functools.partial``'s function
    (``jax.tree_util.Partial``) and a dict of named values (``BCOO``'s shape)."""
    meta = _registered_fields(kind, 1)
    if meta is not None:
        return named_pairs(meta, new, old)
    parts = static_parts(kind, new, old)
    if parts is not None:
        return parts
    try:
        pairs: list[tuple[str, Any, Any]]
        if isinstance(kind, type) and issubclass(kind, functools.partial):
            pairs = [("func", new, old)]
        elif isinstance(new, dict) and isinstance(old, dict):
            news: dict[Any, Any] = new  # pyright: ignore[reportUnknownVariableType]
            olds: dict[Any, Any] = old  # pyright: ignore[reportUnknownVariableType]
            if news.keys() != olds.keys():
                return None
            pairs = [(str(k), news[k], olds[k]) for k in news]
        elif dataclasses.is_dataclass(kind) and isinstance(new, tuple) and isinstance(old, tuple):
            names = [f.name for f in dataclasses.fields(kind) if f.metadata.get("static")]
            values_new: tuple[Any, ...] = new  # pyright: ignore[reportUnknownVariableType]
            values_old: tuple[Any, ...] = old  # pyright: ignore[reportUnknownVariableType]
            if len(values_new) != len(values_old):
                return None
            if len(values_new) == len(names) + 1 and isinstance(kind, type) and _is_equinox(kind):
                if not same(values_new[0], values_old[0]):
                    return None  # its wrapper slot (``__wrapped__`` …): not a field
                values_new, values_old = values_new[1:], values_old[1:]
            if len(values_new) != len(names):
                return None
            pairs = list(zip(names, values_new, values_old, strict=True))
        else:
            return None
        return [(name, x, y) for name, x, y in pairs if not same_data(x, y)]
    except Exception:
        return None


def _registered_fields(kind: Any, which: int) -> tuple[str, ...] | None:
    """The data (``which`` 0) or meta (1) fields ``kind`` was registered with by
    ``register_dataclass``; None for a class registered otherwise."""
    from jitlab.probe import _jax  # here: the rest of this module reads no JAX

    fields = _jax.dataclass_fields(kind)
    return fields[which] if fields is not None else None


def _is_equinox(kind: type) -> bool:
    return any(c.__module__.startswith("equinox") and c.__name__ == "Module" for c in kind.__mro__)


def _dynamic_fields(kind: Any) -> list[str] | None:
    """A dataclass node's children's names, in order: the data fields it was registered
    with, else its fields that are not static."""
    data = _registered_fields(kind, 0)
    if data is not None:
        return list(data)
    try:
        if not dataclasses.is_dataclass(kind):
            return None
        return [
            f.name
            for f in dataclasses.fields(kind)
            if not f.metadata.get("static") and f.metadata.get("pytree_node") is not False
        ]
    except Exception:
        return None


def _is_static(detail: str) -> bool:
    """A node's static data changed (``static``, or ``identity:…`` when equal in content)."""
    return detail == "static" or identity_parts(detail) is not None


def _under(path: str, root: str) -> bool:
    return path.startswith(root) and path[len(root) : len(root) + 1] in ("[", ".")


def _subtree_text(leaves: Sequence[LeafSpec], root: str, limit: int = 60) -> str:
    parts = [
        f"{leaf.path[len(root) :]}: {leaf.type_text}" if leaf.path != root else leaf.type_text
        for leaf in leaves
        if leaf.path == root or _under(leaf.path, root)
    ]
    text = ", ".join(parts)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _static_changes(
    new: Signature,
    old: Signature,
    new_values: dict[str, Any] | None,
    old_values: dict[str, Any] | None,
) -> list[Change]:
    old_text, new_text = dict(old.statics), dict(new.statics)
    changes = []
    for name, value in new_text.items():
        if name not in old_text:
            changes.append(Change(ChangeKind.STATIC_VALUE, name, None, value))
        elif new_values is not None and old_values is not None and name in new_values:
            # Compared as jit compares them: by equality (and hash), never by their text.
            changes += static_value_changes(name, new_values[name], old_values.get(name))
        elif old_text[name] != value:
            changes.append(Change(ChangeKind.STATIC_VALUE, name, old_text[name], value))
    for name, value in old_text.items():
        if name not in new_text:
            changes.append(Change(ChangeKind.STATIC_VALUE, name, value, None))
    return changes


def static_value_changes(path: str, new: Any, old: Any) -> list[Change]:
    """The parts of a static value that differ: dataclass fields, namedtuple fields, tuple
    items and dict entries are walked, so ``cfg.lr`` is named rather than all of ``cfg``."""
    if same(new, old):
        return []
    identity = identity_of(new, old)
    if identity is not None and identity[1] is not None:
        # Functions made anew inside one value (optax.adam(...)'s init and update): that
        # value was built again, and is named whole (``tx``, not ``tx.init``).
        return [_static_change(path, new, old, identity.detail())]
    found: list[Change] = []
    if type(new) is type(old):
        for sub, a, b in _parts(path, new, old):
            found += static_value_changes(sub, a, b)
    # Nothing inside differs (or it has no parts): the value itself is the change.
    if found:
        return found
    # Equal in content, unequal to jit: say which class.
    return [_static_change(path, new, old, identity.detail() if identity else "")]


def _static_change(path: str, new: Any, old: Any, detail: str) -> Change:
    return Change(ChangeKind.STATIC_VALUE, path, short_repr(old), short_repr(new), detail)


def _parts(path: str, new: Any, old: Any) -> list[tuple[str, Any, Any]]:
    if dataclasses.is_dataclass(new) and not isinstance(new, type):
        return [
            (f"{path}.{f.name}", getattr(new, f.name), getattr(old, f.name))
            for f in dataclasses.fields(new)
            if f.compare
        ]
    if isinstance(new, tuple) and hasattr(new, "_fields") and len(new) == len(old):
        return [(f"{path}.{name}", a, b) for name, a, b in zip(new._fields, new, old, strict=True)]
    if isinstance(new, tuple | list) and len(new) == len(old):
        return [(f"{path}[{i}]", a, b) for i, (a, b) in enumerate(zip(new, old, strict=True))]
    if isinstance(new, dict) and new.keys() == old.keys():
        return [(f"{path}[{k!r}]", new[k], old[k]) for k in new]
    return []


def _root(path: str) -> str:
    return _ROOT.split(path, maxsplit=1)[0]  # ``params`` of ``params['w']``, ``cfg`` of ``cfg.lr``


_ROOT = re.compile(r"[\[.]")


def _keyword_changes(
    new: Signature,
    old: Signature,
    new_kw: frozenset[str] | None,
    old_kw: frozenset[str] | None,
) -> list[Change]:
    if new_kw is None or old_kw is None or new_kw == old_kw:
        return []
    # An argument both calls passed: one with leaves, a static, or one without leaves (an
    # empty tuple or dict), which only the arguments' names show.
    in_both = {_root(leaf.path) for leaf in new.leaves} & {_root(leaf.path) for leaf in old.leaves}
    in_both |= {name for name, _ in new.statics} & {name for name, _ in old.statics}
    in_both |= {_root(name) for name in new.arguments} & {_root(name) for name in old.arguments}
    return [
        Change(
            ChangeKind.KEYWORD_VS_POSITIONAL,
            name,
            "position" if name in new_kw else "keyword",
            "keyword" if name in new_kw else "position",
        )
        for name in sorted(new_kw ^ old_kw)
        if name in in_both
    ]


def mesh_text(mesh: Any) -> str | None:
    """``mesh(x=8)`` for a mesh in JAX's context; None for none (outside ``jax.set_mesh``)."""
    shape = getattr(mesh, "shape", None)
    if not shape or not hasattr(shape, "items"):
        return None
    try:
        axes = ",".join(f"{name}={size}" for name, size in shape.items())
    except Exception:
        return _short_text(mesh)
    return f"mesh({axes})"


def _short_text(value: Any, limit: int = 60) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_SMALL = (ChangeKind.WEAK_TYPE, ChangeKind.SHARDING, ChangeKind.KEYWORD_VS_POSITIONAL)


def distance(changes: list[Change]) -> int:
    """How far apart two signatures are: a weak-type, sharding or keyword change is the
    smallest step."""
    return sum(1 if change.kind in _SMALL else 2 for change in changes)


# The parts of JAX's tracing-cache key, in the order JAX ranks an earlier key's difference
# (``pe.diff_tracing_cache_keys``: trace context, input pytree, debug info, input types).
# Static arguments and keyword-vs-positional passing are part of the input pytree there.
_KEY_PARTS = (
    frozenset({ChangeKind.TRACING_CONTEXT, ChangeKind.MESH_CONTEXT}),
    frozenset(
        {
            ChangeKind.TREE_STRUCTURE,
            ChangeKind.NEW_ARGUMENT,
            ChangeKind.ARGUMENT_GONE,
            ChangeKind.STATIC_VALUE,
            ChangeKind.KEYWORD_VS_POSITIONAL,
        }
    ),
    frozenset({ChangeKind.SHAPE, ChangeKind.DTYPE, ChangeKind.WEAK_TYPE, ChangeKind.SHARDING}),
)


# -- JAX 0.6–0.8: the size of a difference, as pjit.diff_tracing_cache_keys counts it -------
_TYPE_TEXT = re.compile(r"^(~?)[A-Za-z0-9_]+\[([0-9,]*)\]")


def size_before_0_9(
    changes: list[Change],
    new: Signature,
    old: Signature,
    new_key: Hashable | None,
    old_key: Hashable | None,
) -> int:
    """How far an earlier key is from the new call's as JAX 0.6–0.8 counts it
    (``pjit.diff_tracing_cache_keys``, the same in 0.6.2, 0.7.2 and 0.8.3), the key with the
    smallest sum explaining the miss. Each part as there: a trace-context entry 1; the
    positional static values (``_argnums_partial``: 1 when the dynamic positions differ,
    then a list difference) and the keyword ones (``_argnames_partial``); the input pytree
    (``flatten_fun3``): with the leaf count unchanged and the new call's positional
    arguments a prefix of the earlier's ("different number of args and kwargs", counted 0),
    else one per place ``equality_errors_pytreedef`` stops at (the positional tuple or the
    keyword dict whole when their lengths or keys differ); the types, only with the leaf
    count unchanged: per leaf max(1, its shape's list difference + 1 for a weak type, else
    1 for another mesh). A device move is no part of the trace key. Without the keys:
    :func:`distance`."""
    kw_new, kw_old = key_keywords(new_key), key_keywords(old_key)
    st_new, st_old = key_statics(new_key), key_statics(old_key)
    if kw_new is None or kw_old is None or st_new is None or st_old is None:
        return distance(changes)
    size = 0
    ctx = [c for c in changes if c.kind is ChangeKind.TRACING_CONTEXT]
    size += len({c.path for c in ctx if c.detail != "axis"})
    size += any(c.detail == "axis" for c in ctx) + any(
        c.kind is ChangeKind.MESH_CONTEXT for c in changes
    )
    statics = set(st_new) | set(st_old)
    pos_new = [a for a in new.arguments if a not in kw_new]
    pos_old = [a for a in old.arguments if a not in kw_old]
    if statics:
        valued = {
            _root(c.path)
            for c in changes
            if c.kind is ChangeKind.STATIC_VALUE and _root(c.path) in statics
        }
        if len(pos_new) != len(pos_old):
            size += 1  # "different static_argnums": other dynamic positions
        size += _list_size(
            [n for n in st_new if n not in kw_new], [n for n in st_old if n not in kw_old], valued
        )
        size += _list_size(
            sorted(n for n in st_new if n in kw_new),
            sorted(n for n in st_old if n in kw_old),
            valued,
        )
    else:
        statics = set()
    nodes = _tree_nodes(changes, statics)
    kw_dyn_new = {a for a in new.arguments if a in kw_new}
    kw_dyn_old = {a for a in old.arguments if a in kw_old}
    same_count = len(new.leaves) == len(old.leaves)
    if nodes or kw_dyn_new != kw_dyn_old or pos_new != pos_old:
        prefix = (
            same_count
            and pos_old[: len(pos_new)] == pos_new
            and not any(_root(n) in pos_new for n in nodes)
        )
        if not prefix:
            if len(pos_new) != len(pos_old):
                size += 1
            else:
                size += sum(1 for n in nodes if _root(n) in pos_new)
            if kw_dyn_new != kw_dyn_old:
                size += 1
            else:
                size += sum(1 for n in nodes if _root(n) in kw_dyn_new)
    if same_count:
        size += sum(_type_sizes(changes).values())
    return size


def _list_size(new: list[str], old: list[str], valued: set[str]) -> int:
    """pjit's ``list_diff_size`` of two lists of static values, by their names (a value
    that changed is in ``valued``)."""
    common = min(len(new), len(old))
    return (
        max(len(new), len(old))
        - common
        + sum(1 for a, b in zip(new[:common], old[:common], strict=True) if a != b or a in valued)
    )


def _tree_nodes(changes: list[Change], statics: set[str]) -> set[str]:
    """The outermost nodes where the pytrees differ (each one of JAX's equality errors):
    a node of another structure, a node whose static data changed (one per node, however
    many fields), the parent of a leaf new or gone."""
    found: set[str] = set()
    for c in changes:
        if c.kind in (ChangeKind.NEW_ARGUMENT, ChangeKind.ARGUMENT_GONE):
            found.add(_parent_path(c.path))
        elif c.kind is ChangeKind.TREE_STRUCTURE and _is_static(c.detail):
            # A static field (``.func``, ``z.s1``) is its node's; a node's whole static data
            # (``t[2]``: a custom node's aux data) is at the node itself.
            entries = path_entries(c.path)
            field = len(entries) > 1 and entries[-1].startswith(".")
            found.add(_parent_path(c.path) if field else c.path)
        elif c.kind is ChangeKind.TREE_STRUCTURE:
            found.add(c.path)
        elif c.kind is ChangeKind.STATIC_VALUE and _root(c.path) not in statics:
            found.add(_parent_path(c.path))
    return {
        n for n in found if not any(m != n and _related(m, n) and len(m) < len(n) for m in found)
    }


def _parent_path(path: str) -> str:
    entries = path_entries(path)
    return "".join(entries[:-1]) if len(entries) > 1 else path


def _type_sizes(changes: list[Change]) -> dict[str, int]:
    """Per leaf, pjit's size of its type difference (0.6–0.8)."""
    sizes: dict[str, int] = {}
    meshed: set[str] = set()
    for c in changes:
        if c.kind is ChangeKind.SHARDING and c.detail != "device":
            if (c.before is None) != (c.after is None):  # on a mesh or not: another aval
                meshed.add(c.path)
                sizes.setdefault(c.path, 0)
        elif c.kind in (ChangeKind.SHAPE, ChangeKind.DTYPE, ChangeKind.WEAK_TYPE):
            a = _TYPE_TEXT.match(c.after or "")
            b = _TYPE_TEXT.match(c.before or "")
            if a is None or b is None:
                sizes[c.path] = 1
                continue
            dims_a = [d for d in a[2].split(",") if d]
            dims_b = [d for d in b[2].split(",") if d]
            common = min(len(dims_a), len(dims_b))
            size = max(len(dims_a), len(dims_b)) - common
            size += sum(1 for x, y in zip(dims_a[:common], dims_b[:common], strict=True) if x != y)
            sizes[c.path] = size + (1 if a[1] != b[1] else 0)
    for path, size in sizes.items():
        weak = any(c.kind is ChangeKind.WEAK_TYPE and c.path == path for c in changes)
        sizes[path] = max(1, size + (1 if path in meshed and not weak else 0))
    return sizes


def closeness(
    changes: list[Change], by_part: bool = True, size: int | None = None
) -> tuple[int, int, int]:
    """How close an earlier executable is, as JAX picks the closest key it explains a miss
    with (``by_part``, JAX 0.9+): the first part of the key that differs (context, then
    pytree and statics, then types), how many differences there; then every difference
    counted (:func:`distance`); before 0.9 by ``size`` alone (:func:`size_before_0_9`; else
    that count; JAX then shows every key tied at the smallest size, and of those the one
    with the fewest differences is named). Lower is closer. An
    executable whose trace this call shares (it differs only in what JAX compiles below
    the trace: a device, jit options) is closest of all; one of another function object is
    never compared by JAX while the function has keys of its own (among such, ranked as
    JAX would rank them were they its keys)."""
    if any(c.kind is ChangeKind.NEW_FUNCTION_OBJECT for c in changes):
        others = [c for c in changes if c.kind is not ChangeKind.NEW_FUNCTION_OBJECT]
        part, count, rest = closeness(others, by_part, size)
        return len(_KEY_PARTS) + 2 + part, count, rest
    if not by_part:
        return (0, 0, distance(changes)) if size is None else (0, size, distance(changes))
    for part, kinds in enumerate(_KEY_PARTS):
        count = sum(1 for c in changes if c.kind in kinds and c.detail != "device")
        if count:
            return part, count, distance(changes)
    return -1, 0, distance(changes)


def context_changes(
    new: tuple[Any, ...], old: tuple[Any, ...], names: Sequence[str] = ()
) -> list[Change]:
    """The trace-context entries that differ, named as JAX names them (``names``: JAX's
    names of the entries, in order; without them an entry is named by its position)."""
    if not new or not old or new == old or len(new) != len(old):
        return []
    changes: list[Change] = []
    for i, (a, b) in enumerate(zip(new, old, strict=True)):
        try:
            differs = bool(a != b)
        except Exception:
            differs = a is not b
        if differs:
            name = names[i] if len(names) == len(new) else f"trace context #{i}"
            if name in explain.MESH_CONTEXT_NAMES:
                change = Change(ChangeKind.MESH_CONTEXT, name, mesh_text(b), mesh_text(a))
                if not any(c.kind is ChangeKind.MESH_CONTEXT for c in changes):
                    changes.append(change)  # jax.set_mesh sets both: one change
                continue
            axes = axis_changes(a, b)
            if axes is not None:
                changes += axes
                continue
            changes.append(
                Change(ChangeKind.TRACING_CONTEXT, name, _context_text(b), _context_text(a))
            )
    return changes


def _context_text(value: Any) -> str:
    """A context entry's value; a device as jitlab names devices everywhere (``cpu:1``), not
    as its ``str``, which JAX changed (``TFRT_CPU_1`` before 0.7)."""
    platform, index = getattr(value, "platform", None), getattr(value, "id", None)
    if isinstance(platform, str) and isinstance(index, int):
        return f"{platform}:{index}"
    return _short_text(value)


def axis_changes(new: Any, old: Any) -> list[Change] | None:
    """The named axes (``vmap``/``pmap``/``shard_map`` ``axis_name``) whose size differs
    between two of JAX's axis environments, one change per axis (``detail="axis"``, path
    the axis's name, before/after its sizes, None where it was not bound); None when these
    are not axis environments or their sizes are equal (then shown as they are)."""
    try:
        now, was = dict(new.axis_sizes.items()), dict(old.axis_sizes.items())
    except Exception:
        return None
    if now == was:
        return None
    changes = []
    for axis in [*now, *(name for name in was if name not in now)]:
        before, after = was.get(axis), now.get(axis)
        if before != after:
            changes.append(
                Change(
                    ChangeKind.TRACING_CONTEXT,
                    str(axis),
                    None if before is None else str(before),
                    None if after is None else str(after),
                    detail="axis",
                )
            )
    return changes
