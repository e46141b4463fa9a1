"""A card's call, abstract: what :mod:`jitlab.probe.scripts` traces a card's program from.

Arrays become ``jax.ShapeDtypeStruct`` (with sharding and weak type), statics stay the very
values: read back from the card's :func:`jitlab.probe.signature.fast_key`, which keeps
exactly what jit caches on, and the committed flags the probe noted when it compiled.
"""

from __future__ import annotations

import operator
from collections.abc import Hashable
from typing import Any, TypeGuard

import jax

from jitlab.probe import signature, wrappers


def committed_flags(
    spec: signature.StaticSpec, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[bool, ...] | None:
    """Per traced leaf, in :func:`signature.fast_key`'s order: is it committed to its device?

    jit lowers an uncommitted array (``jnp.ones``) with no sharding and a committed one
    (``jax.device_put(x, device)``) with its own (the key keys them apart too: see
    :func:`signature.leaf_key`). Called by the probe on compiles only. None when the
    leaves cannot be read.
    """
    try:
        if spec.empty:
            leaves = jax.tree_util.tree_leaves((args, kwargs))
        else:
            traced, _ = spec.split(args, kwargs)
            leaves = jax.tree_util.tree_leaves([value for _, value in traced])
    except Exception:
        return None
    return committed_of(leaves)


def committed_of(leaves: list[Any]) -> tuple[bool, ...] | None:
    """:func:`committed_flags` of leaves already flattened (in :func:`signature.fast_key`'s
    order); None when they cannot be read."""
    try:
        try:  # arrays all: read at C speed
            return tuple(map(_COMMITTED, leaves))
        except AttributeError:  # a Python scalar among them: committed as jit sees it
            return tuple(bool(getattr(leaf, "committed", True)) for leaf in leaves)
    except Exception:
        return None


_COMMITTED = operator.attrgetter("committed")
_flags_held: dict[tuple[bool, ...], tuple[bool, ...]] = {}


def shared_flags(flags: tuple[bool, ...] | None) -> tuple[bool, ...] | None:
    """``flags``, as the very tuple an earlier card holds when equal: a card keeps them, and
    a 1,000-leaf call's are 8 KB that nearly every card would otherwise hold again."""
    if flags is None:
        return None
    if len(_flags_held) >= 256:
        _flags_held.clear()
    return _flags_held.setdefault(flags, flags)


def _abstract_leaf(leaf_key: Any, committed: bool = True) -> jax.ShapeDtypeStruct:
    """A ``signature.leaf_key`` (``(aval, sharding)`` for a committed array, else an aval: an
    uncommitted array, a Python float) back to an abstract argument JAX lowers exactly as it
    compiled the call."""
    if _with_sharding(leaf_key):
        aval, sharding = leaf_key
    else:
        aval, sharding = leaf_key, None
    if not committed:
        sharding = None  # jit placed it: lowered with no sharding of its own
    return jax.ShapeDtypeStruct(
        tuple(aval.shape),
        aval.dtype,
        sharding=sharding,
        weak_type=bool(getattr(aval, "weak_type", False)),
    )


def _with_sharding(leaf_key: Any) -> TypeGuard[tuple[Any, Any]]:
    """A committed array's leaf key, ``(aval, sharding)`` (JAX's objects, untyped here)."""
    return isinstance(leaf_key, tuple)


def abstract_call(
    spec: signature.StaticSpec,
    key: Hashable | None,
    committed: tuple[bool, ...] | None = None,
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``(args, kwargs)`` of a card's call, abstract: arrays as ``jax.ShapeDtypeStruct`` (with
    sharding and weak type), statics as the real values. Read from the card's
    :func:`jitlab.probe.signature.fast_key`, which keeps exactly what jit caches on.

    Raises ``ValueError`` when the key does not hold a call (an adopted card, no key).
    """
    if not signature.is_fast_key(key):
        raise ValueError("the card keeps no abstract signature (it was not compiled here)")
    _, tree, leaf_keys, statics, keywords = key
    if committed is None or len(committed) != len(leaf_keys):
        committed = (True,) * len(leaf_keys)
    leaves = [_abstract_leaf(k, c) for k, c in zip(leaf_keys, committed, strict=True)]
    if spec.empty:
        # tree_util's treedef (jaxlib's PyTreeDef) is unknown to the type checker: its calls
        # here carry a rule-named ignore.
        flat_args, flat_kwargs = jax.tree_util.tree_unflatten(tree, leaves)  # pyright: ignore[reportUnknownMemberType]
        return tuple(flat_args), dict(flat_kwargs)
    if isinstance(spec, wrappers.FilterSpec):
        return _filter_call(spec, tree, leaves, statics, keywords)
    if type(spec) is not signature.StaticSpec:
        raise ValueError(f"arguments split by {type(spec).__name__} cannot be rebuilt")
    traced = list(jax.tree_util.tree_unflatten(tree, leaves))  # pyright: ignore[reportUnknownMemberType]
    static_values = [value for _, value in statics]
    positional = len(traced) + len(static_values) - len(keywords)
    args: list[Any] = []
    for i in range(positional):
        args.append(static_values.pop(0) if i in spec.argnums else traced.pop(0))
    kwargs = {
        name: static_values.pop(0) if name in spec.argnames else traced.pop(0) for name in keywords
    }
    if traced or static_values:
        raise ValueError("the card's key does not match the function's static arguments")
    return tuple(args), kwargs


def _filter_call(
    spec: wrappers.FilterSpec,
    tree: Any,
    leaves: list[Any],
    statics: tuple[tuple[str, Any], ...],
    keywords: tuple[str, ...],
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """equinox.filter_jit: arrays were traced, every other leaf kept by its path."""
    values = list(jax.tree_util.tree_unflatten(tree, leaves))  # pyright: ignore[reportUnknownMemberType]
    names = list(spec.parameters)
    by_path = dict(statics)
    bound: list[tuple[str, Any]] = []
    positional = len(values) - len(keywords)
    for i, value in enumerate(values):
        name = names[i] if i < positional and i < len(names) else None
        if name is None:
            name = keywords[i - positional] if i >= positional else f"args[{i}]"
        if name in by_path:  # the whole argument was one static leaf
            bound.append((name, by_path[name]))
            continue

        def put_back(path: Any, leaf: Any, name: str = name) -> Any:
            at = signature.path_text(path)
            return by_path.get(f"{name}{at}", leaf)

        bound.append((name, jax.tree_util.tree_map_with_path(put_back, value, is_leaf=_is_none)))
    args = tuple(value for _, value in bound[:positional])
    return args, dict(bound[positional:])


def _is_none(leaf: object) -> bool:
    return leaf is None
