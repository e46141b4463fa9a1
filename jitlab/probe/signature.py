"""Abstract signatures of jitted calls, and what differs between two of them (as data)."""

from __future__ import annotations

import inspect
from collections.abc import Hashable, Sequence
from typing import Any

import jax
from jax.sharding import SingleDeviceSharding

from jitlab.probe import _jax
from jitlab.probe import diff as diff_module
from jitlab.probe.diff import diff as diff
from jitlab.probe.diff import distance as distance
from jitlab.probe.diff import key_keywords as key_keywords
from jitlab.probe.diff import key_statics as key_statics
from jitlab.probe.diff import mesh_text as mesh_text
from jitlab.probe.diff import short_repr
from jitlab.probe.diff import static_value_changes as static_value_changes
from jitlab.records.calls import Change, LeafSpec, Signature
from jitlab.records.changes import ChangeKind


class StaticSpec:
    """Which arguments of a jitted function are static, and the names of its parameters.

    Arguments are named as Python binds them (and as JAX's own explanations name them):
    ``rest[0]`` for the first value caught by ``*rest``, ``kwargs['y']`` for a keyword
    caught by ``**kwargs``, ``args[3]`` past the end of a signature without ``*args``.
    """

    def __init__(
        self,
        static_argnums: Sequence[int] = (),
        static_argnames: Sequence[str] = (),
        parameters: Sequence[str] = (),
        *,
        positional: int | None = None,
        var_positional: str | None = None,
        var_keyword: str | None = None,
    ) -> None:
        self.parameters = tuple(parameters)
        # The parameters a positional argument can fill (all of them when not told).
        self.positional = len(self.parameters) if positional is None else positional
        self.var_positional = var_positional
        self.var_keyword = var_keyword
        self._named = frozenset(self.parameters) - {var_positional, var_keyword}
        nums = {i for i in static_argnums}
        names = set(static_argnames)
        # jit treats a static position and its parameter name as the same argument.
        for i, name in enumerate(self.parameters[: self.positional]):
            if name in names:
                nums.add(i)
            if i in nums:
                names.add(name)
        self.argnums = frozenset(nums)
        self.argnames = frozenset(names)

    @classmethod
    def of(cls, jitted: Any, fun: Any) -> StaticSpec:
        info = _jax.jit_info(jitted)  # private, so read defensively
        return cls.for_function(
            getattr(info, "static_argnums", ()) or (),
            getattr(info, "static_argnames", ()) or (),
            fun,
        )

    @classmethod
    def for_function(
        cls, static_argnums: Sequence[int], static_argnames: Sequence[str], fun: Any
    ) -> StaticSpec:
        """The split of ``fun``'s arguments, its parameters read from its signature."""
        return cls(static_argnums, static_argnames, **parameter_layout(fun))

    @property
    def empty(self) -> bool:
        return not self.argnums and not self.argnames

    def positional_name(self, i: int) -> str:
        if i < self.positional:
            return self.parameters[i]
        if self.var_positional is not None:
            return f"{self.var_positional}[{i - self.positional}]"
        return f"args[{i}]"

    def keyword_name(self, name: str) -> str:
        if self.var_keyword is not None and name not in self._named:
            return f"{self.var_keyword}[{name!r}]"
        return name

    def split(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        """(traced, static) arguments as (name, value) pairs, in call order."""
        traced: list[tuple[str, Any]] = []
        static: list[tuple[str, Any]] = []
        for i, value in enumerate(args):
            (static if i in self.argnums else traced).append((self.positional_name(i), value))
        for name, value in kwargs.items():
            side = static if name in self.argnames else traced
            side.append((self.keyword_name(name), value))
        return traced, static


def parameter_layout(fun: Any) -> dict[str, Any]:
    """``fun``'s parameter names, how many a positional argument can fill, and the names
    of its ``*args`` and ``**kwargs`` parameters (StaticSpec's keyword arguments)."""
    try:
        parameters = inspect.signature(fun).parameters.values()
    except (TypeError, ValueError):
        return {"parameters": ()}
    kind = inspect.Parameter
    var_positional = var_keyword = None
    positional = 0
    for p in parameters:
        if p.kind in (kind.POSITIONAL_ONLY, kind.POSITIONAL_OR_KEYWORD):
            positional += 1
        elif p.kind is kind.VAR_POSITIONAL:
            var_positional = p.name
        elif p.kind is kind.VAR_KEYWORD:
            var_keyword = p.name
    return {
        "parameters": tuple(p.name for p in parameters),
        "positional": positional,
        "var_positional": var_positional,
        "var_keyword": var_keyword,
    }


def leaf_key(leaf: Any) -> Hashable:
    """A cheap hashable stand-in for a leaf's abstract value (used on every call)."""
    try:
        return leaf.aval, leaf.sharding
    except AttributeError:
        return jax.typeof(leaf)


def fast_key(
    spec: StaticSpec, generation: int, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Hashable:
    """A key that is equal exactly when two calls share a jit cache entry (as far as we see).

    Layout: (generation, tree, leaf keys, statics, keyword names). The statics are the real
    objects (hashable, as jit requires), so keys compare them as jit does: by ``==``/hash.
    The keyword names are there because jit caches ``f(x, y)`` and ``f(x, y=y)`` apart.
    """
    if spec.empty:
        leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
        return generation, tree, tuple([leaf_key(leaf) for leaf in leaves]), (), tuple(kwargs)
    traced, static = spec.split(args, kwargs)
    leaves, tree = jax.tree_util.tree_flatten([value for _, value in traced])
    return (
        generation,
        tree,
        tuple([leaf_key(leaf) for leaf in leaves]),
        statics_key(static),
        tuple(kwargs),
    )


def statics_key(static: list[tuple[str, Any]]) -> tuple[tuple[str, Hashable], ...]:
    """The statics part of :func:`fast_key`, from :meth:`StaticSpec.split`'s static side."""
    return tuple((name, _hashable(value)) for name, value in static)


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
        return f"{_jax.spec_text(normal_spec(spec))} on mesh({axes})"
    return f"{type(sharding).__name__} over {len(sharding.device_set)} devices"


def normal_spec(spec: Any) -> Any:
    """A PartitionSpec as JAX's cache compares it: trailing ``None`` entries (unsharded
    dimensions) dropped, so ``P(None, None)`` is ``P()`` — the same executable."""
    entries = list(spec)
    if not entries or entries[-1] is not None:
        return spec
    while entries and entries[-1] is None:
        entries.pop()
    try:
        return type(spec)(*entries)
    except Exception:  # a spec type that cannot be rebuilt: shown as it is
        return spec


def equivalent_keys(a: Hashable, b: Hashable) -> bool:
    """Two :func:`fast_key` values of calls JAX serves with one executable, though their
    shardings are not ``==`` (``NamedSharding(mesh, P())`` and ``P(None, None)``): compared
    with ``Sharding.is_equivalent_to``, as JAX's cache does. Off the hot path: asked only
    when a hit matches no card exactly."""
    if not (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) == 5):
        return False
    if a[0] != b[0] or a[1] != b[1] or a[3] != b[3] or a[4] != b[4] or len(a[2]) != len(b[2]):
        return False
    for x, y in zip(a[2], b[2], strict=True):
        if x == y:
            continue
        if not (isinstance(x, tuple) and isinstance(y, tuple)) or x[0] != y[0]:
            return False
        try:
            if not x[1].is_equivalent_to(y[1], len(x[0].shape)):
                return False
        except Exception:
            return False
    return True


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
    statics = tuple((name, short_repr(value)) for name, value in static)
    return Signature(tuple(leaves), statics, _tree_text(tree), generation)


def _tree_text(tree: Any) -> str:
    # PyTreeDef([(*, *), ...]) -> the part inside the outer brackets, which is what users wrote.
    text = str(tree)
    return text.removeprefix("PyTreeDef(").removesuffix(")")


# -- tracing context ----------------------------------------------------------------------
def context_snapshot() -> tuple[Any, ...]:
    """JAX's trace context now: the config values (precision, rank promotion, meshes, …)
    that are part of every tracing-cache key. Cheap (~0.2 µs); taken on compiles only."""
    try:
        return tuple(_jax.trace_context())
    except Exception:  # private API: without it jitlab just names no context change
        return ()


def key_paths(
    spec: StaticSpec, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[str, ...] | None:
    """The argument path of each leaf of a :func:`fast_key`, in its order, named as
    :func:`describe` names them (``x``, ``params['w']``). Compiles only; None if unknown."""
    try:
        if not spec.empty:
            traced, _ = spec.split(args, kwargs)
            flat = jax.tree_util.tree_flatten_with_path([value for _, value in traced])[0]
            names = [traced[path[0].idx][0] for path, _ in flat]
            rests = [path[1:] for path, _ in flat]
        else:  # fast_key flattens (args, kwargs): keywords sorted, as pytrees sort dicts
            flat = jax.tree_util.tree_flatten_with_path((args, kwargs))[0]
            names = [
                spec.positional_name(path[1].idx)
                if path[0].idx == 0
                else spec.keyword_name(path[1].key)
                for path, _ in flat
            ]
            rests = [path[2:] for path, _ in flat]
        return tuple(
            name + (jax.tree_util.keystr(tuple(rest)) if rest else "")
            for name, rest in zip(names, rests, strict=True)
        )
    except Exception:
        return None


def _devices_text(sharding: Any) -> str:
    devices = sorted(sharding.device_set, key=lambda d: d.id)
    return ",".join(f"{d.platform}:{d.id}" for d in devices)


def device_changes(
    paths: tuple[str, ...] | None, new_key: Hashable | None, old_key: Hashable | None
) -> list[Change]:
    """Leaves of the same type and layout placed on other devices (an array committed to
    ``cpu:1`` where the executable was built for ``cpu:0``): JAX compiles again for them,
    though the signature's sharding texts (None on a single device) are equal. A sharding
    change with ``detail="device"``, ``cpu:1 ← cpu:0``."""
    if not (isinstance(new_key, tuple) and isinstance(old_key, tuple)):
        return []
    if len(new_key) != 5 or len(old_key) != 5 or new_key[1] != old_key[1]:
        return []
    if paths is None or len(paths) != len(new_key[2]) or len(new_key[2]) != len(old_key[2]):
        return []
    changes = []
    for path, x, y in zip(paths, new_key[2], old_key[2], strict=True):
        if not (isinstance(x, tuple) and isinstance(y, tuple)) or x == y:
            continue
        try:
            if x[1].device_set == y[1].device_set:
                continue
            if type(x[1]) is not type(y[1]) or not isinstance(x[1], SingleDeviceSharding):
                continue  # a mesh's sharding: the sharding text names it
            before, after = _devices_text(y[1]), _devices_text(x[1])
        except Exception:
            continue
        changes.append(Change(ChangeKind.SHARDING, path, before, after, detail="device"))
    return changes


def context_changes(new: tuple[Any, ...], old: tuple[Any, ...]) -> list[Change]:
    """The trace-context entries that differ, named as JAX names them."""
    if not new or not old or new == old or len(new) != len(old):
        return []
    try:
        names = tuple(_jax.trace_context_names())
    except Exception:
        names = ()
    return diff_module.context_changes(new, old, names)
