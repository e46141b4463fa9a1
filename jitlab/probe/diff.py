"""What differs between two signatures, trace contexts or keys, as data (JAX-free).

The signatures are :class:`jitlab.records.calls.Signature`; a key is
:func:`jitlab.probe.signature.fast_key`'s, whose static values are the very objects jit
caches on. Nothing here imports JAX, so a reason can be worked out (and tested) from data.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Hashable, Sequence
from itertools import compress, pairwise
from operator import is_not
from typing import Any

from jitlab.probe import explain
from jitlab.probe.identity import (
    identity_class,
    identity_of,
    same,
    static_identity,
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
    """What differs between two signatures, as data (new ← old).

    With the probe's keys, static values are compared as the objects themselves (a long
    repr hides nothing) and keyword-vs-positional passing is seen. ``site`` is where the
    function is defined, named in a new-function-object change.
    """
    changes: list[Change] = []
    if new.function != old.function:
        changes.append(Change(ChangeKind.NEW_FUNCTION_OBJECT, site, count=new.function + 1))
    aligned = _aligned_changes(new.leaves, old.leaves)
    if aligned is not None:
        changes += aligned
    else:
        old_leaves = {leaf.path: leaf for leaf in old.leaves}
        new_leaves = {leaf.path: leaf for leaf in new.leaves}
        for path, leaf in new_leaves.items():
            before = old_leaves.get(path)
            if before is None:
                changes.append(Change(ChangeKind.NEW_ARGUMENT, path, None, leaf.type_text))
            else:
                _leaf_changes(changes, leaf, before)
        for path, before in old_leaves.items():
            if path not in new_leaves:
                changes.append(Change(ChangeKind.ARGUMENT_GONE, path, before.type_text))
        changes = _regrown(changes, new.leaves, old.leaves)
        changes = _grown_subtrees(changes, new, old, new_key, old_key)
    if new.tree != old.tree and not changes:
        changes += _structure_changes(new, old, new_key, old_key)
    changes += _static_changes(new, old, key_statics(new_key), key_statics(old_key))
    changes += _keyword_changes(new, old, key_keywords(new_key), key_keywords(old_key))
    return changes


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
    outer = _structure_changes(new_sig, old_sig, new_key, old_key, past_static=True)
    if outer[0].path and not _is_static(outer[0].detail):
        entries = path_entries(outer[0].path)
        if 2 <= len(entries) <= len(prefix) and prefix[: len(entries)] == entries:
            prefix = entries
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


def _structure_changes(
    new: Signature,
    old: Signature,
    new_key: Hashable | None,
    old_key: Hashable | None,
    past_static: bool = False,
) -> list[Change]:
    """The same leaves, another structure (a node added with no leaves, a node's static
    data changed): the outermost node where the keys' treedefs differ, named by the leaves
    under it; the whole structure, unnamed, when that cannot be told."""
    whole = [Change(ChangeKind.TREE_STRUCTURE, "", old.tree, new.tree)]
    if not (isinstance(new_key, tuple) and isinstance(old_key, tuple)):
        return whole
    if len(new_key) != 5 or len(old_key) != 5:
        return whole
    try:
        a, b = new_key[1], old_key[1]
        paths_a = [leaf.path for leaf in new.leaves]
        paths_b = [leaf.path for leaf in old.leaves]
        if a.num_leaves != len(paths_a) or b.num_leaves != len(paths_b):
            return whole
        found = _differing_node(a, b, 0, 0, paths_a, paths_b, [], past_static)
    except Exception:  # a treedef that does not walk so: shown whole
        return whole
    if found is None:
        return whole
    where, before, after, detail = found
    return [Change(ChangeKind.TREE_STRUCTURE, where, before, after, detail=detail)]


def _differing_node(
    a: Any,
    b: Any,
    ia: int,
    ib: int,
    pa: list[str],
    pb: list[str],
    chain: list[Any],
    past_static: bool = False,
) -> tuple[str, str, str, str] | None:
    """(path, before, after, detail) of the outermost node where treedefs ``a`` (new) and
    ``b`` differ; ``ia``/``ib`` their first leaves' positions in ``pa``/``pb``; ``chain``
    the nodes above, each with the index of the child taken. ``detail`` is ``static`` when
    only the node's static data differs (a Flax ``TrainState``'s ``tx``, a new optax
    object), before/after then that data; with ``past_static`` such a node is walked
    through, to the node whose leaves or children changed."""
    if a == b:
        return None
    kids_a, kids_b = a.children(), b.children()
    data_a, data_b = a.node_data(), b.node_data()
    same_kind = len(kids_a) == len(kids_b) and type(data_a) is type(data_b)
    static = same_kind and data_a is not None and data_a[0] is data_b[0] and data_a != data_b
    if static and (not past_static or data_a[0] is dict):
        path = _node_path(chain, (a, b, ia, ib), pa, pb)
        identity = static_identity(data_a[0], data_a[1], data_b[1])
        if identity is not None:  # a Flax NNX graph's optax tx made anew, a Config, …
            name, after, before, detail = identity
            return f"{path}.{name}", short_repr(before), short_repr(after), detail
        field = _static_field(data_a[0], data_a[1], data_b[1])
        if field is not None:  # a dataclass's static field (flax.struct: pytree_node=False)
            name, after, before = field
            return f"{path}.{name}", short_repr(before), short_repr(after), "static"
        name = getattr(data_a[0], "__name__", str(data_a[0]))
        return path, f"{name}{data_b[1]!r}", f"{name}{data_a[1]!r}", "static"
    if same_kind and (data_a == data_b or static):
        start_a, start_b = ia, ib
        for j, (x, y) in enumerate(zip(kids_a, kids_b, strict=True)):
            if x != y:
                step = (a, b, start_a, start_b, j)
                return _differing_node(x, y, ia, ib, pa, pb, [*chain, step], past_static)
            ia += x.num_leaves
            ib += y.num_leaves
        ia, ib = start_a, start_b
    path = _node_path(chain, (a, b, ia, ib), pa, pb)
    return path, _node_text(b), _node_text(a), "removed=0"


def _static_field(kind: Any, new: Any, old: Any) -> tuple[str, Any, Any] | None:
    """(name, new value, old value) of the one static field that differs between two
    nodes' static data where its layout is known (:func:`jitlab.probe.identity.static_parts`:
    ``flax.struct``, Flax's ``TrainState``); None otherwise."""
    parts = static_parts(kind, new, old)
    return parts[0] if parts is not None and len(parts) == 1 else None


def _is_static(detail: str) -> bool:
    """A node's static data changed (``static``, or ``identity:…`` when equal in content)."""
    return detail == "static" or identity_parts(detail) is not None


def _node_path(
    chain: list[Any], node: tuple[Any, Any, int, int], pa: list[str], pb: list[str]
) -> str:
    """The path text of ``node`` (reached through ``chain``): from the innermost node above
    it whose leaves lie under two or more of its children (their common prefix is its path
    exactly), down one entry per step — read off a leaf under the child taken, else its
    index or key (tuple, list, dict, namedtuple). Stops where a step cannot be named."""
    for start in range(len(chain) - 1, -1, -1):
        a, b, ia, ib, _ = chain[start]
        leaves = pa[ia : ia + a.num_leaves] + pb[ib : ib + b.num_leaves]
        if sum(1 for child in a.children() if child.num_leaves) >= 2:
            entries = _common_prefix(leaves)
            break
    else:  # from the top: the arguments' list, whose children's entries are their names
        if not chain:
            return ""
        start, entries = 0, []
    steps = [*chain[start:], (*node, None)]
    for (a, _b, _, _, j), (x, y, ja, jb, _) in pairwise(steps):
        entry = _entry_of(a, j, pa[ja : ja + x.num_leaves] or pb[jb : jb + y.num_leaves], entries)
        if entry is None:
            break
        entries = [*entries, entry]
    return "".join(entries)


def _entry_of(parent: Any, j: int, leaves: list[str], above: list[str]) -> str | None:
    """The path entry of ``parent``'s child ``j``: read off one of its leaves' paths (the
    entry after ``above``'s), else its index or key; None when it cannot be told."""
    if leaves:
        entries = path_entries(leaves[0])
        if entries[: len(above)] == above and len(entries) > len(above):
            return entries[len(above)]
        return None
    kind, aux = parent.node_data()
    if kind in (tuple, list):
        return f"[{j}]"
    if kind is dict and isinstance(aux, list | tuple) and j < len(aux):
        return f"[{aux[j]!r}]"
    fields = getattr(kind, "_fields", None)
    if isinstance(fields, tuple) and j < len(fields):
        return f".{fields[j]}"
    return None


def _node_text(tree: Any) -> str:
    text = str(tree)
    return text.removeprefix("PyTreeDef(").removesuffix(")")


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
    in_both = {_root(leaf.path) for leaf in new.leaves} & {_root(leaf.path) for leaf in old.leaves}
    in_both |= {name for name, _ in new.statics} & {name for name, _ in old.statics}
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
            changes.append(Change(ChangeKind.TRACING_CONTEXT, name, _short_text(b), _short_text(a)))
    return changes


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
