"""The ground truth of a generated program, worked out from the specs alone (never from
jitlab's code): what each call is to JAX's cache, what differs between two calls, which
earlier programs a call could be compared with, and JAX's own log of the run.

A call is a set of *units*, each a path and what JAX keys on there:

* ``leaf``: an array or weakly typed scalar (dtype, shape, weak type, sharding);
* ``node``: a pytree node's kind and children's names (a structure change);
* ``aux``: one field of a node's static data (``m.tag``; a ``Partial``'s function);
* ``static``: a static argument (compared as JAX compares them: same type and ``==``) —
  under ``eqx.filter_jit`` also a Python scalar, which it keeps static;
* ``kw``: an argument passed by keyword; ``ctx``: a traced config (x64, matmul precision);
* ``fun``: the callable JAX caches on (equal callables alive share one cache).

Two calls differ in the units whose values differ, a changed node standing for everything
under it; the count of those is how far apart they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .specs import Arr, Call, Node, Program, Py

# -- units -----------------------------------------------------------------------------------

Unit = tuple[str, str]  # (kind, path)
Units = dict[Unit, Any]

_SHORT = {
    "float32": "f32",
    "float16": "f16",
    "float64": "f64",
    "bfloat16": "bf16",
    "int32": "i32",
    "int64": "i64",
    "bool": "bool",
}


@dataclass(frozen=True)
class LeafFact:
    dtype: str
    shape: tuple[int, ...]
    weak: bool
    sharding: str | None

    @property
    def text(self) -> str:
        """As a type is written in jaxprs and JAX's explanations (``~`` for a weak type)."""
        dims = ",".join(str(d) for d in self.shape)
        return f"{'~' if self.weak else ''}{_SHORT[self.dtype]}[{dims}]"


class StrictStatic:
    """A static value as JAX compares static arguments: the same type and ``==``."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, StrictStatic)
            and type(self.value) is type(other.value)
            and bool(self.value == other.value)
        )

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return repr(self.value)


# Equivalent shardings JAX treats as one (P() and P(None) on one mesh).
_SAME_SHARDING = {"rep2": "rep"}


def child_path(kind: str, path: str, name: str, index: int) -> str:
    """A child's path as JAX's ``keystr`` writes it, a flat index as a plain index."""
    if kind in ("tuple", "list", "flat"):
        return f"{path}[{index}]"
    if kind == "dict":
        return f"{path}[{name!r}]"
    if kind == "partial":
        return f"{path}[0][{index}]"
    if kind == "nnx":
        return f"{path}.{name}.value"
    return f"{path}.{name}"


def spec_units(spec: Any, path: str, x64: bool, wrapper: str, out: Units) -> None:
    if isinstance(spec, Arr):
        sharding = _SAME_SHARDING.get(spec.sharding or "", spec.sharding)
        out[("leaf", path)] = LeafFact(spec.dtype, spec.shape, False, sharding)
    elif isinstance(spec, Py):
        if wrapper == "eqx.filter_jit":  # equinox keeps every non-array static, by value and type
            out[("static", path)] = StrictStatic(_python_value(spec))
        else:
            wide = "64" if x64 else "32"
            dtype = f"float{wide}" if spec.kind == "float" else f"int{wide}"
            out[("leaf", path)] = LeafFact(dtype, (), True, None)
    elif isinstance(spec, Node):
        names = tuple(name for name, _ in spec.fields)
        out[("node", path)] = (spec.kind, names, tuple(a for a, _ in spec.aux))
        for name, value in spec.aux:
            out[("aux", f"{path}.{name}")] = value  # the node's field; a Partial's func
        for i, (name, child) in enumerate(spec.fields):
            spec_units(child, child_path(spec.kind, path, name, i), x64, wrapper, out)
    else:
        raise TypeError(spec)


def _python_value(spec: Py) -> Any:
    return float(spec.value) + 0.5 if spec.kind == "float" else int(spec.value)


@dataclass(frozen=True)
class Context:
    x64: bool = False
    precision: str | None = None


def call_units(program: Program, call: Call, context: Context, fun: int) -> Units:
    """Everything JAX's cache keys one call on, as units."""
    units: Units = {("fun", ""): fun, ("ctx", "jax_enable_x64"): context.x64}
    units[("ctx", "jax_default_matmul_precision")] = call.precision
    for param, arg in zip(program.params, call.args, strict=True):
        if param.static:
            units[("static", param.name)] = StrictStatic(arg)
        else:
            spec_units(arg, param.name, context.x64, program.wrapper, units)
        if program.wrapper != "eqx.filter_jit":  # equinox binds keywords to their parameters
            units[("kw", param.name)] = param.name in call.keywords
    return units


def under(path: str, root: str) -> bool:
    """``path`` lies strictly below ``root`` (``x['a']`` below ``x``)."""
    return len(path) > len(root) and path.startswith(root) and path[len(root)] in "[."


def related(a: str, b: str) -> bool:
    return a == b or under(a, b) or under(b, a)


_MISSING = object()


def differences(new: Units, old: Units) -> set[Unit]:
    """The units that differ, a changed node standing for everything below it."""
    found = set()
    for unit in new.keys() | old.keys():
        a, b = new.get(unit, _MISSING), old.get(unit, _MISSING)
        if a is _MISSING or b is _MISSING or not bool(a == b):
            found.add(unit)
    nodes = [path for kind, path in found if kind == "node"]
    return {u for u in found if not any(under(u[1], n) for n in nodes)}


def distance(new: Units, old: Units) -> int:
    """How far apart two calls are: how many places differ (units at one path count once)."""
    return len({(k if k in ("fun", "kw", "ctx") else "", p) for k, p in differences(new, old)})


def jax_rank(new: Units, old: Units) -> tuple[int, int]:
    """How JAX (0.9+, ``pe.diff_tracing_cache_keys``) ranks an earlier key it explains a miss
    with, lower closer: the first part that differs — trace context (0), the pytree with
    statics and keyword passing (1), the types (2) — and how many differences there."""
    found = {kind for kind, _ in differences(new, old)}
    for part, kinds in enumerate(({"ctx"}, {"kw", "node", "aux", "static"}, {"leaf"})):
        count = sum(1 for kind, _ in differences(new, old) if kind in kinds)
        if found & kinds:
            return part, count
    return _PARTS_RANKED, 0


_PARTS_RANKED = 3


def size_before_0_9(program: Program, new: Units, old: Units) -> int:
    """How far JAX 0.6–0.8 (``pjit.diff_tracing_cache_keys``) finds an earlier key, the
    smallest sum explaining a miss: 1 per trace-context entry; the static values passed by
    position (1 when the dynamic positions differ, then a list difference) and by keyword;
    the input pytree — 0 when the leaf count is the same and the new call's positional
    arguments begin the earlier's, else one per place where the trees first disagree (the
    positional tuple, the keyword dict, whole when their lengths or keys differ); then,
    with the leaf count the same, per leaf whose type differs max(1, shape list difference
    + 1 for a weak type, else 1 for a mesh)."""
    differ = differences(new, old)
    size = sum(1 for kind, _ in differ if kind == "ctx")
    names = [p.name for p in program.params]
    statics = [p.name for p in program.params if p.static]
    pos_new = [n for n in names if not new.get(("kw", n), False)]
    pos_old = [n for n in names if not old.get(("kw", n), False)]
    if statics:
        argnums_new = tuple(i for i, n in enumerate(pos_new) if n not in statics)
        argnums_old = tuple(i for i, n in enumerate(pos_old) if n not in statics)
        size += argnums_new != argnums_old
        size += _list_size(
            [new["static", n] for n in statics if n in pos_new],
            [old["static", n] for n in statics if n in pos_old],
        )
        size += _list_size(
            [(n, new["static", n]) for n in sorted(statics) if n not in pos_new],
            [(n, old["static", n]) for n in sorted(statics) if n not in pos_old],
        )
    dyn_new = [n for n in pos_new if n not in statics]
    dyn_old = [n for n in pos_old if n not in statics]
    kw_new = {n for n in names if n not in statics and n not in pos_new}
    kw_old = {n for n in names if n not in statics and n not in pos_old}
    places = {p for kind, p in differ if kind == "node"}
    places |= {p.rsplit(".", 1)[0] for kind, p in differ if kind == "aux"}
    places = {p for p in places if not any(under(p, q) for q in places)}
    same_count = sum(k == "leaf" for k, _ in new) == sum(k == "leaf" for k, _ in old)
    if places or dyn_new != dyn_old or kw_new != kw_old:
        prefix = (
            same_count
            and dyn_old[: len(dyn_new)] == dyn_new
            and not any(_argument(p) in dyn_new for p in places)
        )
        if not prefix:
            if len(dyn_new) != len(dyn_old):
                size += 1
            else:
                size += sum(_argument(p) in dyn_new for p in places)
            if kw_new != kw_old:
                size += 1
            else:
                size += sum(_argument(p) in kw_new for p in places)
    if same_count:
        for kind, path in differ:
            a, b = new.get((kind, path)), old.get((kind, path))
            if kind != "leaf" or not isinstance(a, LeafFact) or not isinstance(b, LeafFact):
                continue
            mesh = (a.sharding in _MESHED) != (b.sharding in _MESHED)
            if (a.dtype, a.shape, a.weak) == (b.dtype, b.shape, b.weak) and not mesh:
                continue  # the same abstract value (another device, another mesh spec)
            extra = 1 if a.weak != b.weak else int(mesh)
            size += max(1, _list_size(list(a.shape), list(b.shape)) + extra)
    return size


_MESHED = ("rep", "x")


def _argument(path: str) -> str:
    return re.split(r"[\[.]", path, maxsplit=1)[0]


def _list_size(new: list[Any], old: list[Any]) -> int:
    """pjit's ``list_diff_size``: the lengths' difference and the unequal common items."""
    common = min(len(new), len(old))
    unequal = sum(1 for a, b in zip(new[:common], old[:common], strict=True) if not bool(a == b))
    return max(len(new), len(old)) - common + unequal


def _jax_ranks_by_part() -> bool:
    """JAX 0.9+ explains a miss with the key of ``partial_eval.diff_tracing_cache_keys``'s
    lowest (part, count); before, with the smallest total difference."""
    from jax._src.interpreters import partial_eval

    return hasattr(partial_eval, "diff_tracing_cache_keys")


RANKS_KEYS_BY_PART = _jax_ranks_by_part()


# -- JAX's cache, as the program fills it ----------------------------------------------------


@dataclass
class Compiled:
    """A program JAX compiled for the function: its units, and what dropped it from JAX's
    cache (None while the cache holds it)."""

    units: Units
    step: int
    dropped_by: str | None = None  # "function" (its clear_cache()) | "all" (jax.clear_caches())

    @property
    def live(self) -> bool:
        return self.dropped_by is None


@dataclass
class CacheModel:
    """The programs JAX compiled for the function's plain calls (a transformed call compiles
    programs of its own, kept apart), held or dropped by a clear."""

    programs: list[Compiled] = field(default_factory=list)

    def holds(self, units: Units) -> bool:
        return any(p.live and not differences(units, p.units) for p in self.programs)

    def dropped(self, units: Units) -> str | None:
        """What cleared the very program this call needs, if a clear dropped it."""
        found = [
            p.dropped_by for p in self.programs if not p.live and not differences(units, p.units)
        ]
        return found[-1] if found else None

    def pool(self, units: Units) -> list[Compiled]:
        """The earlier programs JAX compares a new call with: those its cache for this callable
        holds; with none, every earlier one (another function object's, or cleared)."""
        live = [p for p in self.programs if p.live and p.units["fun", ""] == units["fun", ""]]
        return live or list(self.programs)

    def clear(self, what: str) -> None:
        for p in self.programs:
            if p.live:
                p.dropped_by = what

    def add(self, units: Units, step: int) -> None:
        self.programs.append(Compiled(units, step))


# -- JAX's own log (captured by tests/real/conftest.py's jax_account) ------------------------

# "Finished XLA compilation of jit(step) in 0.05 sec": one line per backend compile.
_COMPILED = re.compile(r"Finished XLA compilation of jit\((?P<name>.*)\) in [0-9.e-]+ sec")


def compiled_names(messages: list[str]) -> list[str]:
    """The function named in each executable JAX logged, in order."""
    return [found["name"] for m in messages if (found := _COMPILED.search(m)) is not None]


def compiled_by_jax(messages: list[str], start: int, name: str) -> int:
    """Executables JAX logged for ``name`` from message ``start`` on."""
    return compiled_names(messages[start:]).count(name)


def explained_by_jax(messages: list[str], start: int, name: str) -> list[str]:
    """JAX's explanations, from message ``start`` on, of the misses of ``name``."""
    return [
        m
        for m in messages[start:]
        if "TRACING CACHE MISS" in m and (f"for {name} defined" in m or f"for {name}\n" in m)
    ]


@dataclass(frozen=True)
class Bullet:
    """One difference JAX names in an explanation: where (mapped to the program's paths when
    it can be) and its words."""

    path: str | None  # None: a place jitlab's paths do not reach (a library's own argument)
    kind: str  # types | tree | context | other
    words: str


# "* at x, now f32[4] and before f32[3]" (0.9+), "* at x, seen f32[3], but now given f32[4]"
_TYPES = re.compile(r"^\*\s*at (?P<path>[^,]+?), (?:now |seen )")
# "* at input path [0][1], now …" (0.9+), "* at args[0]…, now …" (0.6–0.8)
_TREE = re.compile(r"^\*\s*at (?:input path )?(?P<path>(?:\[[01]\]|args|kwargs)\S*), now ")
_CONTEXT = re.compile(r"^\*\s*(?P<name>\w+) differs:")
_FLAT = re.compile(r"\[<flat index (\d+)>\]")


def bullets(explanation: str, positional: list[str], keywords: list[str]) -> list[Bullet]:
    """The differences JAX names in one explanation. ``positional``: the names of the
    arguments the program passed by position, in order; ``keywords`` by keyword: JAX's tree
    paths index ``(args, kwargs)``."""
    found = []
    for raw in explanation.splitlines():
        line = raw.strip()
        if not line.startswith("*") or line.startswith("* key with"):
            continue
        tree = _TREE.match(line)
        types = _TYPES.match(line)
        context = _CONTEXT.match(line)
        if tree:
            found.append(Bullet(_tree_path(tree["path"], positional, keywords), "tree", line))
        elif context:
            found.append(Bullet(context["name"], "context", line))
        elif types:
            found.append(Bullet(_FLAT.sub(r"[\1]", types["path"]), "types", line))
        else:
            found.append(Bullet(None, "other", line))
    return found


_INDEX = re.compile(r"^\[(\d+)\]")
_KEY = re.compile(r"^\['([^']*)'\]")


def _tree_path(path: str, positional: list[str], keywords: list[str]) -> str | None:
    path = _FLAT.sub(r"[\1]", path)
    if path.startswith("args"):
        path = "[0]" + path[4:]
    elif path.startswith("kwargs"):
        path = "[1]" + path[6:]
    if path.startswith("[0]"):
        rest = path[3:]
        m = _INDEX.match(rest)
        if m is None:
            return None
        i = int(m[1])
        return positional[i] + rest[m.end() :] if i < len(positional) else None
    if path.startswith("[1]"):
        rest = path[3:]
        m = _KEY.match(rest)
        if m is None:  # the kwargs dict itself: which names JAX does not say here
            return "" if rest == "" else None
        return m[1] + rest[m.end() :] if m[1] in keywords else None
    return None
