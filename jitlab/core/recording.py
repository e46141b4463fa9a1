"""Read a watch recording (JSON lines) and summarise it per function.

Reading is defensive: a file cut off mid-line by a killed process still opens (its last,
partial line waits until it ends), and a line that is not what ``jitlab watch`` writes —
garbage bytes, JSON that is not an object, a field of the wrong type — is skipped and
counted, so whatever reads the recording can trust the types of what it gets.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jitlab.core.records import CallKind, CallRecord

COMPILED_KINDS = ("compile", "recompile", "persistent_hit")
_KINDS = frozenset(kind.value for kind in CallKind)
_TIMES = ("latency_ms", "trace_ms", "lower_ms", "compile_ms", "execute_ms", "t")


@dataclass
class Recording:
    start: dict[str, Any] | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)
    hits: dict[tuple[str, str | None], int] = field(default_factory=dict)  # latest count
    ended: bool = False
    partial_line: bool = False  # the file ended mid-line (the program was killed)
    bad_lines: int = 0  # complete lines skipped as unreadable

    @property
    def skipped(self) -> str:
        """``"3 unreadable lines skipped"``, or ``""`` when every line was read."""
        if not self.bad_lines:
            return ""
        noun = "line" if self.bad_lines == 1 else "lines"
        return f"{self.bad_lines} unreadable {noun} skipped"

    def add_line(self, obj: Any) -> bool:
        """File one parsed line; False (and nothing filed) when it is not a valid line."""
        if not _valid(obj):
            return False
        kind = obj.get("type")
        if kind == "start":
            self.start = obj
        elif kind == "call":
            self.calls.append(obj)
        elif kind == "hits":
            self.hits[(obj["function"], obj.get("defined_at"))] = obj["hits"]
        elif kind == "end":
            self.ended = True
        return True  # other types: from a newer jitlab, ignored


def read_recording(
    path: str | Path, offset: int = 0, into: Recording | None = None
) -> tuple[Recording, int]:
    """Parse complete lines from ``offset``; returns the recording and the offset to resume at.

    Following a file that is still being written is calling this again with that offset.
    Only opening or reading the file can raise (OSError), before anything is filed, so a
    caller that retries never files a line twice.
    """
    recording = into or Recording()
    with Path(path).open("rb") as f:
        f.seek(offset)
        data = f.read()
    complete, _, rest = data.rpartition(b"\n")
    recording.partial_line = bool(rest.strip())
    for raw in complete.split(b"\n") if complete else []:
        if raw.strip() and not recording.add_line(_parse(raw)):
            recording.bad_lines += 1
    consumed = len(complete) + 1 if complete else 0
    return recording, offset + consumed


_UNREADABLE = object()


def _parse(raw: bytes) -> Any:
    try:
        # Bare NaN/Infinity (older writers) read as null, the rule jitlab writes by.
        return json.loads(raw.decode("utf-8"), parse_constant=lambda _: None)
    except (ValueError, RecursionError):  # not UTF-8, not JSON, nested past the limit
        return _UNREADABLE


def _valid(obj: Any) -> bool:
    """A line as ``jitlab watch`` writes it, with the types every reader relies on."""
    if not isinstance(obj, dict):
        return False
    kind = obj.get("type")
    if kind == "call":
        return _valid_call(obj)
    if kind == "hits":
        hits = obj.get("hits")
        return (
            _is(obj.get("function"), str)
            and _is(obj.get("defined_at"), str, none=True)
            and _is(hits, int)
            and hits >= 0
        )
    if kind == "start":
        return _is(obj.get("argv"), list, none=True) and _number(obj.get("time"))
    return True


def _valid_call(obj: dict[str, Any]) -> bool:
    reason = obj.get("reason")
    if not (
        _is(obj.get("function"), str)
        and _is(obj.get("defined_at"), str, none=True)
        and _is(obj.get("kind"), str)
        and obj["kind"] in _KINDS
        and all(_number(obj.get(name)) for name in _TIMES)
        and _is(obj.get("index"), int, none=True)
        and _is(obj.get("card"), int, none=True)
        and _is(obj.get("signature"), dict, none=True)
        and _is(obj.get("error"), dict, none=True)
        and _is(obj.get("stdout"), list, none=True)
        and _is(reason, dict, none=True)
        and _is(obj.get("variant"), str, none=True)
        and _is(obj.get("params"), dict, none=True)
        and _is(obj.get("notes"), dict, none=True)
    ):
        return False
    error = obj.get("error") or {}
    stdout = obj.get("stdout") or []
    if not all(isinstance(o, dict) for o in stdout):
        return False
    texts = [(obj.get("signature") or {}).get("text"), error.get("type"), error.get("message")]
    texts += [o.get(key) for o in stdout for key in ("when", "text")]
    changes = (reason or {}).get("changes", [])
    if not (
        all(_is(t, str, none=True) for t in texts)
        and isinstance(changes, list)
        and all(isinstance(c, str) for c in changes)
    ):
        return False
    try:  # the GUI shows each call as a record: that must work too
        CallRecord.from_json(obj)
    except Exception:  # any shape from_json cannot take: KeyError, TypeError, AttributeError…
        return False
    return True


def _is(value: Any, kind: type, none: bool = False) -> bool:
    if value is None:
        return none
    return isinstance(value, kind) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    """A finite number or null (JSON's true and false are not times)."""
    if value is None:
        return True
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


@dataclass
class FunctionSummary:
    function: str
    defined_at: str | None
    compiles: int = 0
    recompiles: int = 0
    persistent_hits: int = 0
    errors: int = 0
    hits: int | None = None  # None when hits were not counted (function jitted before watch)
    compile_ms: float = 0.0  # trace + lower + compile
    signatures: list[str] = field(default_factory=list)  # distinct, in order of appearance
    changes: Counter[str] = field(default_factory=Counter)  # what differed, how often
    internal: bool = False  # JAX's own kernels (eager ops, jnp.* outside jit): one per primitive

    @property
    def executables(self) -> int:
        """Programs compiled for it: first compile, recompiles, persistent loads. The
        "compiles" count of both the terminal summary and the recording window."""
        return self.compiles + self.recompiles + self.persistent_hits

    @property
    def ms_text(self) -> str:
        """Time lost compiling as both the terminal summary and the recording window show it."""
        return f"{self.compile_ms:.1f}"


def summarize(recording: Recording, include_internal: bool = True) -> list[FunctionSummary]:
    """Per function, sorted by time lost to compiling (the first one to fix comes first).

    JAX's own kernels (recorded with ``--include-internal``) are one row per primitive,
    wherever they were called from; rows with nothing in them are left out.
    """
    by_key: dict[tuple[str, str | None], FunctionSummary] = {}
    for call in recording.calls:
        internal = bool(call.get("internal"))
        if internal and not include_internal:
            continue
        key = (call.get("function", "?"), None if internal else call.get("defined_at"))
        s = by_key.setdefault(key, FunctionSummary(*key, internal=internal))
        kind = call.get("kind")
        if kind == "compile":
            s.compiles += 1
        elif kind == "recompile":
            s.recompiles += 1
        elif kind == "persistent_hit":
            s.persistent_hits += 1
        elif kind == "error":
            s.errors += 1
        s.compile_ms += sum(call.get(k) or 0.0 for k in ("trace_ms", "lower_ms", "compile_ms"))
        signature = (call.get("signature") or {}).get("text")
        if signature and signature not in s.signatures and kind in COMPILED_KINDS:
            s.signatures.append(signature)
        if kind == "recompile":
            for change in (call.get("reason") or {}).get("changes", []):
                s.changes[change] += 1
    for key, hits in recording.hits.items():
        by_key.setdefault(key, FunctionSummary(*key)).hits = hits
    rows = [s for s in by_key.values() if s.executables or s.errors or s.hits]
    return sorted(rows, key=lambda s: s.compile_ms, reverse=True)


def suggest_buckets(sizes: list[int], max_compiles: int) -> list[int]:
    """Bucket sizes covering every observed size with the least total padding.

    Each observed size ``n`` is padded up to the smallest bucket ``≥ n``; with at most
    ``max_compiles`` buckets (chosen among the observed sizes; the largest is always one),
    the total padding over all calls is minimal. Exact dynamic programme, O(k·m²) for m
    distinct sizes.
    """
    if not sizes or max_compiles < 1:
        return []
    counts = Counter(sizes)
    values = sorted(counts)
    m = len(values)
    k = min(max_compiles, m)
    # cost[i][j]: padding when sizes values[i..j] all use bucket values[j].
    prefix_n = [0]
    prefix_sum = [0]
    for v in values:
        prefix_n.append(prefix_n[-1] + counts[v])
        prefix_sum.append(prefix_sum[-1] + counts[v] * v)

    def cost(i: int, j: int) -> int:
        n = prefix_n[j + 1] - prefix_n[i]
        return n * values[j] - (prefix_sum[j + 1] - prefix_sum[i])

    inf = float("inf")
    # best[b][j]: least padding covering values[0..j] with b buckets, the last at values[j].
    best = [[inf] * m for _ in range(k + 1)]
    back = [[-1] * m for _ in range(k + 1)]
    for j in range(m):
        best[1][j] = cost(0, j)
    for b in range(2, k + 1):
        for j in range(m):
            for i in range(j):
                candidate = best[b - 1][i] + cost(i + 1, j)
                if candidate < best[b][j]:
                    best[b][j], back[b][j] = candidate, i
    b = min(range(1, k + 1), key=lambda b: (best[b][m - 1], b))
    buckets, j = [], m - 1
    while j >= 0 and b >= 1:
        buckets.append(values[j])
        j, b = back[b][j], b - 1
    return sorted(buckets)
