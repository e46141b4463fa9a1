"""Abstract signatures of jitted calls, and what differs between two of them (as data)."""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import Hashable, Sequence
from typing import Any

import jax
from jax.sharding import SingleDeviceSharding

from jitlab.probe import _jax, explain
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
    statics = tuple((name, _hashable(value)) for name, value in static)
    return generation, tree, tuple([leaf_key(leaf) for leaf in leaves]), statics, tuple(kwargs)


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
        return f"{normal_spec(spec)} on mesh({axes})"
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
    statics = tuple((name, _short_repr(value)) for name, value in static)
    return Signature(tuple(leaves), statics, _tree_text(tree), generation)


def _short_repr(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tree_text(tree: Any) -> str:
    # PyTreeDef([(*, *), ...]) -> the part inside the outer brackets, which is what users wrote.
    text = str(tree)
    return text.removeprefix("PyTreeDef(").removesuffix(")")


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
    old_leaves = {leaf.path: leaf for leaf in old.leaves}
    new_leaves = {leaf.path: leaf for leaf in new.leaves}
    for path, leaf in new_leaves.items():
        before = old_leaves.get(path)
        if before is None:
            changes.append(Change(ChangeKind.NEW_ARGUMENT, path, None, leaf.type_text))
            continue
        if leaf.dtype != before.dtype:
            changes.append(Change(ChangeKind.DTYPE, path, before.type_text, leaf.type_text))
        elif leaf.shape != before.shape:
            changes.append(Change(ChangeKind.SHAPE, path, before.type_text, leaf.type_text))
        elif leaf.weak_type != before.weak_type:
            changes.append(Change(ChangeKind.WEAK_TYPE, path, before.type_text, leaf.type_text))
        if leaf.sharding != before.sharding:
            changes.append(Change(ChangeKind.SHARDING, path, before.sharding, leaf.sharding))
    for path, before in old_leaves.items():
        if path not in new_leaves:
            changes.append(Change(ChangeKind.ARGUMENT_GONE, path, before.type_text))
    changes = _regrown(changes, new.leaves, old.leaves)
    if new.tree != old.tree and not changes:
        changes.append(Change(ChangeKind.TREE_STRUCTURE, "", old.tree, new.tree))
    changes += _static_changes(new, old, key_statics(new_key), key_statics(old_key))
    changes += _keyword_changes(new, old, key_keywords(new_key), key_keywords(old_key))
    return changes


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
    return found or [Change(ChangeKind.STATIC_VALUE, path, _short_repr(old), _short_repr(new))]


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
    return _ROOT.match(path)[0]  # type: ignore[index]


_ROOT = re.compile(r"[^\[.]*")


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
    changes = []
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
