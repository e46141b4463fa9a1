"""captured-constant: what a compiled program holds as constants, and whether two programs
differ in those alone (optax#577: a learning rate baked into a re-created function).

A :class:`Program` is read from the jaxpr JAX compiled (made again from JAX's tracing cache
by :func:`jitlab.probe.scripts.traced_jaxpr`): a hash of its shape — every equation's
primitive, inputs, output types and params, with each constant replaced by its type — and
its constants in order, a Python scalar closed over being a literal in an equation, an array
a ``const`` of the program. The values of constants up to :data:`READ_UP_TO` elements are
read (a big array's are not: reading them would copy it off the device on every compile).
The names come from the function object itself: its closure cells and defaults, matched to
a changed constant by value. Nothing is kept of the program but these few figures.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from jitlab.probe import _jax

READ_UP_TO = 16  # elements of a constant whose values are read (and shown)
_TEXT_LIMIT = 60
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


@dataclass(frozen=True)
class Constant:
    """One constant of a program: a ``literal`` or a captured array (``const``)."""

    kind: str  # "literal" or "const"
    type_text: str  # f32[], f32[3]
    text: str | None  # its value, short (None: not read, too big)
    value: tuple[Any, ...] | None  # its elements, for comparing (None: not read)


@dataclass(frozen=True)
class Program:
    """What :func:`changed_constants` compares of one compiled program."""

    shape: int  # hash of everything but the constants' values
    equations: int
    constants: tuple[Constant, ...]
    names: tuple[tuple[str, np.ndarray], ...]  # the function's small closed-over values


@dataclass(frozen=True)
class ConstantChange:
    """A constant that differs between two programs of the same shape."""

    name: str | None  # the closed-over name it matches, if exactly one does
    kind: str
    type_text: str
    before: str | None
    after: str | None


def _small(value: Any) -> np.ndarray | None:
    """``value`` as a numpy array when it is a number or an array of few elements."""
    if isinstance(value, bool | int | float | complex | np.generic):
        return np.asarray(value)
    size = getattr(value, "size", None)
    if not isinstance(size, int) or size > READ_UP_TO or not hasattr(value, "dtype"):
        return None
    try:
        return np.asarray(value)
    except Exception:  # a tracer, a deleted array: no value to read
        return None


def _text(array: np.ndarray) -> str:
    text = str(array) if array.ndim == 0 else np.array2string(array, separator=", ")
    text = " ".join(text.split())
    return text if len(text) <= _TEXT_LIMIT else text[: _TEXT_LIMIT - 1] + "…"


def _constant(kind: str, value: Any, aval: Any) -> Constant:
    array = _small(value)
    type_text = str(getattr(aval, "str_short", lambda: aval)())
    if array is None:
        return Constant(kind, type_text, None, None)
    return Constant(kind, type_text, _text(array), (str(array.dtype), *array.ravel().tolist()))


def _walk(jaxpr: Any, consts: tuple[Any, ...], found: list[Constant]) -> Iterator[Any]:
    """The shape of a (sub-)program as a stream of hashable pieces; constants to ``found``."""
    for var, value in zip(jaxpr.constvars, consts, strict=False):
        found.append(_constant("const", value, var.aval))
        yield ("const", str(var.aval))
    numbering: dict[Any, int] = {}
    counter = itertools.count()

    def atom(a: Any) -> Any:
        if _jax.is_literal(a):
            found.append(_constant("literal", a.val, a.aval))
            return ("literal", str(a.aval))
        if a not in numbering:
            numbering[a] = next(counter)
        return numbering[a]

    yield tuple(atom(v) for v in (*jaxpr.constvars, *jaxpr.invars))
    for eqn in jaxpr.eqns:
        yield str(eqn.primitive), tuple(atom(v) for v in eqn.invars)
        yield tuple((atom(v), str(v.aval)) for v in eqn.outvars)
        for key in sorted(eqn.params):
            yield key
            yield from _param(eqn.params[key], found)
    yield tuple(atom(v) for v in jaxpr.outvars)


def _param(value: Any, found: list[Constant]) -> Iterator[Any]:
    parts = _jax.jaxpr_parts(value)
    if parts is not None:
        yield "{"
        yield from _walk(*parts, found)
        yield "}"
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _param(item, found)
    elif callable(value):  # a rule JAX made while tracing (a thunk): a new object each trace
        yield getattr(value, "__qualname__", type(value).__qualname__)
    else:
        yield _ADDRESS.sub("", str(value))[:200]


def _named_values(fun: Any) -> list[tuple[str, Any]]:
    """What a new object of ``fun`` may hold differently: its closure cells, its defaults,
    and the module globals its code reads (read when JAX traces it)."""
    named: list[tuple[str, Any]] = []
    code, cells = getattr(fun, "__code__", None), getattr(fun, "__closure__", None) or ()
    for name, cell in zip(getattr(code, "co_freevars", ()), cells, strict=False):
        try:
            named.append((name, cell.cell_contents))
        except ValueError:  # an empty cell
            continue
    defaults = getattr(fun, "__defaults__", None) or ()
    params = getattr(code, "co_varnames", ())[: getattr(code, "co_argcount", 0)]
    named += zip(params[len(params) - len(defaults) :], defaults, strict=False)
    named += (getattr(fun, "__kwdefaults__", None) or {}).items()
    module = getattr(fun, "__globals__", None)
    if isinstance(module, dict):
        named += ((n, module[n]) for n in getattr(code, "co_names", ()) if n in module)
    return named


def _closed_over(fun: Any) -> tuple[tuple[str, np.ndarray], ...]:
    """The names ``fun`` reads that hold a number or a small array, with their values."""
    kept = []
    for name, value in _named_values(fun):
        array = _small(value)
        if array is not None:
            kept.append((str(name), array))
    return tuple(kept)


def takes_constants(fun: Any) -> bool:
    """Can a new object of this function hold other constants? A closure, defaults, or a
    module global holding a number or an array that its code reads."""
    if getattr(fun, "__closure__", None) or getattr(fun, "__defaults__", None):
        return True
    if getattr(fun, "__kwdefaults__", None):
        return True
    return any(
        isinstance(value, bool | int | float | complex | np.generic) or hasattr(value, "dtype")
        for _, value in _named_values(fun)
    )


def program(closed: Any, fun: Any) -> Program | None:
    """The :class:`Program` of a traced program (None when it is no jaxpr jitlab knows)."""
    parts = _jax.jaxpr_parts(closed)
    if parts is None:
        return None
    found: list[Constant] = []
    shape = hash(tuple(_walk(*parts, found)))
    return Program(shape, len(parts[0].eqns), tuple(found), _closed_over(fun))


def _name(old: Program, new: Program, before: Constant, after: Constant) -> str | None:
    """The one closed-over name whose value went from ``before``'s to ``after``'s."""
    dtype = (after.value or before.value or ("",))[0]
    olds = dict(old.names)
    names = set()
    for name, now in new.names:
        was = olds.get(name)
        if was is None:
            continue
        try:
            pair = [(str(dtype), *np.asarray(v, dtype).ravel().tolist()) for v in (was, now)]
        except (TypeError, ValueError):
            continue
        if pair == [before.value, after.value]:
            names.add(name)
    return names.pop() if len(names) == 1 else None


def changed_constants(old: Program, new: Program) -> list[ConstantChange] | None:
    """The constants that differ between two programs of one shape; None when they differ
    in more than constants, or when no constant read differs while some were not read (a
    big array may differ or not: jitlab cannot tell). [] when the two are the same."""
    if old.shape != new.shape or len(old.constants) != len(new.constants):
        return None
    changes, unread = [], False
    for before, after in zip(old.constants, new.constants, strict=True):
        if before.value is None or after.value is None:
            unread = True
        elif before.value != after.value:
            name = _name(old, new, before, after)
            changes.append(
                ConstantChange(name, after.kind, after.type_text, before.text, after.text)
            )
    return None if unread and not changes else changes
