"""What differs between two signatures, trace contexts or keys, as data (JAX-free).

The signatures are :class:`jitlab.records.calls.Signature`; a key is
:func:`jitlab.probe.signature.fast_key`'s, whose static values are the very objects jit
caches on. Nothing here imports JAX, so a reason can be worked out (and tested) from data.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Hashable, Sequence
from itertools import compress
from operator import is_not
from typing import Any

from jitlab.probe import explain
from jitlab.records.calls import Change, LeafSpec, Signature
from jitlab.records.changes import ChangeKind


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
    if new.tree != old.tree and not changes:
        changes.append(Change(ChangeKind.TREE_STRUCTURE, "", old.tree, new.tree))
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


def _same(a: Any, b: Any) -> bool:
    """Would jit treat these two static values as the same cache key?"""
    try:
        return type(a) is type(b) and bool(a == b) and hash(a) == hash(b)
    except Exception:
        return a is b


def static_value_changes(path: str, new: Any, old: Any) -> list[Change]:
    """The parts of a static value that differ: dataclass fields, namedtuple fields, tuple
    items and dict entries are walked, so ``cfg.lr`` is named rather than all of ``cfg``."""
    if _same(new, old):
        return []
    found: list[Change] = []
    if type(new) is type(old):
        for sub, a, b in _parts(path, new, old):
            found += static_value_changes(sub, a, b)
    # Nothing inside differs (or it has no parts): the value itself is the change.
    return found or [Change(ChangeKind.STATIC_VALUE, path, short_repr(old), short_repr(new))]


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
            changes.append(Change(ChangeKind.TRACING_CONTEXT, name, _short_text(b), _short_text(a)))
    return changes
