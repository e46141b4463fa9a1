"""Abstract signatures of jitted calls, and their diff in plain words."""

from __future__ import annotations

import inspect
from collections.abc import Hashable, Sequence
from typing import Any

import jax
from jax.sharding import SingleDeviceSharding

from jitlab.core.records import LeafSpec, Signature


class StaticSpec:
    """Which arguments of a jitted function are static, and the names of its parameters."""

    def __init__(
        self,
        static_argnums: Sequence[int] = (),
        static_argnames: Sequence[str] = (),
        parameters: Sequence[str] = (),
    ) -> None:
        self.parameters = tuple(parameters)
        nums = {i for i in static_argnums}
        names = set(static_argnames)
        # jit treats a static position and its parameter name as the same argument.
        for i, name in enumerate(self.parameters):
            if name in names:
                nums.add(i)
            if i in nums:
                names.add(name)
        self.argnums = frozenset(nums)
        self.argnames = frozenset(names)

    @classmethod
    def of(cls, jitted: Any, fun: Any) -> StaticSpec:
        info = getattr(jitted, "_jit_info", None)  # private, so read defensively
        try:
            parameters = tuple(inspect.signature(fun).parameters)
        except (TypeError, ValueError):
            parameters = ()
        return cls(
            getattr(info, "static_argnums", ()) or (),
            getattr(info, "static_argnames", ()) or (),
            parameters,
        )

    @property
    def empty(self) -> bool:
        return not self.argnums and not self.argnames

    def split(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        """(traced, static) arguments as (name, value) pairs, in call order."""
        traced: list[tuple[str, Any]] = []
        static: list[tuple[str, Any]] = []
        for i, value in enumerate(args):
            name = self.parameters[i] if i < len(self.parameters) else f"args[{i}]"
            (static if i in self.argnums else traced).append((name, value))
        for name, value in kwargs.items():
            (static if name in self.argnames else traced).append((name, value))
        return traced, static


def leaf_key(leaf: Any) -> Hashable:
    """A cheap hashable stand-in for a leaf's abstract value (used on every call)."""
    try:
        return leaf.aval, leaf.sharding
    except AttributeError:
        return jax.typeof(leaf)


def fast_key(
    spec: StaticSpec, generation: int, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Hashable:
    """A key that is equal exactly when two calls share a jit cache entry (as far as we see)."""
    if spec.empty:
        leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
        return generation, tree, tuple([leaf_key(leaf) for leaf in leaves])
    traced, static = spec.split(args, kwargs)
    leaves, tree = jax.tree_util.tree_flatten([value for _, value in traced])
    statics = tuple((name, _hashable(value)) for name, value in static)
    return generation, tree, tuple([leaf_key(leaf) for leaf in leaves]), statics


def _hashable(value: Any) -> Hashable:
    try:
        hash(value)
    except TypeError:
        return ("<unhashable>", id(value))
    return value


def _sharding_text(leaf: Any) -> str | None:
    sharding = getattr(leaf, "sharding", None)
    if sharding is None or isinstance(sharding, SingleDeviceSharding):
        return None
    spec = getattr(sharding, "spec", None)
    mesh = getattr(sharding, "mesh", None)
    if spec is not None and mesh is not None:
        axes = ",".join(f"{name}={size}" for name, size in mesh.shape.items())
        return f"{spec} on mesh({axes})"
    return f"{type(sharding).__name__} over {len(sharding.device_set)} devices"


def describe(
    spec: StaticSpec, generation: int, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Signature:
    """The full, readable signature (computed only when something was compiled)."""
    traced, static = spec.split(args, kwargs)
    flat, tree = jax.tree_util.tree_flatten_with_path([value for _, value in traced])
    leaves = []
    for path, leaf in flat:
        # path[0] indexes the argument list: turn it back into the parameter's name.
        name = traced[path[0].idx][0]
        rest = jax.tree_util.keystr(tuple(path[1:])) if len(path) > 1 else ""
        aval = jax.typeof(leaf)
        leaves.append(
            LeafSpec(
                path=f"{name}{rest}",
                shape=tuple(int(d) for d in aval.shape),
                dtype=str(aval.dtype),
                weak_type=bool(getattr(aval, "weak_type", False)),
                sharding=_sharding_text(leaf),
            )
        )
    statics = tuple((name, _short_repr(value)) for name, value in static)
    return Signature(tuple(leaves), statics, _tree_text(tree), generation)


def _short_repr(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tree_text(tree: Any) -> str:
    # PyTreeDef([(*, *), ...]) -> the part inside the outer brackets, which is what users wrote.
    text = str(tree)
    return text.removeprefix("PyTreeDef(").removesuffix(")")


def diff(new: Signature, old: Signature) -> list[str]:
    """What differs between two signatures, in plain words (new ← old)."""
    changes: list[str] = []
    if new.function != old.function:
        changes.append("new function object")
    old_leaves = {leaf.path: leaf for leaf in old.leaves}
    new_leaves = {leaf.path: leaf for leaf in new.leaves}
    for path, leaf in new_leaves.items():
        before = old_leaves.get(path)
        if before is None:
            changes.append(f"new argument {path}: {leaf.type_text}")
            continue
        if (leaf.shape, leaf.dtype) != (before.shape, before.dtype):
            changes.append(f"{path}: {leaf.type_text} ← {before.type_text}")
        elif leaf.weak_type != before.weak_type:
            now = "weak" if leaf.weak_type else "strong"
            was = "weak" if before.weak_type else "strong"
            changes.append(
                f"weak type of {path} changed: {now} ← {was} "
                f"({leaf.type_text} ← {before.type_text})"
            )
        if leaf.sharding != before.sharding:
            changes.append(
                f"sharding of {path} changed: {leaf.sharding or 'single device'}"
                f" ← {before.sharding or 'single device'}"
            )
    for path, before in old_leaves.items():
        if path not in new_leaves:
            changes.append(f"argument {path} gone (was {before.type_text})")
    if new.tree != old.tree and not changes:
        changes.append(f"pytree structure changed: {new.tree} ← {old.tree}")
    old_static = dict(old.statics)
    new_static = dict(new.statics)
    for name, value in new_static.items():
        if name not in old_static:
            changes.append(f"static {name}: {value} (new)")
        elif old_static[name] != value:
            changes.append(f"static {name}: {value} ← {old_static[name]}")
    for name in old_static:
        if name not in new_static:
            changes.append(f"static {name} gone")
    return changes


def distance(changes: list[str]) -> int:
    """How far apart two signatures are: a weak-type or sharding change is the smallest step."""
    return sum(1 if change.startswith(("weak type", "sharding")) else 2 for change in changes)
