"""Typed records that every consumer (CLI, tests, GUI) reads.

A record is produced once per probed call and never changes afterwards.
"""

from __future__ import annotations

import enum
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from jitlab.records.changes import ChangeKind
from jitlab.records.executables import Executables
from jitlab.records.persistent import PersistentFate


class CallKind(enum.StrEnum):
    """What JAX did for one call of a jitted function."""

    COMPILE = "compile"  # the function's first compilation
    RECOMPILE = "recompile"  # any later compilation
    CACHE_HIT = "cache_hit"  # in-memory cache: nothing traced, lowered or compiled
    PERSISTENT_HIT = "persistent_hit"  # executable loaded from the persistent cache
    ERROR = "error"  # the call raised
    EAGER = "eager"  # under jax.disable_jit(): ran op by op, nothing traced or compiled
    # inside a transformation's trace (a jit, an eager lax.scan's body, grad under jit):
    # staged into the enclosing computation, no executable of this function used or built
    TRACED = "traced"

    # Enum hashes through a Python-level method; the probe's hot path keys dicts by kind.
    __hash__ = str.__hash__

    def __str__(self) -> str:
        return self.value

    @property
    def compiled(self) -> bool:
        """True when this call produced a new executable (a new card)."""
        return self in _COMPILED


# Reading a recording looks kinds up by value hundreds of thousands of times: a dict, not
# Enum's call machinery.
_CALL_KINDS = {kind.value: kind for kind in CallKind}
_COMPILED = frozenset((CallKind.COMPILE, CallKind.RECOMPILE, CallKind.PERSISTENT_HIT))
_CHANGE_KINDS = {kind.value: kind for kind in ChangeKind}


@dataclass(frozen=True, slots=True)
class LeafSpec:
    """The abstract value of one argument leaf, as jit sees it."""

    path: str  # e.g. "x", "params['w']", "batch[0]"
    shape: tuple[int, ...]
    dtype: str  # e.g. "float32"
    weak_type: bool
    sharding: str | None = None  # None for a single device (see ``device``)
    # The device an array committed to one is on (``cpu:1``): JAX compiles for it, apart
    # from the same array uncommitted (None: placed where the call runs, as a NumPy array or
    # a Python scalar is). None in recordings written before it was recorded (format 1.3).
    device: str | None = None

    @property
    def placement(self) -> str | None:
        """Where JAX compiles the leaf for, as a signature writes it after ``@``: its
        sharding, or the device it is committed to; None where the call runs."""
        return self.sharding or self.device

    @property
    def type_text(self) -> str:
        """Short form such as ``f32[8,32]`` (``~`` marks a weak type)."""
        short = short_dtype(self.dtype)
        dims = ",".join(str(d) for d in self.shape)
        return f"{'~' if self.weak_type else ''}{short}[{dims}]"

    def __str__(self) -> str:
        placement = self.placement
        extra = f" @ {placement}" if placement else ""
        return f"{self.path}: {self.type_text}{extra}"


def short_dtype(name: str) -> str:
    """A dtype's short name as JAX writes it in jaxprs (as JAX's own ``short_dtype_name``):
    ``f32``, ``bf16``, ``i4``, ``u4``, ``f8_e4m3fn``, ``c128``; ``bool`` and ``float0`` stay
    (JAX writes a float0 array ``float0[2,2]``), as do extended dtypes (``key<fry>``)."""
    short = _SHORT_DTYPES.get(name)
    if short is None:
        short = name
        if name != "float0" and _PLAIN_DTYPE.match(name):
            short = (
                name.replace("float", "f")
                .replace("uint", "u")
                .replace("int", "i")
                .replace("complex", "c")
            )
        if len(_SHORT_DTYPES) < 256:
            _SHORT_DTYPES[name] = short
    return short


_SHORT_DTYPES: dict[str, str] = {}
# A NumPy or ml_dtypes name (not ``key<fry>``, not a structured dtype's text).
_PLAIN_DTYPE = re.compile(r"^(b?float|u?int|complex)[0-9]+(_[a-z0-9]+)?$")


@dataclass(frozen=True, slots=True)
class Signature:
    """The call's abstract signature: what jit keys its caches on."""

    leaves: tuple[LeafSpec, ...]
    statics: tuple[tuple[str, str], ...]  # (name, repr(value)) of static arguments
    tree: str  # the pytree structure of the traced arguments
    function: int = 0  # generation of the function object (see Probe.swap)
    # The traced arguments' names, one per top-level node of the tree its probe keys on
    # (positional, then keywords as JAX sorts them): names an argument with no leaves (a
    # module of static fields). Not recorded: a recording's signatures are compared as text.
    arguments: tuple[str, ...] = field(default=(), repr=False, compare=False)
    # The text, made once: summaries and merges of long recordings ask for it again and again.
    _text: str | None = field(default=None, init=False, repr=False, compare=False)

    def __str__(self) -> str:
        text = self._text
        if text is None:
            parts = [str(leaf) for leaf in self.leaves]
            parts += [f"{name}={value} (static)" for name, value in self.statics]
            text = ", ".join(parts) if parts else "()"
            object.__setattr__(self, "_text", text)
        return text

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Signature:
        leaves = tuple(
            LeafSpec(
                a["path"],
                tuple(a["shape"]),
                a["dtype"],
                bool(a["weak_type"]),
                a.get("sharding"),
                a.get("device"),
            )
            for a in data.get("args", [])
        )
        statics = tuple((str(k), str(v)) for k, v in (data.get("static") or {}).items())
        return cls(leaves, statics, data.get("tree", ""), int(data.get("function", 0)))

    def to_json(self) -> dict[str, Any]:
        return {
            "args": [_leaf_json(leaf) for leaf in self.leaves],
            "static": dict(self.statics),
            "tree": self.tree,
            "function": self.function,
            "text": str(self),
        }


def _leaf_json(leaf: LeafSpec) -> dict[str, Any]:
    data = {
        "path": leaf.path,
        "shape": list(leaf.shape),
        "dtype": leaf.dtype,
        "weak_type": leaf.weak_type,
        "sharding": leaf.sharding,
    }
    if leaf.device is not None:  # only where committed (format 1.3): most arrays are not
        data["device"] = leaf.device
    return data


@dataclass(frozen=True, slots=True)
class Change:
    """One thing that differed from the closest executable JAX had (data, not words).

    ``before``/``after`` are short texts: type texts (``f32[8]``), static reprs, config
    values. Words are rendered above the data, per language, by
    :mod:`jitlab.records.change_words` (``str()`` of a change is its repr, not words).
    """

    kind: ChangeKind
    path: str = ""  # argument path, config name, or definition site (new function object)
    before: str | None = None
    after: str | None = None
    detail: str = ""  # JAX's raw words (jax_explained, unknown), or an older recording's
    count: int = 0  # new_function_object: how many function objects of that code so far

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "path": self.path,
            "before": self.before,
            "after": self.after,
            "detail": self.detail,
            "count": self.count,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Change:
        name: Any = data.get("kind")
        try:  # a dict lookup first: recordings hold hundreds of thousands of these
            kind = _CHANGE_KINDS.get(name) if type(name) is str else None
            kind = kind or ChangeKind(name)
        except (ValueError, TypeError):  # a kind from a newer jitlab: keep its words
            return cls(ChangeKind.RECORDED, detail=str(data.get("text") or data))
        return cls(
            kind,
            str(data.get("path") or ""),
            data.get("before"),
            data.get("after"),
            str(data.get("detail") or ""),
            int(data.get("count") or 0),
        )


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a compile happened: jitlab's structured diff and JAX's own raw words.

    Data, not words: :func:`jitlab.records.change_words.reason_text` says it in a language."""

    items: tuple[Change, ...]
    jax_explanation: str | None = None  # raw text logged by jax_explain_cache_misses

    def kinds(self) -> tuple[ChangeKind, ...]:
        return tuple(c.kind for c in self.items)

    def to_json(self) -> dict[str, Any]:
        """The reason as a recording keeps it (format 1.1): the changes as data, JAX's words.
        :func:`jitlab.records.change_words.reason_json` adds the English words."""
        return {"items": [c.to_json() for c in self.items], "jax": self.jax_explanation}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Reason:
        """Reads both forms: ``items`` (structured) or, from older recordings, only strings."""
        items = data.get("items")
        if items is not None:
            changes = tuple(Change.from_json(c) for c in items)
        else:  # words only: keep them as written, never parse them back into kinds
            changes = tuple(
                Change(ChangeKind.RECORDED, detail=str(text)) for text in data.get("changes", ())
            )
        return cls(changes, data.get("jax"))


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    type: str
    message: str
    exception: BaseException | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, str]:
        return {"type": self.type, "message": self.message}


@dataclass(frozen=True, slots=True)
class OutputLine:
    when: str  # "trace" (printed while tracing) or "runtime" (printed while running)
    text: str

    def to_json(self) -> dict[str, str]:
        return {"when": self.when, "text": self.text}


# A scenario parameter's value: what a slider, a choice or a check box gives, and what a
# record keeps of each call's parameters (the lab's Param.default has these types).
ParamValue = int | float | str | bool


class CallRecord(NamedTuple):
    """One probed call.

    Immutable like the other records, but a NamedTuple: a cache hit must cost the probe well
    under a microsecond to record, and a frozen dataclass takes several.
    """

    # Shadows tuple.index (a field named so since the first recordings: public data).
    index: int  # type: ignore[assignment]
    function: str
    kind: CallKind
    latency_ms: float
    trace_ms: float = 0.0
    lower_ms: float = 0.0
    compile_ms: float = 0.0
    signature: Signature | None = None
    card: int | None = None  # index of the card (compiled signature) this call used
    reason: Reason | None = None
    error: ErrorInfo | None = None
    stdout: tuple[OutputLine, ...] = ()
    params: dict[str, ParamValue] | None = None  # scenario parameters, when run by the engine
    variant: str | None = None
    notes: dict[str, Any] | None = None  # what the scenario observed beyond JAX (facts())
    # A compile's executable and its function's live ones (executables-growing): None on
    # other calls, and where it was not measured.
    executables: Executables | None = None

    # A compile's fate in JAX's persistent cache, while one is configured (records/persistent.py)
    persistent: PersistentFate | None = None

    @property
    def execute_ms(self) -> float:
        """Time not spent tracing, lowering or compiling: dispatch plus execution."""
        return max(0.0, self.latency_ms - self.trace_ms - self.lower_ms - self.compile_ms)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CallRecord:
        """Read back :meth:`to_json` (a recording, an export); tolerant of missing fields."""
        phases = [float(data.get(k) or 0.0) for k in ("trace_ms", "lower_ms", "compile_ms")]
        latency = data.get("latency_ms")
        reason = data.get("reason")
        error = data.get("error")
        return cls(
            index=int(data.get("index") or 0),
            function=str(data.get("function") or "?"),
            kind=_CALL_KINDS.get(data.get("kind", "cache_hit")) or CallKind(data["kind"]),
            # Calls seen only through compile events have no latency: the phases bound it.
            latency_ms=float(latency) if latency is not None else sum(phases),
            trace_ms=phases[0],
            lower_ms=phases[1],
            compile_ms=phases[2],
            signature=Signature.from_json(data["signature"]) if data.get("signature") else None,
            card=data.get("card"),
            reason=Reason.from_json(reason) if reason else None,
            error=ErrorInfo(error.get("type", "?"), error.get("message", "")) if error else None,
            stdout=tuple(OutputLine(o["when"], o["text"]) for o in data.get("stdout") or ()),
            params=data.get("params"),
            variant=data.get("variant"),
            notes=data.get("notes"),
            executables=Executables.from_json(data.get("executables")),
            persistent=PersistentFate.from_json(data.get("persistent")),
        )

    def to_json(self) -> dict[str, Any]:
        """The call as data: a recording's ``call`` line holds it; ``jitlab run --json`` and the
        GUI's exports add the reason's words (:func:`jitlab.records.change_words.call_json`).

        Strict JSON data already: parameters and facts, the only values a scenario hands in,
        go through :func:`jsonable` (NaN and ±inf as None); times are perf_counter spans.
        """
        line: dict[str, Any] = {
            "index": self.index,
            "function": self.function,
            "kind": self.kind.value,
            "latency_ms": round(self.latency_ms, 4),
            "trace_ms": round(self.trace_ms, 4),
            "lower_ms": round(self.lower_ms, 4),
            "compile_ms": round(self.compile_ms, 4),
            "execute_ms": round(self.execute_ms, 4),
            "variant": self.variant,
            "params": jsonable(self.params),
            "signature": self.signature.to_json() if self.signature else None,
            "card": self.card,
            "reason": self.reason.to_json() if self.reason else None,
            "error": self.error.to_json() if self.error else None,
            "stdout": [line.to_json() for line in self.stdout],
            "notes": jsonable(self.notes),
        }
        if self.executables is not None:  # a compile's only: other lines stay as they were
            line["executables"] = self.executables.to_json()
        if self.persistent is not None:  # only while the persistent cache is configured
            line["persistent"] = self.persistent.to_json()
        return line


def jsonable(value: Any, default: Callable[[Any], str] = repr) -> Any:
    """``value`` as strict JSON data: containers kept, NaN and ±inf as None (bare NaN is not
    JSON: strict readers reject the line), anything exotic (a tracer, an array) as text."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, dict):
        return {str(k): jsonable(v, default) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v, default) for v in value]
    return default(value)


def dumps_strict(obj: Any, default: Callable[[Any], str] = str, indent: int | None = None) -> str:
    """One line of strict JSON (``--json`` lines, recordings; ``indent`` for exports):
    non-finite floats as null, other values JSON cannot hold as ``default(value)``; UTF-8
    kept as is."""
    options: dict[str, Any] = {"ensure_ascii": False, "allow_nan": False, "indent": indent}
    try:  # the usual line has no NaN: one C-speed pass, as plain json.dumps
        return json.dumps(obj, default=default, **options)
    except ValueError:  # NaN or ±inf somewhere: write them as null
        return json.dumps(jsonable(obj, default), **options)


@dataclass(frozen=True, slots=True)
class Summary:
    calls: int
    compiles: int
    recompiles: int
    cache_hits: int
    persistent_hits: int
    errors: int
    trace_ms: float
    lower_ms: float
    compile_ms: float
    eager: int = 0
    traced: int = 0

    @property
    def time_lost_ms(self) -> float:
        """Everything spent producing executables instead of running them."""
        return self.trace_ms + self.lower_ms + self.compile_ms

    @property
    def hit_rate(self) -> float:
        served = self.calls - self.errors - self.eager - self.traced
        return self.cache_hits / served if served else 0.0

    @classmethod
    def of(cls, records: list[CallRecord] | tuple[CallRecord, ...]) -> Summary:
        count = {kind: 0 for kind in CallKind}
        for record in records:
            count[record.kind] += 1
        return cls.from_counts(
            count,
            len(records),
            sum(r.trace_ms for r in records),
            sum(r.lower_ms for r in records),
            sum(r.compile_ms for r in records),
        )

    @classmethod
    def from_counts(
        cls,
        counts: dict[CallKind, int],
        calls: int,
        trace_ms: float,
        lower_ms: float,
        compile_ms: float,
    ) -> Summary:
        """From calls per kind (every kind a key) and the time spent in each phase."""
        return cls(
            calls=calls,
            compiles=counts[CallKind.COMPILE],
            recompiles=counts[CallKind.RECOMPILE],
            cache_hits=counts[CallKind.CACHE_HIT],
            persistent_hits=counts[CallKind.PERSISTENT_HIT],
            errors=counts[CallKind.ERROR],
            eager=counts[CallKind.EAGER],
            traced=counts.get(CallKind.TRACED, 0),
            trace_ms=trace_ms,
            lower_ms=lower_ms,
            compile_ms=compile_ms,
        )

    def to_json(self) -> dict[str, Any]:
        # Sums of a record's times are finite; jsonable keeps it so whatever comes in.
        line: dict[str, Any] = jsonable(
            {
                "calls": self.calls,
                "compiles": self.compiles,
                "recompiles": self.recompiles,
                "cache_hits": self.cache_hits,
                "persistent_hits": self.persistent_hits,
                "errors": self.errors,
                "eager": self.eager,
                "traced": self.traced,
                "hit_rate": round(self.hit_rate, 4),
                "trace_ms": round(self.trace_ms, 3),
                "lower_ms": round(self.lower_ms, 3),
                "compile_ms": round(self.compile_ms, 3),
                "time_lost_ms": round(self.time_lost_ms, 3),
            }
        )
        return line
