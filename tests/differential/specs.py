"""The programs the differential test generates, as plain data, and the values they become.

A :class:`Program` is a function's parameters, how it is wrapped (``jax.jit``, a bound
method, a partial, a callable object, ``nnx.jit``, ``nnx.jit_partial``, ``eqx.filter_jit``),
its body, and the steps a program takes: calls (each argument a :data:`Spec`, a static
value, passed by position or keyword, maybe under a transformation or a matmul precision),
x64 switched, caches cleared. Everything here is data until :class:`Builder` makes the
values: a shrunk failure prints as the very program that fails, ready to be pasted into a
regression case.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

# -- arguments -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Arr:
    """An array leaf. ``sharding``: None (the default device), or a placement the sharded
    run knows (``rep``, ``rep2`` — the same as ``rep`` to JAX —, ``x``, ``dev1``)."""

    shape: tuple[int, ...] = (3,)
    dtype: str = "float32"
    sharding: str | None = None


@dataclass(frozen=True)
class Py:
    """A Python scalar: weakly typed under ``jax.jit``, a static value under
    ``eqx.filter_jit`` (which keeps every non-array static)."""

    kind: str = "float"  # float | int
    value: int = 1


@dataclass(frozen=True)
class Node:
    """A pytree node: ``kind`` is how it is registered; ``fields`` its children (name, spec);
    ``aux`` its static data (name, value), compared by ``==`` as JAX compares a treedef.

    kinds: tuple list dict (plain containers), dataclass (``register_dataclass`` with lists
    of data and meta fields, in another order than declared), decorated (the decorator form:
    meta fields marked ``static``), struct (``flax.struct`` with ``pytree_node=False``), eqx
    (an Equinox module with ``field(static=True)``), keyed (``register_pytree_with_keys``), flat
    (``register_pytree_node``: no keys), partial (``tree_util.Partial``: its function is the
    static data, named by ``aux`` ``func``), nnx (a Flax NNX module: ``nnx.Param`` children,
    plain attributes as static data)."""

    kind: str
    fields: tuple[tuple[str, Spec], ...] = ()
    aux: tuple[tuple[str, Hashable], ...] = ()


Spec = Arr | Py | Node


@dataclass(frozen=True)
class Config:
    """A static value compared by value (a frozen dataclass: equal content, one program)."""

    lr: float = 0.1
    n: int = 1


@dataclass(frozen=True)
class Ident:
    """A static value compared by identity: the builder makes one :class:`Token` per label and
    ``fresh``; two of the same label print alike yet are different objects to JAX."""

    label: str = "A"
    fresh: int = 0


class Token:
    """What an :class:`Ident` becomes: hashable, equal only to itself (object's own ``==``)."""

    def __init__(self, label: str) -> None:
        self.label = label

    def __repr__(self) -> str:
        return f"Token({self.label!r})"


# -- programs --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    name: str
    static: bool = False


@dataclass(frozen=True)
class Call:
    """One call: an argument per parameter (a :data:`Spec`, or a static value), the names
    passed by keyword, a transformation around the call (``via``) and a matmul precision."""

    args: tuple[Any, ...]
    keywords: frozenset[str] = frozenset()
    via: str | None = None  # vmap vmap-named grad jvp linearize scan remat
    precision: str | None = None


@dataclass(frozen=True)
class SetX64:
    on: bool


@dataclass(frozen=True)
class Clear:
    what: str  # "function": the jitted function's clear_cache(); "all": jax.clear_caches()


Step = Call | SetX64 | Clear


@dataclass(frozen=True)
class Program:
    """``handing``: how the program hands its callable to the wrapper — ``once``; ``kept``,
    wrapped anew before every call and every wrapper kept alive; ``temporary``, wrapped anew
    and dropped after the call (``jax.jit(model.apply)(x)`` in a loop)."""

    params: tuple[Param, ...]
    steps: tuple[Step, ...]
    wrapper: str = "jit"  # jit method partial callable nnx.jit nnx.jit_partial eqx.filter_jit
    body: str = "sum"  # sum vmap scan remat grad named
    handing: str = "once"

    @property
    def calls(self) -> list[Call]:
        return [s for s in self.steps if isinstance(s, Call)]

    @property
    def statics(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.static)


# Wrappers that pre-bind a leading argument (``w``) before the parameters JAX traces.
PREBINDING = frozenset(("partial", "nnx.jit_partial"))
# Wrappers of a library: JAX traces the library's own function, not the user's parameters.
LIBRARY = frozenset(("nnx.jit", "nnx.jit_partial", "eqx.filter_jit"))


# -- the values ------------------------------------------------------------------------------

_DTYPES = {
    "float32": np.float32,
    "float16": np.float16,
    "int32": np.int32,
    "bfloat16": jnp.bfloat16,
    "bool": np.bool_,
}


def partial_target(name: str) -> Callable[..., Any]:
    """The functions a ``tree_util.Partial`` may hold (its static data), by name."""
    return _PARTIAL_TARGETS[name]


def _plus(*args: Any) -> Any:
    return args


def _times(*args: Any) -> Any:
    return args


_PARTIAL_TARGETS: dict[str, Callable[..., Any]] = {"plus": _plus, "times": _times}


class Builder:
    """Makes the values of one run of a program: arrays, scalars, nodes, static values.

    ``place(array, name)`` puts an array where a sharding name says (the sharded run's
    mesh); without it every array stays on the default device. Identity statics are made
    once per label and ``fresh`` for the run, so equal specs are the very same object.
    """

    def __init__(self, place: Callable[[Any, str], Any] | None = None) -> None:
        self.place = place
        self._tokens: dict[Ident, Token] = {}

    def value(self, spec: Any) -> Any:
        if isinstance(spec, Arr):
            return self._array(spec)
        if isinstance(spec, Py):
            return float(spec.value) + 0.5 if spec.kind == "float" else int(spec.value)
        if isinstance(spec, Node):
            return self._node(spec)
        if isinstance(spec, Ident):
            return self._tokens.setdefault(spec, Token(spec.label))
        return spec  # a static value: itself

    def _array(self, spec: Arr) -> Any:
        size = math.prod(spec.shape)
        data = (np.arange(size) % 3 + 1).reshape(spec.shape).astype(_DTYPES[spec.dtype])
        if spec.sharding is not None:
            assert self.place is not None, "a sharding needs the sharded run's devices"
            return self.place(data, spec.sharding)
        return jax.device_put(data)

    def _node(self, spec: Node) -> Any:
        kids = [self.value(child) for _, child in spec.fields]
        names = tuple(name for name, _ in spec.fields)
        aux = dict(spec.aux)
        if spec.kind == "tuple":
            return tuple(kids)
        if spec.kind == "list":
            return list(kids)
        if spec.kind == "dict":
            return dict(zip(names, kids, strict=True))
        if spec.kind == "partial":
            return jax.tree_util.Partial(partial_target(str(aux["func"])), *kids)
        cls = node_class(spec.kind, names, tuple(aux))
        if spec.kind == "nnx":
            return cls(kids, aux)
        if spec.kind in ("keyed", "flat"):
            return cls(*kids, *aux.values())
        return cls(**dict(zip(names, kids, strict=True)), **aux)  # declared in any order


@functools.cache
def node_class(kind: str, fields: tuple[str, ...], aux: tuple[str, ...]) -> type:
    """The class of a node kind with these fields and static fields (one per layout)."""
    name = f"{kind.capitalize()}_{'_'.join(fields) or 'empty'}" + (
        f"__{'_'.join(aux)}" if aux else ""
    )
    if kind == "dataclass":  # fields listed in another order than the class declares them
        cls = dataclasses.make_dataclass(name, [*reversed(aux), *reversed(fields)], frozen=True)
        return jax.tree_util.register_dataclass(
            cls, data_fields=list(fields), meta_fields=list(aux)
        )
    if kind == "decorated":  # the decorator form: no lists, the meta fields marked static
        static = [(a, Any, dataclasses.field(metadata={"static": True})) for a in aux]
        declared = [*static[:1], *fields, *static[1:]]  # a meta field before the data
        return jax.tree_util.register_dataclass(
            dataclasses.make_dataclass(name, declared, frozen=True)
        )
    if kind == "struct":
        import flax.struct

        namespace = {"__annotations__": dict.fromkeys((*fields, *aux), Any)}
        namespace |= {a: flax.struct.field(pytree_node=False) for a in aux}
        return flax.struct.dataclass(type(name, (), namespace))
    if kind == "eqx":
        import equinox as eqx

        namespace = {"__annotations__": dict.fromkeys((*fields, *aux), Any)}
        namespace |= {a: eqx.field(static=True) for a in aux}
        return type(name, (eqx.Module,), namespace)
    if kind in ("keyed", "flat"):
        return _custom_class(name, kind, fields, aux)
    if kind == "nnx":
        return _nnx_class(name, fields, aux)
    raise ValueError(kind)


def _custom_class(name: str, kind: str, fields: tuple[str, ...], aux: tuple[str, ...]) -> type:
    def __init__(self: Any, *values: Any) -> None:
        for field, value in zip((*fields, *aux), values, strict=True):
            setattr(self, field, value)

    cls = type(name, (), {"__init__": __init__})

    def unflatten(data: tuple[Any, ...], children: Any) -> Any:
        return cls(*children, *data)

    def static(node: Any) -> tuple[Any, ...]:
        return tuple(getattr(node, a) for a in aux)

    if kind == "keyed":
        jax.tree_util.register_pytree_with_keys(
            cls,
            lambda n: (
                tuple((jax.tree_util.GetAttrKey(f), getattr(n, f)) for f in fields),
                static(n),
            ),
            unflatten,
        )
    else:
        jax.tree_util.register_pytree_node(
            cls, lambda n: (tuple(getattr(n, f) for f in fields), static(n)), unflatten
        )
    return cls


def _nnx_class(name: str, fields: tuple[str, ...], aux: tuple[str, ...]) -> type:
    from flax import nnx

    def __init__(self: Any, kids: list[Any], statics: dict[str, Any]) -> None:
        for field, kid in zip(fields, kids, strict=True):
            setattr(self, field, nnx.Param(kid))
        for field, value in statics.items():
            setattr(self, field, value)

    return type(name, (nnx.Module,), {"__init__": __init__})
