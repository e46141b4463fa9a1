"""Read a watch recording (JSON lines) into typed records, and summarise it per function.

A ``call`` line becomes a :class:`RecordedCall`: the :class:`~jitlab.core.records.CallRecord`
the probe made (read back with ``CallRecord.from_json``) plus what only a recording knows —
where the function is defined, which line called it, when, and whether it was seen through
JAX's compile events only. Counts per function are the probe's own
:class:`~jitlab.core.records.Summary` of those records.

Reading is defensive: a file cut off mid-line by a killed process still opens (its last,
partial line waits until it ends), and a line that is not what ``jitlab watch`` writes —
garbage bytes, JSON that is not an object, a field of the wrong type — is skipped and
counted, so whatever reads the recording can trust the types of what it gets.
"""

from __future__ import annotations

import gc
import json
import math
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jitlab.core.records import CallKind, CallRecord, Summary
from jitlab.core.script_data import Script

Key = tuple[str, str | None]  # (function name, where it is defined)
_KINDS = frozenset(kind.value for kind in CallKind)
_TIMES = ("latency_ms", "trace_ms", "lower_ms", "compile_ms", "execute_ms", "t")


@dataclass(frozen=True, slots=True)
class RecordedCall:
    """One ``call`` line: the probe's record, and where and when the program made the call."""

    record: CallRecord
    defined_at: str | None = None  # where the jitted function is defined (``file:line``)
    called_from: str | None = None  # the program's line that made the call
    # Jitted before the watch began: only JAX's compile events were seen, so the call has
    # no call count, no card and maybe no signature (JAX's reason names what changed).
    events_only: bool = False
    internal: bool = False  # a kernel JAX compiled for itself (eager op, jnp.* outside jit)
    t: float | None = None  # seconds since the recording started

    @property
    def key(self) -> Key:
        """Whose call this is. JAX's own kernels are one function per primitive, wherever
        they were called from."""
        return (self.record.function, None if self.internal else self.defined_at)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RecordedCall:
        """Read a ``call`` line (raises on a shape ``CallRecord.from_json`` cannot take)."""
        called_from = data.get("called_from")
        t = data.get("t")
        return cls(
            CallRecord.from_json(data),
            defined_at=data.get("defined_at"),
            called_from=called_from if isinstance(called_from, str) else None,
            events_only=data.get("source") == "events",
            internal=bool(data.get("internal")),
            t=float(t) if t is not None else None,
        )

    def to_json(self) -> dict[str, Any]:
        """The ``call`` line ``jitlab watch`` writes (read back by :meth:`from_json`)."""
        line = {"type": "call", **self.record.to_json()}
        if self.events_only:  # no call was timed: JAX's compile events were all we saw
            line["latency_ms"] = line["execute_ms"] = None
        line.update(
            defined_at=self.defined_at,
            called_from=self.called_from,
            source="events" if self.events_only else "probe",
            internal=self.internal,
            t=self.t,
        )
        return line


@dataclass(frozen=True, slots=True)
class RecordedHits:
    """A ``hits`` line: a function's cache hits so far (hits are counted, not written)."""

    function: str
    defined_at: str | None
    hits: int
    t: float | None = None

    @property
    def key(self) -> Key:
        return (self.function, self.defined_at)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "hits",
            "function": self.function,
            "defined_at": self.defined_at,
            "hits": self.hits,
            "t": self.t,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RecordedHits:
        t = data.get("t")
        return cls(data["function"], data.get("defined_at"), data["hits"], _float(t))


@dataclass(frozen=True, slots=True)
class RecordingStart:
    """The ``start`` line: which program ran, under which versions."""

    argv: tuple[str, ...] = ()
    jax: str | None = None
    jitlab: str | None = None
    time: float | None = None  # wall-clock start (seconds since the epoch)
    host: str | None = None  # the machine's name (older recordings: None)
    # Which process of a multi-process job, when a launcher said so at start (SLURM_PROCID,
    # …); None for a single process, or until JAX knows (then a ``process`` line says).
    process: int | None = None
    processes: int | None = None
    # ``jitlab watch --scripts``: "figures" or "texts" (what each ``script`` line keeps);
    # None: the recording keeps no scripts (older recordings, or not asked for).
    scripts: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RecordingStart:
        versions = [data.get(name) for name in ("jax", "jitlab")]
        jax, jitlab = (None if v is None else str(v) for v in versions)
        time = data.get("time")
        argv = tuple(str(a) for a in data.get("argv") or ())
        host = data.get("host")
        return cls(
            argv,
            jax,
            jitlab,
            float(time) if time is not None else None,
            host=host if isinstance(host, str) else None,
            process=_index(data.get("process")),
            processes=_index(data.get("processes")),
            scripts=scripts if isinstance(scripts := data.get("scripts"), str) else None,
        )

    def to_json(self, **more: Any) -> dict[str, Any]:
        """The ``start`` line (``more``: fields a newer writer adds, such as ``pid``)."""
        line = {
            "type": "start",
            "jitlab": self.jitlab,
            "jax": self.jax,
            "argv": list(self.argv),
            "time": self.time,
            "host": self.host,
            **more,
        }
        if self.process is not None:
            line.update(process=self.process, processes=self.processes)
        if self.scripts is not None:
            line["scripts"] = self.scripts
        return line


@dataclass(frozen=True, slots=True)
class RecordedScript:
    """A ``script`` line (``jitlab watch --scripts``): the program one compile made, kept
    right after that compile's ``call`` line.

    ``card`` and ``created_by`` are the call line's ``card`` and ``index``: together with the
    function's key they name the card the recording window draws. ``script`` keeps the
    figures (and, with ``--script-texts``, the jaxpr, StableHLO and HLO); when no script
    could be made it is None and ``why`` says why. Older readers skip the line (an unknown
    type), so recordings with scripts still open there.
    """

    function: str
    defined_at: str | None
    card: int
    created_by: int | None
    script: Script | None = None
    why: str = ""
    t: float | None = None

    @property
    def key(self) -> Key:
        return (self.function, self.defined_at)

    def to_json(self, parts: tuple[str, ...] = ()) -> dict[str, Any]:
        """The line; ``parts``: the texts kept (``Script.to_json``; figures always)."""
        return {
            "type": "script",
            "function": self.function,
            "defined_at": self.defined_at,
            "card": self.card,
            "created_by": self.created_by,
            "script": self.script.to_json(parts) if self.script is not None else None,
            "why": self.why,
            "t": self.t,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RecordedScript | None:
        """None when the line is not a script line this reader can trust."""
        function, card = data.get("function"), data.get("card")
        defined_at, created_by = data.get("defined_at"), data.get("created_by")
        body, why = data.get("script"), data.get("why")
        if not (
            _is(function, str)
            and _is(defined_at, str, none=True)
            and _is(card, int)
            and _is(created_by, int, none=True)
            and _is(body, dict, none=True)
            and _is(why, str, none=True)
            and _number(data.get("t"))
        ):
            return None
        try:
            script = Script.from_json(body) if body is not None else None
        except Exception:  # a script body of a shape Script.from_json cannot take
            return None
        return cls(function, defined_at, card, created_by, script, why or "", _float(data.get("t")))


@dataclass(frozen=True, slots=True)
class ProcessInfo:
    """Which process of a ``jax.distributed`` job wrote a recording, and on what.

    Written as a ``process`` line once JAX knows (at the first compile, or at the end): the
    device counts cannot be asked for earlier without starting JAX's backend before the
    program's own ``jax.distributed.initialize``. Every later line carries ``"process"``.
    """

    index: int
    count: int | None = None  # processes in the job
    host: str | None = None
    local_devices: int | None = None  # this process's devices
    devices: int | None = None  # the job's devices
    t: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "process",
            "process": self.index,
            "processes": self.count,
            "host": self.host,
            "local_devices": self.local_devices,
            "devices": self.devices,
            "t": self.t,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProcessInfo | None:
        """None when the line names no process index."""
        index = _index(data.get("process"))
        if index is None:
            return None
        host = data.get("host")
        return cls(
            index,
            _index(data.get("processes")),
            host if isinstance(host, str) else None,
            _index(data.get("local_devices")),
            _index(data.get("devices")),
            _float(data.get("t")),
        )


def _index(value: Any) -> int | None:
    """A whole number ≥ 0, or None (any other value, from a damaged or foreign line)."""
    return value if _is(value, int) and value >= 0 else None


@dataclass
class Recording:
    start: RecordingStart | None = None
    process_line: ProcessInfo | None = None  # the ``process`` line, in multi-process runs
    calls: list[RecordedCall] = field(default_factory=list)
    hits: dict[Key, int] = field(default_factory=dict)  # latest count
    # ``jitlab watch --scripts``: per (function key, card index), the script of the compile
    # that made the card (a card rewritten later keeps the newest).
    scripts: dict[tuple[Key, int], RecordedScript] = field(default_factory=dict)
    ended: bool = False
    partial_line: bool = False  # the file ended mid-line (the program was killed)
    bad_lines: int = 0  # complete lines skipped as unreadable

    @property
    def process(self) -> ProcessInfo | None:
        """Which process of a multi-process job wrote this; None for a single process."""
        if self.process_line is not None:
            return self.process_line
        start = self.start
        if start is None or start.process is None:
            return None
        return ProcessInfo(start.process, start.processes, start.host)

    @property
    def skipped(self) -> str:
        """``"3 unreadable lines skipped"``, or ``""`` when every line was read."""
        if not self.bad_lines:
            return ""
        noun = "line" if self.bad_lines == 1 else "lines"
        return f"{self.bad_lines} unreadable {noun} skipped"

    def add_line(self, obj: Any) -> bool:
        """File one parsed line; False (and nothing filed) when it is not a valid line."""
        if not isinstance(obj, dict):
            return False
        kind = obj.get("type")
        if kind == "call":
            call = _call(obj)
            if call is None:
                return False
            self.calls.append(call)
        elif kind == "hits":
            if not _valid_hits(obj):
                return False
            hits = RecordedHits.from_json(obj)
            self.hits[hits.key] = hits.hits
        elif kind == "start":
            if not (_is(obj.get("argv"), list, none=True) and _number(obj.get("time"))):
                return False
            self.start = RecordingStart.from_json(obj)
        elif kind == "process":
            info = ProcessInfo.from_json(obj)
            if info is None:
                return False
            self.process_line = info
        elif kind == "script":
            script = RecordedScript.from_json(obj)
            if script is None:
                return False
            self.scripts[(script.key, script.card)] = script
        elif kind == "end":
            self.ended = True
        return True  # other types: from a newer jitlab, ignored


@contextmanager
def paused_collector() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block (then as it was).

    Records hold no cycles, yet each allocation counts toward a collection that walks every
    object made so far: reading and merging long recordings runs ~1.4x faster without it
    (8 files of 100,000 lines: reading 13.0 s -> 9.0 s)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def read_recording(
    path: str | Path, offset: int = 0, into: Recording | None = None, limit: int | None = None
) -> tuple[Recording, int]:
    """Parse complete lines from ``offset``; returns the recording and the offset to resume at.

    Following a file that is still being written is calling this again with that offset.
    ``limit``: read about that many bytes (up to the end of the line they stop in), so a
    window can read a long file a piece at a time; when the offset moved by ``limit`` or
    more, more may follow.
    Only opening or reading the file can raise (OSError), before anything is filed, so a
    caller that retries never files a line twice.
    """
    recording = into or Recording()
    with Path(path).open("rb") as f:
        f.seek(offset)
        data = f.read() if limit is None else f.read(limit)
        if limit is not None and len(data) >= limit and not data.endswith(b"\n"):
            data += f.readline()  # the piece ends with a whole line (or the file's end)
    complete, _, rest = data.rpartition(b"\n")
    recording.partial_line = bool(rest.strip())
    with paused_collector():
        for raw in complete.split(b"\n") if complete else []:
            if raw.strip() and not recording.add_line(_parse(raw)):
                recording.bad_lines += 1
    consumed = len(complete) + 1 if complete else 0
    return recording, offset + consumed


_UNREADABLE = object()
# One decoder for every line (json.loads with an option builds a new one per call).
# Bare NaN/Infinity (older writers) read as null, the rule jitlab writes by.
_decode = json.JSONDecoder(parse_constant=lambda _: None).decode


def _parse(raw: bytes) -> Any:
    try:
        return _decode(raw.decode("utf-8"))
    except (ValueError, RecursionError):  # not UTF-8, not JSON, nested past the limit
        return _UNREADABLE


def _valid_hits(obj: dict[str, Any]) -> bool:
    hits = obj.get("hits")
    return (
        _is(obj.get("function"), str)
        and _is(obj.get("defined_at"), str, none=True)
        and _is(hits, int)
        and hits >= 0
    )


_NUMBER_TYPES = (int, float)  # JSON's true/false are bool, a type of its own here
_DICT_OR_NULL = ("signature", "error", "reason", "params", "notes")


def _call(obj: dict[str, Any]) -> RecordedCall | None:
    """The typed call of a ``call`` line, or None when a field has the wrong type.

    ``CallRecord.from_json`` is tolerant by design (missing fields default); this is strict
    about the types it reads, so a damaged line is counted rather than read as zeros. JSON
    gives exact types (dict, list, str, int, float, bool), so ``type(v) is`` checks suffice:
    reading a long recording spends much of its time here.
    """
    get = obj.get
    kind = get("kind")
    if type(get("function")) is not str or type(kind) is not str or kind not in _KINDS:
        return None
    for name in _TIMES:
        value = get(name)
        if value is not None and (type(value) not in _NUMBER_TYPES or not math.isfinite(value)):
            return None
    for name in ("index", "card"):
        value = get(name)
        if value is not None and type(value) is not int:
            return None
    for name in ("defined_at", "variant"):
        value = get(name)
        if value is not None and type(value) is not str:
            return None
    for name in _DICT_OR_NULL:
        value = get(name)
        if value is not None and type(value) is not dict:
            return None
    stdout = get("stdout")
    if stdout is not None and type(stdout) is not list:
        return None
    error = get("error") or {}
    texts = [(get("signature") or {}).get("text"), error.get("type"), error.get("message")]
    for line in stdout or ():
        if type(line) is not dict:
            return None
        texts += (line.get("when"), line.get("text"))
    if any(t is not None and type(t) is not str for t in texts):
        return None
    changes = (get("reason") or {}).get("changes", [])
    if type(changes) is not list or any(type(c) is not str for c in changes):
        return None
    try:
        return RecordedCall.from_json(obj)
    except Exception:  # any shape from_json cannot take: KeyError, TypeError, AttributeError…
        return None


def _is(value: Any, kind: type, none: bool = False) -> bool:
    if value is None:
        return none
    return isinstance(value, kind) and not isinstance(value, bool)


def _float(value: Any) -> float | None:
    return float(value) if _number(value) and value is not None else None


def _number(value: Any) -> bool:
    """A finite number or null (JSON's true and false are not times)."""
    if value is None:
        return True
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class FunctionSummary:
    """One function of a recording: the probe's :class:`Summary` of its recorded calls, with
    its cache hits (counted apart: a hit is a count in the recording, not a line)."""

    function: str
    defined_at: str | None
    totals: Summary = field(default_factory=lambda: Summary.of(()))
    hits: int | None = None  # None when hits were not counted (function jitted before watch)
    signatures: tuple[str, ...] = ()  # distinct compiled signatures, in order of appearance
    changes: Counter[str] = field(default_factory=Counter)  # what differed, how often
    internal: bool = False  # JAX's own kernels (eager ops, jnp.* outside jit): one per primitive

    @property
    def compiles(self) -> int:
        return self.totals.compiles

    @property
    def recompiles(self) -> int:
        return self.totals.recompiles

    @property
    def persistent_hits(self) -> int:
        return self.totals.persistent_hits

    @property
    def errors(self) -> int:
        return self.totals.errors

    @property
    def compile_ms(self) -> float:
        """Trace + lower + compile: the time lost producing executables."""
        return self.totals.time_lost_ms

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
    return Summarizer(include_internal).update(recording)


class _Tally:
    """One function's running totals (added in the order :meth:`Summary.of` adds them)."""

    __slots__ = (
        "changes",
        "compile",
        "counts",
        "first",
        "internal",
        "lower",
        "n",
        "signatures",
        "trace",
    )

    def __init__(self, first: int, internal: bool) -> None:
        self.first = first  # the position of its first call line
        self.internal = internal
        self.n = 0
        self.counts = dict.fromkeys(CallKind, 0)
        self.trace = self.lower = self.compile = 0.0
        self.signatures: dict[str, None] = {}  # an ordered set
        self.changes: Counter[str] = Counter()


class Summarizer:
    """:func:`summarize`, kept up to date as a recording grows: each :meth:`update` reads
    only the call lines added since the last one, so following a long file (or reading it
    a piece at a time) costs in proportion to what is new. Same rows, same order."""

    def __init__(self, include_internal: bool = True) -> None:
        self.include_internal = include_internal
        self._seen = 0
        self._tallies: dict[Key, _Tally] = {}

    def update(self, recording: Recording) -> list[FunctionSummary]:
        calls = recording.calls
        if len(calls) < self._seen:  # another recording, or read again: start over
            self._seen, self._tallies = 0, {}
        tallies = self._tallies
        for position in range(self._seen, len(calls)):
            call = calls[position]
            if call.internal and not self.include_internal:
                continue
            key = call.key
            tally = tallies.get(key)
            if tally is None:
                tally = tallies[key] = _Tally(position, call.internal)
            record = call.record
            tally.n += 1
            tally.counts[record.kind] += 1
            tally.trace += record.trace_ms
            tally.lower += record.lower_ms
            tally.compile += record.compile_ms
            if record.kind.compiled and record.signature is not None:
                tally.signatures.setdefault(str(record.signature))
            if record.kind is CallKind.RECOMPILE and record.reason is not None:
                tally.changes.update(record.reason.changes)
        self._seen = len(calls)
        keys = sorted(tallies, key=lambda k: tallies[k].first)
        keys += [key for key in recording.hits if key not in tallies]
        rows = [self._row(key, tallies.get(key), recording.hits.get(key)) for key in keys]
        rows = [s for s in rows if s.executables or s.errors or s.hits]
        return sorted(rows, key=lambda s: s.compile_ms, reverse=True)

    @staticmethod
    def _row(key: Key, tally: _Tally | None, hits: int | None) -> FunctionSummary:
        if tally is None:
            return FunctionSummary(*key, totals=Summary.of(()), hits=hits)
        count = tally.counts
        totals = Summary(
            calls=tally.n,
            compiles=count[CallKind.COMPILE],
            recompiles=count[CallKind.RECOMPILE],
            cache_hits=count[CallKind.CACHE_HIT],
            persistent_hits=count[CallKind.PERSISTENT_HIT],
            errors=count[CallKind.ERROR],
            eager=count[CallKind.EAGER],
            trace_ms=tally.trace,
            lower_ms=tally.lower,
            compile_ms=tally.compile,
        )
        return FunctionSummary(
            *key,
            totals=totals,
            hits=hits,
            signatures=tuple(tally.signatures),
            changes=Counter(tally.changes),
            internal=tally.internal,
        )


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
    # The padding cost is Monge (cost(a,d) + cost(b,c) ≥ cost(a,c) + cost(b,d) for
    # a ≤ b ≤ c ≤ d), so the best previous bucket moves right as j does: each layer is
    # solved by divide and conquer in O(m log m), the leftmost best kept as before.
    best = [[inf] * m for _ in range(k + 1)]
    back = [[-1] * m for _ in range(k + 1)]
    for j in range(m):
        best[1][j] = cost(0, j)

    def solve(b: int, lo: int, hi: int, first: int, last: int) -> None:
        # best[b][j] for j in [lo, hi], its previous bucket i within [first, last].
        stack = [(lo, hi, first, last)]
        previous, row, links = best[b - 1], best[b], back[b]
        while stack:
            lo, hi, first, last = stack.pop()
            if lo > hi:
                continue
            j = (lo + hi) // 2
            value, at = inf, -1
            n_j, sum_j, v_j = prefix_n[j + 1], prefix_sum[j + 1], values[j]
            for i in range(first, min(last, j - 1) + 1):
                candidate = (
                    previous[i] + (n_j - prefix_n[i + 1]) * v_j - (sum_j - prefix_sum[i + 1])
                )
                if candidate < value:
                    value, at = candidate, i
            row[j], links[j] = value, at
            split = at if at >= 0 else first
            stack.append((lo, j - 1, first, split))
            stack.append((j + 1, hi, split, last))

    for b in range(2, k + 1):
        solve(b, 0, m - 1, 0, m - 1)
    b = min(range(1, k + 1), key=lambda b: (best[b][m - 1], b))
    buckets, j = [], m - 1
    while j >= 0 and b >= 1:
        buckets.append(values[j])
        j, b = back[b][j], b - 1
    return sorted(buckets)
