"""Strict reading of the values inside a recording's lines (JAX-free): numbers in range,
signatures and reasons of the types jitlab writes, and the sharing of equal ones.

A long recording repeats a few signatures and reasons a hundred thousand times: each is
made once and the same object serves again (:func:`kept`), which is also most of the
memory a long recording saves. :mod:`jitlab.records.lines` reads lines with these.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeGuard, TypeVar

from jitlab.records.calls import Reason, Signature


class Unfit(Exception):
    """A signature or reason of a type the reader does not trust."""


def is_object(value: object) -> TypeGuard[dict[str, Any]]:
    """A JSON object (its keys are texts; its values may be anything JSON holds)."""
    return type(value) is dict


def is_array(value: object) -> TypeGuard[list[Any]]:
    """A JSON array."""
    return type(value) is list


def signature(data: dict[str, Any]) -> Signature:
    text = data.get("text")
    if text is not None and type(text) is not str:
        raise Unfit
    # Texts where jitlab writes texts, numbers in shapes, or the line is unreadable: a dtype
    # that is a list would be read, and later fail to hash in a summary. (Numbers are not
    # told apart by type: an equal signature read before serves for 1.0 as for 1.)
    args, static = data.get("args", []), data.get("static")
    if not is_array(args) or (static and not is_object(static)):  # null or {}: no statics
        raise Unfit
    if type(data.get("tree", "")) is not str:
        raise Unfit
    for arg in args:
        if not (
            is_object(arg)
            and type(arg.get("path")) is str
            and type(arg.get("dtype")) is str
            and type(arg.get("sharding")) in (str, type(None))
            and type(arg.get("device")) in (str, type(None))
            and type(arg.get("shape")) is list
            and all(type(d) in NUMBER_TYPES and 0 <= d < HIGH for d in arg["shape"])
        ):
            raise Unfit
    return Signature.from_json(data)


_CHANGE_TEXTS = ("kind", "path", "before", "after", "detail")
_COUNT_TYPES = (int, float, bool)


def reason(data: dict[str, Any]) -> Reason:
    """Format 1.1 writes ``items`` (and ``jax``); 1.0 also ``changes`` and ``text``; the
    oldest recordings only ``changes`` (words, kept as written)."""
    changes, items, jax = data.get("changes", []), data.get("items"), data.get("jax")
    if not is_array(changes) or any(type(c) is not str for c in changes):
        raise Unfit
    if (jax is not None and type(jax) is not str) or (
        "text" in data and type(data["text"]) is not str
    ):
        raise Unfit
    if items is not None:
        if not is_array(items):
            raise Unfit
        for item in items:
            # A count equal to a whole number reads as it (1.0 as 1, true as 1): equal
            # JSON objects, an equal reason (the one read before serves).
            if not is_object(item):
                raise Unfit
            count = item.get("count")
            if count is not None and not (type(count) in _COUNT_TYPES and LOW < count < HIGH):
                raise Unfit
            if any(type(item.get(n)) not in (str, type(None)) for n in _CHANGE_TEXTS):
                raise Unfit
    return Reason.from_json(data)


def signature_key(data: dict[str, Any]) -> object:
    """Signatures are known by their text, as jitlab writes it."""
    return data.get("text")


def reason_key(data: dict[str, Any]) -> object:
    """Reasons by their items, field by field (hashable when the line is what jitlab writes:
    texts, whole numbers, nulls; any other reason is made, not kept)."""
    items = data.get("items")
    if not is_array(items) or not all(is_object(item) for item in items):
        return None
    return (data.get("jax"), *(tuple(item.items()) for item in items))


# Signatures and reasons already read, by a key from their JSON object, with the object
# each was made from: an equal object (``==``) makes an equal value, so the one made before
# serves. Only signatures whose text is the line's own are kept (as jitlab writes them), so
# a line whose text agrees with its fields reads exactly as it would alone; one that does not
# (1.0 where jitlab writes 1) may read as the equal value read before. A reason's fields are
# checked to be texts and whole numbers, so equal objects make equal reasons. Shared by all
# recordings read (a merge then compares the same objects); emptied past KEPT_AT_MOST.
SIGNATURES: dict[object, tuple[dict[str, Any], Signature]] = {}
REASONS: dict[object, tuple[dict[str, Any], Reason]] = {}
KEPT_AT_MOST = 1 << 16
intern = sys.intern

V = TypeVar("V", Signature, Reason)


def kept(
    data: dict[str, Any],
    store: dict[object, tuple[dict[str, Any], V]],
    key_of: Callable[[dict[str, Any]], object],
    make: Callable[[dict[str, Any]], V],
) -> V:
    """The value ``make`` makes of ``data``, or the equal one made before (``store``, by
    ``key_of``'s key)."""
    key = key_of(data)
    if key is None:  # none, or a damaged line's: made, not kept
        return make(data)
    try:
        seen = store.get(key)
    except TypeError:  # a field JSON gave as a list or an object: not a line jitlab writes
        return make(data)
    if seen is not None and seen[0] == data:
        return seen[1]
    value = make(data)
    if make is signature:
        try:
            if str(value) != key:  # not its own text: made, not kept
                return value
        except Exception:  # a damaged line's value that cannot be written (dtype {})
            return value
    if len(store) >= KEPT_AT_MOST:
        store.clear()
    store[key] = (data, value)
    return value


def forget_read_values() -> None:
    """Empty the signatures and reasons kept (a test reads each line as if alone)."""
    SIGNATURES.clear()
    REASONS.clear()


def whole_or_none(value: Any) -> int | None:
    """A whole number ≥ 0 (and in range), or None (any other value, from a damaged or
    foreign line)."""
    return (
        value
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < HIGH
        else None
    )


NUMBER_TYPES = (int, float)  # JSON's true/false are bool, a type of its own here


def is_of(value: Any, kind: type, none: bool = False) -> bool:
    if value is None:
        return none
    return isinstance(value, kind) and not isinstance(value, bool)


def float_or_none(value: Any) -> float | None:
    return float(value) if is_number(value) and value is not None else None


# The numbers a recording holds (counts, sizes, times) lie well inside these; a value outside
# (a 400-digit number, 1e300) is damage, and the line is skipped: float() of it would
# overflow in whatever shows it. Comparing an int with a float is exact (no overflow), and
# NaN and the infinities compare false.
LOW, HIGH = -1e18, 1e18


COUNTS = ("process", "processes", "local_devices", "devices")


def is_number(value: Any) -> bool:
    """A finite number in range, or null (JSON's true and false are not times)."""
    if value is None:
        return True
    return type(value) in NUMBER_TYPES and LOW < value < HIGH
