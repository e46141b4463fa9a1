"""JAX's ``jax_explain_cache_misses`` text, turned into the same structured changes.

JAX logs a ``TRACING CACHE MISS`` warning whose wording changes between versions, so this
parser is tolerant: each bullet it recognises becomes a typed :class:`Change`, any other
bullet is kept as JAX's raw words (``jax_explained``), and the whole text stays in
``Reason.jax_explanation``. It never raises.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from jitlab.records.calls import Change
from jitlab.records.changes import ChangeKind

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
# older JAX: "* at y['hi'], seen f32[3], but now given f32[4]"
_OLD_TYPES = re.compile(r"^\*\s*at (?P<path>.+?), seen (?P<before>.+?), but now given (?P<now>.+)$")


# The trace-context entries that hold the mesh in context (``jax.set_mesh(mesh)``, ``with
# mesh:``), as JAX names them in its trace context and in its bullets (0.10).
MESH_CONTEXT_NAMES = frozenset(("mesh_context_manager", "abstract_mesh_context_manager"))


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
            # JAX does not say how many objects there were: no count, its hint kept.
            changes.append(
                Change(
                    ChangeKind.NEW_FUNCTION_OBJECT,
                    path=m["at"] or m["name"],
                    detail=redefined_hint(text),
                )
            )
        elif "explanation unavailable" in text:
            changes.append(Change(ChangeKind.UNKNOWN, detail=summary(text)))
        elif "Tracing context" in text:
            changes.append(Change(ChangeKind.TRACING_CONTEXT, detail=summary(text)))
    return changes


def redefined_hint(text: str | None) -> str:
    """JAX's own hint that a function is being re-defined repeatedly, on one line; "" if
    JAX gave none. (``but seen another function defined on the same line; maybe the
    function is being re-defined repeatedly, preventing caching?``)"""
    if not text:
        return ""
    flat = " ".join(text.split())
    m = re.search(r"(?:but )?seen another function defined on the same line.*?(?:\?|$)", flat)
    if m:
        return m[0]
    m = re.search(r"[^.;]*re-defined repeatedly[^?]*\??", flat)
    return m[0].strip() if m else ""


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
    if m and m["name"] in MESH_CONTEXT_NAMES:
        return Change(ChangeKind.MESH_CONTEXT, m["name"], _mesh(m["before"]), _mesh(m["now"]))
    if m:
        return Change(ChangeKind.TRACING_CONTEXT, m["name"], m["before"], m["now"])
    m = _TREE.match(line)
    if m:
        path = m["path"]
        new_static, old_static = _STATIC.search(m["now"]), _STATIC.search(m["before"])
        if new_static and old_static:
            return Change(ChangeKind.STATIC_VALUE, path, old_static["val"], new_static["val"])
        return Change(ChangeKind.TREE_STRUCTURE, path, m["before"], m["now"], m["why"] or "")
    m = _TYPES.match(line) or _OLD_TYPES.match(line)
    if m:
        return _types(m["path"], m["now"], m["before"]) or Change(
            ChangeKind.JAX_EXPLAINED, m["path"], detail=line.lstrip("* ")
        )
    return Change(ChangeKind.JAX_EXPLAINED, detail=line.lstrip("* "))


def _types(path: str, now: str, before: str) -> Change | None:
    """A type bullet: which of dtype, shape, weak type or sharding differs.

    JAX writes ``f32[8,4]``, ``f32[]{weak_type=True}``, or with shardings
    ``f32[8@data,4]({Explicit: ('data',)})``.
    """
    new, old = _jax_type(now), _jax_type(before)
    if new is None or old is None:
        return None
    if new.dtype != old.dtype:
        return Change(ChangeKind.DTYPE, path, old.text, new.text)
    if new.shape != old.shape:
        return Change(ChangeKind.SHAPE, path, old.text, new.text)
    if new.weak != old.weak:
        return Change(ChangeKind.WEAK_TYPE, path, old.text, new.text)
    if new.layout != old.layout:  # the axes after ``@`` and the mesh in parentheses
        return Change(ChangeKind.SHARDING, path, old.layout or None, new.layout or None)
    return None


_JAX_TYPE = re.compile(r"^(?P<dtype>[a-z]+[0-9]*(?:<\w+>)?)\[(?P<dims>[^\]]*)\](?P<rest>.*)$")


class _JaxType(NamedTuple):
    """One type as JAX writes it in an explanation."""

    dtype: str
    shape: tuple[int, ...]
    weak: bool
    layout: str  # the axes after ``@`` and the mesh in parentheses; "" for none
    text: str  # as jitlab writes it (``~`` for a weak type)


def _jax_type(text: str) -> _JaxType | None:
    m = _JAX_TYPE.match(text.strip())
    if m is None:
        return None
    try:
        shape = tuple(int(d.split("@")[0]) for d in m["dims"].replace(" ", "").split(",") if d)
    except ValueError:
        return None
    weak = "weak_type=True" in m["rest"]
    rest = re.sub(r"\{weak_type=\w+\}", "", m["rest"]).strip()
    dims = ",".join(str(d) for d in shape)
    layout = f"[{m['dims']}]{rest}" if ("@" in m["dims"] or rest not in ("", "({})")) else ""
    return _JaxType(m["dtype"], shape, weak, layout, f"{'~' if weak else ''}{m['dtype']}[{dims}]")


_MESH_AXES = re.compile(r"'(?P<name>[^']+)':\s*(?P<size>\d+)")


def _mesh(text: str) -> str | None:
    """``AbstractMesh('x': 8, axis_types=…)`` as ``mesh(x=8)``; None for no mesh."""
    axes = _MESH_AXES.findall(text or "")
    if not axes:
        return None if text.strip() in ("None", "()", "") else text.strip()
    return "mesh(" + ",".join(f"{name}={size}" for name, size in axes) + ")"
