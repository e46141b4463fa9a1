"""identity-static, decided on the objects themselves (JAX-free): two static values jit
told apart although they are equal in content (flax#5548, optax#353, equinox#940).

"Equal in content" is measured, never guessed: the same class and the same fields (a
dataclass's, ``vars``, ``__slots__``; a callable object's too, such as a loss with a weight:
jax#4274, jax#2813), else the same repr that names no address; tuples, lists and dicts item
by item; a function made anew (a closure such as the ``init``/``update`` of
``optax.adam(...)``, a lambda in a module's ``__init__``) equal to the last one when it is
the same code with equal defaults and closure; a bound method by its function and its
``self``; a ``functools.partial`` by its function and arguments; and a ``jax.jit`` object
(one made in an Equinox module's ``__init__``: equinox#686) by the function it wraps and its
jit options. Anything else, or past :data:`_BUDGET` objects, is "not equal" — then jitlab
states nothing.

What the value is (:func:`static_kind`: a partial, a jit object, a method, a function, a
module, another callable, a config) rides in the change's detail, so the advice can fit it.

A pytree node's static data is read where its layout is known: a dataclass's
``pytree_node=False`` fields (``flax.struct``, Flax's ``TrainState``) and a Flax NNX
graph node's static attributes (``(data names, static names, static values)``, as
``flax.nnx.Pytree`` flattens itself; checked on Flax 0.12.8 and 0.12.12).
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Sequence
from typing import Any, NamedTuple, cast

from jitlab.records.diagnoses import identity_detail

_DEPTH = 16  # optax.adamw(a schedule)'s update is 10 deep (chain → update → tx → …)
_BUDGET = 400  # objects compared at most for one decision (a compile-path cost bound)


def same(a: Any, b: Any) -> bool:
    """Would jit treat these two static values as the same cache key?"""
    try:
        return type(a) is type(b) and bool(a == b) and hash(a) == hash(b)
    except Exception:
        return a is b


def same_data(a: Any, b: Any) -> bool:
    """Would a treedef hold these two values of a node's static data equal? JAX compares
    node data by ``==`` alone: ``1`` and ``True`` are one key there (as two static
    arguments are not: :func:`same`)."""
    try:
        return bool(a == b)
    except Exception:
        return a is b


def name_of(value: Any) -> str:
    """``module.QualName`` of a class, function or method (of the value's class otherwise)."""
    named = value if isinstance(value, type | types.FunctionType) else type(value)
    module = getattr(named, "__module__", None) or "?"
    return f"{module}.{getattr(named, '__qualname__', type(named).__name__)}"


def static_kind(value: Any) -> str:
    """What a static value is, for the advice that fits it (one of
    :data:`jitlab.records.diagnoses.STATIC_KINDS`)."""
    if isinstance(value, functools.partial):
        return "partial"
    if _is_jit_object(value):
        return "jit"
    if isinstance(value, types.MethodType):
        return "method"
    if isinstance(value, types.FunctionType):
        return "function"
    if _is_module(type(value)):
        return "module"
    return "callable" if callable(value) else "config"


def _is_module(kind: Any) -> bool:
    """A neural-network module's class: an Equinox, Flax Linen or Flax NNX ``Module``."""
    try:
        return any(
            c.__name__ == "Module" and c.__module__.startswith(("equinox", "flax"))
            for c in kind.__mro__
        )
    except Exception:
        return False


def _is_jit_object(value: Any) -> bool:
    """A ``jax.jit`` object (or a watch's stand-in for one): callable, with ``lower`` and
    the function it wraps."""
    return (
        callable(value)
        and not isinstance(value, type | types.FunctionType)
        and hasattr(value, "lower")
        and hasattr(value, "__wrapped__")
    )


# A jit object's options that are no option: where and how its function is written.
_NOT_OPTIONS = ("fun_sourceinfo", "fun_signature")


def _jit_parts(a: Any, b: Any) -> list[tuple[Any, Any]] | None:
    """Two ``jax.jit`` objects are equal in content when they wrap functions equal in
    content with equal jit options (JAX's caches are keyed on both: its ``PjitInfo``, whose
    own ``==`` compares some options by identity); None when either's options cannot be
    read."""
    from jitlab.probe import _jax  # only where a jit object is at hand: JAX is loaded

    info_a, info_b = _jax.jit_info(a), _jax.jit_info(b)
    names = getattr(info_a, "_fields", None)
    if info_b is None or not isinstance(names, tuple) or type(info_a) is not type(info_b):
        return None
    options = [
        (getattr(info_a, name), getattr(info_b, name))
        for name in cast("tuple[str, ...]", names)
        if name not in _NOT_OPTIONS
    ]
    return [(a.__wrapped__, b.__wrapped__), *options]


class Identity(NamedTuple):
    """Two static values equal in content yet unequal to jit: the value's class, the
    function made anew inside it (or None) and what the value is (:func:`static_kind`)."""

    cls: str
    function: str | None
    kind: str

    def detail(self, node: str | None = None, graph: bool = False) -> str:
        """The change's ``identity:`` detail (:func:`jitlab.records.diagnoses.identity_detail`)."""
        return identity_detail(self.cls, self.function, node, graph, self.kind)


def identity_class(new: Any, old: Any) -> str | None:
    """``module.QualName`` when two static values are two objects of one class that jit
    tells apart (``==`` or ``hash`` by identity) although their content is equal; None
    otherwise, or when that cannot be told."""
    found = identity_of(new, old)
    return found.cls if found else None


def identity_of(new: Any, old: Any) -> Identity | None:
    """What :class:`Identity` says, when ``new`` and ``old`` are equal in content yet
    unequal to jit; None otherwise or when it cannot be told. A function value is named as
    itself (``module.qualname``) in both places."""
    if type(new) is not type(old) or new is old or same(new, old):
        return None
    budget = [_BUDGET]
    remade: list[Any] = []
    try:
        if not _content_equal(new, old, _DEPTH, budget, remade):
            return None
    except Exception:
        return None
    kind = static_kind(new)
    cls = "jax.jit" if kind == "jit" else name_of(new)  # a watch's stand-in is one too
    return Identity(cls, name_of(remade[0]) if remade else None, kind)


def _content_equal(a: Any, b: Any, depth: int, budget: list[int], remade: list[Any]) -> bool:
    budget[0] -= 1
    if same(a, b):
        return True
    if type(a) is not type(b) or depth <= 0 or budget[0] <= 0:
        return False
    parts = _parts(a, b)
    if parts is not None:
        mark = len(remade)
        if any(not _content_equal(x, y, depth - 1, budget, remade) for x, y in parts):
            return False
        if isinstance(a, types.FunctionType):
            remade.insert(mark, a)  # outer before inner: the first is the one to name
        return True
    text = repr(a)
    return text == repr(b) and " at 0x" not in text and "..." not in text


def _parts(a: Any, b: Any) -> list[tuple[Any, Any]] | None:
    """The pairs two objects of one type are equal in content by; None when there are none
    to compare (then their repr decides), a pair that can never match when they differ in
    shape (another code, length or keys)."""
    never = [(0, 1)]
    if isinstance(a, types.FunctionType):
        if a.__code__ is not b.__code__ or a.__globals__ is not b.__globals__:
            return never
        # Its closure's cells one by one (the depth counts objects, not Python's wrappers).
        cells = zip(a.__closure__ or (), b.__closure__ or (), strict=True)
        return [
            (a.__defaults__, b.__defaults__),
            (a.__kwdefaults__, b.__kwdefaults__),
            *((x.cell_contents, y.cell_contents) for x, y in cells),
            (vars(a), vars(b)),
        ]
    if isinstance(a, functools.partial):
        return [(a.func, b.func), (a.args, b.args), (a.keywords, b.keywords)]
    if isinstance(a, types.MethodType):
        return [(a.__func__, b.__func__), (a.__self__, b.__self__)]
    if _is_jit_object(a):
        return _jit_parts(a, b)
    if isinstance(a, tuple | list):
        xs, ys = cast("Sequence[Any]", a), cast("Sequence[Any]", b)
        return list(zip(xs, ys, strict=True)) if len(xs) == len(ys) else never
    if isinstance(a, dict):
        da: dict[Any, Any] = a  # pyright: ignore[reportUnknownVariableType]
        db: dict[Any, Any] = b
        return [(da[k], db[k]) for k in da] if da.keys() == db.keys() else never
    fields = _fields(a)
    if fields is None:
        return None
    other = _fields(b)
    if other is None or fields.keys() != other.keys():
        return never
    return [(fields[k], other[k]) for k in fields]


def _fields(value: Any) -> dict[str, Any] | None:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict) and not isinstance(value, types.ModuleType):
        # A callable object's fields too (a loss with a weight, passed static: jax#4274);
        # functions, methods, partials and jit objects are compared by their parts above.
        return dict(cast("dict[str, Any]", attributes))
    kind: type[Any] = type(value)  # pyright: ignore[reportUnknownVariableType]
    slots = getattr(kind, "__slots__", None)
    if not isinstance(slots, tuple):
        return None
    names = cast("tuple[str, ...]", slots)
    if names and all(hasattr(value, s) for s in names):
        return {s: getattr(value, s) for s in names}
    return None


# -- a pytree node's static data --------------------------------------------------------------
def is_nnx_graph_node(kind: Any) -> bool:
    """A Flax NNX graph node's class (a ``flax.nnx`` ``Pytree``/``Module`` or subclass)."""
    try:
        return any(
            c.__module__.startswith("flax.nnx.") and c.__name__ in ("Pytree", "Object")
            for c in kind.__mro__
        )
    except Exception:
        return False


def static_parts(kind: Any, new: Any, old: Any) -> list[tuple[str, Any, Any]] | None:
    """(name, new value, old value) of each static field that differs between two nodes'
    static data, where its layout is known (a dataclass's ``pytree_node=False`` fields; a
    Flax NNX graph node's static attributes); None where it is not, or the nodes differ in
    more than those values (other fields, other data attributes)."""
    try:
        if dataclasses.is_dataclass(kind):
            names = [
                f.name for f in dataclasses.fields(kind) if f.metadata.get("pytree_node") is False
            ]
            return named_pairs(names, new, old)
        if is_nnx_graph_node(kind):
            data_new, names_new, values_new = new
            data_old, names_old, values_old = old
            if data_new != data_old or names_new != names_old:
                return None
            if len(names_new) != len(values_new) or len(values_new) != len(values_old):
                return None
            return named_pairs(list(map(str, names_new)), tuple(values_new), tuple(values_old))
        return None
    except Exception:
        return None


def named_pairs(names: Sequence[str], new: Any, old: Any) -> list[tuple[str, Any, Any]] | None:
    """(name, new, old) of each value that differs (as a treedef compares them:
    :func:`same_data`), ``new`` and ``old`` tuples of the values of ``names``; None when
    they are not."""
    if not (isinstance(new, tuple) and isinstance(old, tuple)):
        return None
    news: tuple[Any, ...] = new  # pyright: ignore[reportUnknownVariableType]
    olds: tuple[Any, ...] = old  # pyright: ignore[reportUnknownVariableType]
    if not len(names) == len(news) == len(olds):
        return None
    try:
        return [(n, x, y) for n, x, y in zip(names, news, olds, strict=True) if not same_data(x, y)]
    except Exception:
        return None


def static_identity(kind: Any, new: Any, old: Any) -> tuple[str, Any, Any, str] | None:
    """(field name, new value, old value, ``identity:`` detail) when the only difference
    between two nodes' static data is values equal in content (the first named; the node
    and, for a Flax NNX graph, ``graph=nnx`` in the detail); None otherwise."""
    parts = static_parts(kind, new, old)
    if not parts:
        return None
    found = [identity_of(x, y) for _, x, y in parts]
    first = found[0]
    if first is None or any(f is None for f in found):
        return None
    name, after, before = parts[0]
    return name, after, before, first.detail(name_of(kind), is_nnx_graph_node(kind))
