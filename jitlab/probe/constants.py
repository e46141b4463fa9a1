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

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from jitlab.probe import _jax_programs

READ_UP_TO = 16  # elements of a constant whose values are read (and shown)
_TEXT_LIMIT = 60
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


@dataclass(frozen=True, eq=False)
class Constant:
    """One constant of a program: a ``literal`` or a captured array (``const``)."""

    kind: str  # "literal" or "const"
    aval: Any  # its type, as JAX holds it
    array: np.ndarray | None  # its value (None: not read, too big)

    @property
    def type_text(self) -> str:  # f32[], f32[3]
        return str(getattr(self.aval, "str_short", lambda: self.aval)())

    @property
    def text(self) -> str | None:
        return None if self.array is None else _text(self.array)

    def same_value(self, other: Constant) -> bool | None:
        """Do the two hold the same value? None when one was not read."""
        a, b = self.array, other.array
        if a is None or b is None:
            return None
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


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


def _walk(jaxpr: Any, consts: tuple[Any, ...], found: list[Constant], out: list[Any]) -> None:
    """The shape of a (sub-)program as hashable pieces appended to ``out`` (types as JAX's
    own hashable avals: printing them would cost more than all the rest); its constants,
    in order, to ``found``."""
    for var, value in zip(jaxpr.constvars, consts, strict=False):
        found.append(Constant("const", var.aval, _small(value)))
        out.append(var.aval)
    numbering: dict[Any, int] = {}
    literal: Any = _jax_programs.LITERAL

    def atom(a: Any) -> Any:
        if isinstance(a, literal):
            held: Any = a
            found.append(Constant("literal", held.aval, _small(held.val)))
            return held.aval
        number = numbering.get(a)
        if number is None:
            number = numbering[a] = len(numbering)
        return number

    out.append(tuple(atom(v) for v in (*jaxpr.constvars, *jaxpr.invars)))
    for eqn in jaxpr.eqns:
        out.append(eqn.primitive)
        out.append(tuple([atom(v) for v in eqn.invars]))
        out.append(tuple([(atom(v), v.aval) for v in eqn.outvars]))
        for key, value in eqn.params.items():
            out.append(key)
            _param(value, found, out)
    out.append(tuple(atom(v) for v in jaxpr.outvars))


def _param(value: Any, found: list[Constant], out: list[Any]) -> None:
    parts = _jax_programs.jaxpr_parts(value)
    if parts is not None:
        out.append("{")
        _walk(*parts, found, out)
        out.append("}")
    elif _jax_programs.is_params(value):
        for item in value:
            _param(item, found, out)
    elif callable(value) or isinstance(value, _jax_programs.WRAPPED_FUN):
        # A rule JAX made while tracing (a thunk, a custom_jvp's jvp): new on each trace.
        out.append(type(value).__qualname__)
    else:
        try:
            hash(value)
        except TypeError:  # unhashable: its text, without the object's address
            out.append(_ADDRESS.sub("", str(value))[:200])
        else:
            out.append(value)


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
    kept: list[tuple[str, np.ndarray]] = []
    for name, value in _named_values(fun):
        array = _small(value)
        if array is not None:
            kept.append((str(name), array))
    return tuple(kept)


def program(closed: Any, fun: Any) -> Program | None:
    """The :class:`Program` of a traced program (None when it is no jaxpr jitlab knows)."""
    parts = _jax_programs.jaxpr_parts(closed)
    if parts is None:
        return None
    found: list[Constant] = []
    out: list[Any] = []
    _walk(*parts, found, out)
    shape = hash(tuple(out))
    return Program(shape, len(parts[0].eqns), tuple(found), _closed_over(fun))


def _name(old: Program, new: Program, before: Constant, after: Constant) -> str | None:
    """The one closed-over name whose value went from ``before``'s to ``after``'s."""
    assert before.array is not None and after.array is not None
    dtype = after.array.dtype
    olds = dict(old.names)
    names: set[str] = set()
    for name, now in new.names:
        was = olds.get(name)
        if was is None:
            continue
        try:
            pair = [np.asarray(v, dtype) for v in (was, now)]
        except (TypeError, ValueError):
            continue
        if all(
            a.shape == b.shape and a.tobytes() == b.tobytes()
            for a, b in zip(pair, (before.array.astype(dtype), after.array), strict=True)
        ):
            names.add(name)
    return names.pop() if len(names) == 1 else None


def changed_constants(old: Program, new: Program) -> list[ConstantChange] | None:
    """The constants that differ between two programs of one shape, one per distinct pair
    of values (a closed-over ``lr`` used in ten equations is one change); None when the
    programs differ in more than constants, or when no constant read differs while some
    were not read (a big array may differ or not: jitlab cannot tell). [] when the two are
    the same."""
    if old.shape != new.shape or len(old.constants) != len(new.constants):
        return None
    changes: list[ConstantChange] = []
    seen: set[tuple[bytes, bytes, str]] = set()
    unread = False
    for before, after in zip(old.constants, new.constants, strict=True):
        same = before.same_value(after)
        if same is None:
            unread = True
            continue
        if same:
            continue
        assert before.array is not None and after.array is not None
        pair = (before.array.tobytes(), after.array.tobytes(), str(after.array.dtype))
        if pair in seen:
            continue
        seen.add(pair)
        name = _name(old, new, before, after)
        changes.append(ConstantChange(name, after.kind, after.type_text, before.text, after.text))
    return None if unread and not changes else changes
