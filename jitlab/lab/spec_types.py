"""A spec's values against their declared types, walked down through every dataclass field.

:func:`type_problems` yields each place a value is not what its attribute declares (a plain str
where a ``Text`` belongs, a list where a tuple does, a ``Param`` with a float for a bound of an
int), each said as an author reads it: ``must be Text(en, zh), not the plain str 'Weak
types'``. :mod:`jitlab.lab.validation` runs it on every attribute of a scenario. Imports no
JAX.
"""

from __future__ import annotations

import dataclasses
import enum
import reprlib
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from typing import Any

from jitlab.records.text import Text

__all__ = ["Key", "PathStep", "describe", "shown", "type_problems"]

_SHORT = reprlib.Repr()
_SHORT.maxstring = 60
_SHORT.maxother = 60


class Key(str):
    """A step into a mapping on a problem's path (``['batch_size']``), not an attribute."""


PathStep = str | int
TypeProblem = tuple[tuple[PathStep, ...], str]  # where (a path into the value), what


def describe(hint: Any) -> str:
    """A type as an author reads it."""
    if hint is Any:
        return "anything"
    if hint is type(None) or hint is None:
        return "None"
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        arms = typing.get_args(hint)
        if float in arms:  # "a number" takes whole numbers too
            arms = tuple(a for a in arms if a is not int)
        return " or ".join(describe(a) for a in arms)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"a tuple of {_plural(args[0])}"
        return "an empty tuple ()" if not args else f"a tuple ({', '.join(map(describe, args))})"
    if origin is not None and isinstance(origin, type) and issubclass(origin, Mapping):
        return "a dict of parameter names to values"
    if (origin is not None and origin is Callable) or hint is Callable:
        return "a function"
    return {
        str: "a string",
        int: "a whole number",
        float: "a number",
        bool: "True or False",
        Text: "Text(en, zh)",
    }.get(hint, _named(hint))


def _named(hint: Any) -> str:
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        members = ", ".join(f"{hint.__name__}.{m.name}" for m in list(hint)[:4])
        return f"a {hint.__name__} ({members}{', …' if len(hint) > 4 else ''})"
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        fields = [f for f in dataclasses.fields(hint) if f.init]
        needed = [f.name for f in fields if _required(f)]
        more = ", …" if len(needed) < len(fields) else ""
        return f"{hint.__name__}({', '.join(needed)}{more})"
    return getattr(hint, "__name__", str(hint))


def _required(f: dataclasses.Field[Any]) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def _plural(hint: Any) -> str:
    if hint is Text:
        return "Text(en, zh)"
    if hint is str:
        return "strings"
    if typing.get_origin(hint) is not None and issubclass(typing.get_origin(hint), Mapping):
        return "dicts of parameter names to values"
    return _named(hint).removeprefix("a ")


def shown(value: Any) -> str:
    """A value in a few characters, with its kind: ``the str 'Weak types'``, ``None``."""
    if value is None:
        return "None"
    try:
        text = _SHORT.repr(value)
    except Exception:
        text = "…"
    return f"the {type(value).__name__} {text}"


@cache
def _fields(kind: type) -> tuple[tuple[str, Any], ...]:
    """A dataclass's fields and their types, resolved once (most of a walk's cost else)."""
    hints = typing.get_type_hints(kind)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(kind))


@cache
def _shape(hint: Any) -> tuple[str, Any]:
    """What kind of check ``hint`` asks for, decided once per type: (kind, its argument)."""
    if hint is Any:
        return "any", None
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        return "union", typing.get_args(hint)
    if hint is type(None) or hint is None:
        return "none", None
    if origin is tuple:
        return "tuple", typing.get_args(hint)
    if origin is not None and isinstance(origin, type) and issubclass(origin, Mapping):
        return "mapping", None
    if origin is Callable or hint is Callable:
        return "callable", None
    if hint is float or hint is int:
        return "number", hint
    if isinstance(hint, type):
        return ("dataclass" if dataclasses.is_dataclass(hint) else "type"), hint
    return "any", None


def type_problems(value: Any, hint: Any, path: tuple[PathStep, ...]) -> Iterator[TypeProblem]:
    """(path, message) for each place ``value`` is not of type ``hint``, deepest first found."""
    kind, arg = _shape(hint)
    if kind == "any":
        return
    if kind == "union":
        # Only the arms of the value's own kind can fit (an int is no Text): walked in turn.
        same = [a for a in arg if _outer_matches(value, a)]
        found: list[TypeProblem] = []
        for arm in same:
            found = list(type_problems(value, arm, path))
            if not found:
                return
        if len(same) == 1:  # what is wrong inside the value's own kind
            yield from found
        else:
            yield path, _wrong(value, hint)
    elif kind == "none":
        if value is not None:
            yield path, _wrong(value, hint)
    elif kind == "tuple":
        yield from _tuple_problems(value, hint, arg, path)
    elif kind == "mapping":
        if not isinstance(value, Mapping):
            yield path, _wrong(value, hint)
            return
        for key in list(value):
            if not isinstance(key, str):
                yield path, f"names parameters by strings; {shown(key)} is not one"
    elif kind == "callable":
        if not callable(value):
            yield path, _wrong(value, hint)
    elif kind == "number":  # a whole number for int, any for float; never a bool
        if isinstance(value, bool) or not isinstance(value, int if arg is int else int | float):
            yield path, _wrong(value, hint)
    elif not isinstance(value, arg):
        yield path, _wrong(value, hint)
    elif kind == "dataclass":
        fields = _fields(arg)
        if all(h is str for _, h in fields) and all(  # a Text: the common case, at once
            isinstance(getattr(value, name, None), str) for name, _ in fields
        ):
            return
        for name, field_hint in fields:
            yield from type_problems(getattr(value, name, None), field_hint, (*path, name))


def _outer_matches(value: Any, hint: Any) -> bool:
    outer = _outer(hint)
    return value is None if outer is None else isinstance(value, outer)


@cache
def _outer(hint: Any) -> type | None:
    """The class a value of ``hint`` is an instance of (``NoneType`` is said as None)."""
    if hint is type(None) or hint is None:
        return None
    origin = typing.get_origin(hint) or hint
    return origin if isinstance(origin, type) else _Nothing


class _Nothing:
    """What no value is an instance of: the outer class of a type that names no class."""


def _tuple_problems(
    value: Any, hint: Any, args: tuple[Any, ...], path: tuple[PathStep, ...]
) -> Iterator[TypeProblem]:
    if not isinstance(value, tuple):
        yield path, _wrong(value, hint)
        return
    if len(args) == 2 and args[1] is Ellipsis:
        for i, item in enumerate(value):
            yield from type_problems(item, args[0], (*path, i))
        return
    if len(value) != len(args):
        yield path, _wrong(value, hint)
        return
    for i, (item, arg) in enumerate(zip(value, args, strict=True)):
        yield from type_problems(item, arg, (*path, i))


def _wrong(value: Any, hint: Any) -> str:
    """``must be X, not Y``, with the fix for the usual slips."""
    said = f"must be {describe(hint)}, not {shown(value)}"
    wants = _arms(hint)
    if type(value) is str and Text in wants:
        return (
            f"must be Text(en, zh), not the plain str {_SHORT.repr(value)}: every text "
            f"comes in English and Chinese, e.g. Text({_SHORT.repr(value)}, '…')"
        )
    if isinstance(value, list) and any(typing.get_origin(a) is tuple for a in wants):
        return f"{said}: write it in round brackets, (…, …), not square ones"
    tuples = [a for a in wants if typing.get_origin(a) is tuple]
    if tuples and not isinstance(value, tuple) and value is not None:
        item = typing.get_args(tuples[0])[:1]
        if item and _outer_matches(value, item[0]):
            return f"{said}: a tuple of one needs its comma, (x,)"
    kinds = [a for a in wants if a is not type(None)]
    if isinstance(value, str) and all(dataclasses.is_dataclass(a) for a in kinds):
        return f"{said}: a bare id or text is not enough"  # ("pitfall", "fix") as variants
    return said


def _arms(hint: Any) -> tuple[Any, ...]:
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        return typing.get_args(hint)
    return (hint,)
