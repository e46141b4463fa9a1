"""JAX's ``jax_explain_cache_misses`` text, turned into the same structured changes.

JAX logs a ``TRACING CACHE MISS`` warning whose wording changes between versions, so this
parser is tolerant: each bullet it recognises becomes a typed :class:`Change`, any other
bullet is kept as JAX's raw words (``jax_explained``), and the whole text stays in
``Reason.jax_explanation``. It never raises.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from jitlab.records.calls import Change, Reason
from jitlab.records.changes import ChangeKind

# "* jax_default_matmul_precision differs: now float32 and before None"
# The trace-context entry of the named axes in scope (vmap/pmap ``axis_name``).
AXIS_CONTEXT_NAME = "axis_env_state"
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


def says_nothing(text: str | None) -> bool:
    """JAX logged its miss but could not say what changed ("cache miss explanation
    unavailable": from 0.11 its explainer leaves static arguments out of the comparison), or
    logged nothing. Such words are no explanation and are never shown as one."""
    if not text:
        return True
    if "explanation unavailable" not in text or never_seen(text):
        return False
    return all(c.kind is ChangeKind.UNKNOWN for c in parse(text))


def keep_words(reason: Reason) -> Reason:
    """``reason`` without JAX's words where they say nothing beside a change of jitlab's own
    (with only ``unknown`` to say, even "explanation unavailable" is kept: it is all there is)."""
    if reason.jax_explanation is None or not says_nothing(reason.jax_explanation):
        return reason
    if all(c.kind is ChangeKind.UNKNOWN for c in reason.items):
        return reason
    return Reason(reason.items, None)


def parse(text: str | None, context_names: Sequence[str] | None = None) -> list[Change]:
    """The changes JAX names in one or more explanations; [] when it names none.

    ``context_names``: the names of the trace-context entries of the JAX that wrote the
    text, by position (0.6–0.8 name a context change by its position only); None for the
    running JAX's. A position with no known name gives an unnamed context change."""
    if not text:
        return []
    changes: list[Change] = []
    section = ""  # 0.6–0.8: the ``* key with different …:`` block the lines belong to
    lines = [raw.strip() for raw in text.splitlines()]
    for i, line in enumerate(lines):
        header = _OLD_HEADER.match(line)
        if header:
            section = header["what"]
            found = _old_section(section, lines[i + 1 :], context_names)
        elif line.startswith("*"):
            found = [_old_bullet(section, line) if section else _bullet(line)]
        else:
            continue
        for change in found:
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
        elif "Tracing context" in text or "tracing context" in text:
            changes.append(Change(ChangeKind.TRACING_CONTEXT, detail=summary(text)))
    return changes


# -- JAX 0.6–0.8: "* key with different <what>:" blocks ------------------------------------------
_OLD_HEADER = re.compile(r"^\*\s*key with different (?P<what>[^:.]+)[:.]")
# "now 3 and before 2" (static args, joined by ", " when several)
_OLD_NOW_BEFORE = re.compile(r"^now (?P<now>.*) and before (?P<before>.*)$")
_OLD_KWARGS = re.compile(r"^\{(?P<key>\w+): (?P<val>.*)\}$")
_OLD_ARG_KEYS = re.compile(r"^(?P<when>now|before) \d+ args and kwargs with keys \[(?P<keys>.*)\]$")
# "[28]: now float32 and before None" (joined by ", and" when several)
_OLD_CONTEXT = re.compile(
    r"^\[(?P<pos>\d+)\]: now (?P<now>.*?) and before (?P<before>.*?)(?:, and)?$"
)
# "* at args[0], now <class 'dict'> with 2 children and before … , so the numbers … match"
_OLD_TREE = re.compile(
    r"^\*\s*at (?P<base>args|kwargs)(?P<rest>\S*), now (?P<now>.+?) and before "
    r"(?P<before>.+?)(?:, so (?P<why>.*))?$"
)


def _old_section(
    what: str, rest: list[str], context_names: Sequence[str] | None
) -> list[Change | None]:
    """The changes of a block whose content is not ``*`` bullets (read from the lines up to
    the next ``*`` line); [] for blocks whose bullets follow."""
    body: list[str] = []
    for line in rest:
        if line.startswith("*") or "CACHE MISS" in line:
            break
        body.append(line)
    if what in ("input types", "input pytree"):
        return []  # bullets follow
    if what == "static_argnums":
        return []  # 0.6 adds it to a tree change: the tree bullet says what changed
    if what == "value of static args":
        m = _OLD_NOW_BEFORE.match(body[0]) if body else None
        # JAX does not say which position: the values only.
        return [Change(ChangeKind.STATIC_VALUE, "", m["before"], m["now"])] if m else [None]
    if what == "value of static kwargs":
        m = _OLD_NOW_BEFORE.match(body[0]) if body else None
        if m:
            new, old = _OLD_KWARGS.match(m["now"]), _OLD_KWARGS.match(m["before"])
            one = new and old and new["key"] == old["key"] and ": " not in new["val"]
            if one and new and old:  # one keyword: named as 0.9+ name it
                return [
                    Change(ChangeKind.STATIC_VALUE, f"[1]['{new['key']}']", old["val"], new["val"])
                ]
            return [Change(ChangeKind.STATIC_VALUE, "", m["before"], m["now"])]
        return [None]
    if what == "number of args and kwargs, but same total number":
        keys: dict[str, set[str]] = {}
        for line in body:
            m = _OLD_ARG_KEYS.match(line)
            if m:
                keys[m["when"]] = set(re.findall(r"'([^']*)'", m["keys"]))
        if len(keys) == 2:
            now, before = keys["now"], keys["before"]
            return [
                Change(
                    ChangeKind.KEYWORD_VS_POSITIONAL,
                    name,
                    "position" if name in now else "keyword",
                    "keyword" if name in now else "position",
                )
                for name in sorted(now ^ before)
            ] or [None]
        return [Change(ChangeKind.JAX_EXPLAINED, detail=" ".join([what, *body]))]
    if what.startswith("tracing context"):
        return _old_context(body, context_names)
    if any("explanation unavailable" in line for line in body):
        return [Change(ChangeKind.UNKNOWN, detail=" ".join([f"different {what}:", *body]))]
    return [Change(ChangeKind.JAX_EXPLAINED, detail=" ".join([f"different {what}:", *body]))]


def _old_context(body: list[str], context_names: Sequence[str] | None) -> list[Change | None]:
    names: Sequence[str] | None = context_names
    found: list[Change | None] = []
    for line in body:
        m = _OLD_CONTEXT.match(line)
        if not m:
            continue
        if names is None:
            names = _running_context_names()
        pos = int(m["pos"])
        name = names[pos] if pos < len(names) else ""
        if name in MESH_CONTEXT_NAMES:
            found.append(Change(ChangeKind.MESH_CONTEXT, name, _mesh(m["before"]), _mesh(m["now"])))
        elif name == AXIS_CONTEXT_NAME:
            found.append(Change(ChangeKind.TRACING_CONTEXT, "", None, None, detail="axis"))
        elif name:
            found.append(Change(ChangeKind.TRACING_CONTEXT, name, m["before"], m["now"]))
        else:  # a position jitlab cannot name: say a context changed, not which
            found.append(Change(ChangeKind.TRACING_CONTEXT, detail=line))
    return found or [Change(ChangeKind.TRACING_CONTEXT, detail=" ".join(body))]


def _running_context_names() -> Sequence[str]:
    try:
        from jitlab.probe import _jax

        return _jax.trace_context_names()
    except Exception:  # without them a context change is unnamed
        return ()


def _old_bullet(section: str, line: str) -> Change | None:
    if section == "input pytree":
        m = _OLD_TREE.match(line)
        if m:
            # ``args[0]`` is 0.9+'s ``[0][0]``: the path into (args, kwargs).
            path = ("[0]" if m["base"] == "args" else "[1]") + m["rest"]
            return Change(ChangeKind.TREE_STRUCTURE, path, m["before"], m["now"], m["why"] or "")
    if section == "input types":
        return _bullet(line)
    return Change(ChangeKind.JAX_EXPLAINED, detail=line.lstrip("* "))


def redefined_hint(text: str | None) -> str:
    """JAX's own hint that a function is being re-defined repeatedly, on one line; "" if
    JAX gave none. (``but seen another function defined on the same line; maybe the
    function is being re-defined repeatedly, preventing caching?``)"""
    if not text:
        return ""
    flat = " ".join(_placed(text).split())
    m = re.search(r"(?:but )?seen another function defined on the same line.*?(?:\?|$)", flat)
    if m:
        return m[0]
    # As re.search(r"[^.;]*re-defined repeatedly[^?]*\??", flat), in linear time: that
    # pattern backtracks over every start of a long text without "." or ";" (JAX's
    # explanation of a miss on 10,000 changed leaves: minutes).
    phrase = "re-defined repeatedly"
    first = flat.find(phrase)
    if first < 0:
        return ""
    start = max(flat.rfind(".", 0, first), flat.rfind(";", 0, first)) + 1
    stops = [i for i in (flat.find(".", first), flat.find(";", first)) if i >= 0]
    last = flat.rfind(phrase, first, min(stops, default=len(flat)))
    question = flat.find("?", last)
    return flat[start : len(flat) if question < 0 else question + 1].strip()


# A miss JAX could place nowhere (no source info: a function JAX's own wrappers trace, as
# checkify's): ``TRACING CACHE MISS at :``. Every such miss shares that empty "line", so JAX's
# "seen another function defined on the same line" there says nothing of re-definition.
_UNPLACED = re.compile(r"^TRACING CACHE MISS at\s*(?::\s*$|costing\b)")


def _placed(text: str) -> str:
    """JAX's explanations less those of misses it could place nowhere (see _UNPLACED)."""
    if "CACHE MISS at" not in text:
        return text
    kept: list[str] = []
    keep = True
    for line in text.splitlines():
        if "CACHE MISS at" in line:
            keep = _UNPLACED.match(line.strip()) is None
        if keep:
            kept.append(line)
    return "\n".join(kept)


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
    if m and m["name"] == AXIS_CONTEXT_NAME:
        # JAX writes the axis environments as object addresses: their sizes are not in its
        # words, so the change is said without them (never the raw `AxisEnv object at 0x…`).
        return Change(ChangeKind.TRACING_CONTEXT, "", None, None, detail="axis")
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
    """``AbstractMesh('x': 8, axis_types=…)`` as ``mesh(x=8)``; None for no mesh (``None``
    up to 0.10; from 0.11 the context outside ``jax.set_mesh`` is an empty
    ``AbstractMesh((), axis_types=())``)."""
    axes = _MESH_AXES.findall(text or "")
    if not axes:
        bare = (text or "").strip()
        if bare in ("None", "()", "") or re.fullmatch(r"AbstractMesh\(\(\),.*\)", bare):
            return None
        return bare
    return "mesh(" + ",".join(f"{name}={size}" for name, size in axes) + ")"
