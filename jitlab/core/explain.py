"""JAX's ``jax_explain_cache_misses`` text, turned into the same structured changes.

JAX logs a ``TRACING CACHE MISS`` warning whose wording changes between versions, so this
parser is tolerant: each bullet it recognises becomes a typed :class:`Change`, any other
bullet is kept as JAX's raw words (``jax_explained``), and the whole text stays in
``Reason.jax_explanation``. It never raises.
"""

from __future__ import annotations

import re

from jitlab.core.changes import ChangeKind, parse_type
from jitlab.core.records import Change

# "* jax_default_matmul_precision differs: now float32 and before None"
_CONTEXT = re.compile(r"^\*\s*(?P<name>\S+) differs:\s*now (?P<now>.*?) and before (?P<before>.*)$")
# "* at input path [0][1], now <…> and before <…>, so the pytree node metadata does not match"
_TREE = re.compile(
    r"^\*\s*at input path (?P<path>\S*), now (?P<now>.+?) and before (?P<before>.+?)"
    r"(?:, so (?P<why>.*))?$"
)
# "* at x, now f32[3] and before f32[]{weak_type=True}"
_TYPES = re.compile(r"^\*\s*at (?P<path>.+?), now (?P<now>.+?) and before (?P<before>.+)$")
_STATIC = re.compile(r"Static\(val=(?P<val>.*)\)$")
_NEVER_SEEN = re.compile(
    r"never seen function:?\s*(?P<name>\S+) id=\d+(?: defined at (?P<at>\S+))?"
)
_TYPE_TEXT = re.compile(r"^(?P<type>[a-z]+[0-9]*\[[0-9, ]*\])(?P<rest>.*)$")


def is_explanation(text: str | None) -> bool:
    return bool(text) and "CACHE MISS" in (text or "").upper()


def never_seen(text: str | None) -> bool:
    """JAX says it has never traced this function object (a first call, or a new object)."""
    return bool(text) and "never seen function" in (text or "")


def parse(text: str | None) -> list[Change]:
    """The changes JAX names in one or more explanations; [] when it names none."""
    if not text:
        return []
    changes: list[Change] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line.startswith("*"):
            continue
        change = _bullet(line)
        if change is not None and change not in changes:
            changes.append(change)
    if not changes:
        m = _NEVER_SEEN.search(" ".join(text.split()))
        if m:
            repeated = "re-defined repeatedly" in text
            changes.append(
                Change(
                    ChangeKind.NEW_FUNCTION_OBJECT,
                    path=m["at"] or m["name"],
                    count=2 if repeated else 0,
                )
            )
        elif "explanation unavailable" in text:
            changes.append(Change(ChangeKind.UNKNOWN, detail=summary(text)))
        elif "Tracing context" in text:
            changes.append(Change(ChangeKind.TRACING_CONTEXT, detail=summary(text)))
    return changes


def summary(text: str | None) -> str:
    """JAX's words without the ``TRACING CACHE MISS at …`` header, on one line."""
    if not text:
        return ""
    lines = [
        line.strip()
        for line in text.splitlines()
        if line.strip() and "CACHE MISS at" not in line and "all previously seen" not in line
    ]
    return " ".join(lines)


def _bullet(line: str) -> Change | None:
    m = _CONTEXT.match(line)
    if m:
        return Change(ChangeKind.TRACING_CONTEXT, m["name"], m["before"], m["now"])
    m = _TREE.match(line)
    if m:
        path = m["path"]
        new_static, old_static = _STATIC.search(m["now"]), _STATIC.search(m["before"])
        if new_static and old_static:
            return Change(ChangeKind.STATIC_VALUE, path, old_static["val"], new_static["val"])
        return Change(ChangeKind.TREE_STRUCTURE, path, m["before"], m["now"], m["why"] or "")
    m = _TYPES.match(line)
    if m:
        return _types(m["path"], m["now"], m["before"]) or Change(
            ChangeKind.JAX_EXPLAINED, m["path"], detail=line.lstrip("* ")
        )
    return Change(ChangeKind.JAX_EXPLAINED, detail=line.lstrip("* "))


def _types(path: str, now: str, before: str) -> Change | None:
    """A type bullet: which of dtype, shape, weak type or sharding differs."""
    new, old = _type_text(now), _type_text(before)
    if new is None or old is None:
        return None
    (new_text, new_rest), (old_text, old_rest) = new, old
    new_type, old_type = parse_type(new_text), parse_type(old_text)
    if new_type is None or old_type is None:
        return None
    new_weak = "weak_type=True" in new_rest
    old_weak = "weak_type=True" in old_rest
    after = ("~" if new_weak else "") + new_text
    before_ = ("~" if old_weak else "") + old_text
    if new_type[0] != old_type[0]:
        return Change(ChangeKind.DTYPE, path, before_, after)
    if new_type[1] != old_type[1]:
        return Change(ChangeKind.SHAPE, path, before_, after)
    if new_weak != old_weak:
        return Change(ChangeKind.WEAK_TYPE, path, before_, after)
    if new_rest != old_rest:  # JAX writes the sharding after the type when it differs
        return Change(ChangeKind.SHARDING, path, old_rest.strip() or None, new_rest.strip() or None)
    return None


def _type_text(text: str) -> tuple[str, str] | None:
    m = _TYPE_TEXT.match(text.strip())
    return (m["type"], m["rest"]) if m else None
