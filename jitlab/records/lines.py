"""The lines of a recording, as typed values: ``call``, ``hits``, ``start``, ``script`` and
``process`` (JAX-free). Each type reads its own line (``from_json``) and writes it
(``to_json``); :mod:`jitlab.recordings.reader` reads whole files of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jitlab.records.calls import (
    CallKind,
    CallRecord,
)
from jitlab.records.scripts import Script

Key = tuple[str, str | None]  # (function name, where it is defined)


KINDS = frozenset(kind.value for kind in CallKind)


CALL_KINDS = {kind.value: kind for kind in CallKind}


COMPILED = frozenset(kind for kind in CallKind if kind.compiled)


TIMES = ("latency_ms", "trace_ms", "lower_ms", "compile_ms", "execute_ms", "t")


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
        return cls(data["function"], data.get("defined_at"), data["hits"], float_or_none(t))


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
            process=whole_or_none(data.get("process")),
            processes=whole_or_none(data.get("processes")),
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
            is_of(function, str)
            and is_of(defined_at, str, none=True)
            and whole_or_none(card) is not None
            and (created_by is None or whole_or_none(created_by) is not None)
            and is_of(body, dict, none=True)
            and is_of(why, str, none=True)
            and is_number(data.get("t"))
        ):
            return None
        try:
            script = Script.from_json(body) if body is not None else None
        except Exception:  # a script body of a shape Script.from_json cannot take
            return None
        return cls(
            function, defined_at, card, created_by, script, why or "", float_or_none(data.get("t"))
        )


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
        index = whole_or_none(data.get("process"))
        if index is None:
            return None
        host = data.get("host")
        return cls(
            index,
            whole_or_none(data.get("processes")),
            host if isinstance(host, str) else None,
            whole_or_none(data.get("local_devices")),
            whole_or_none(data.get("devices")),
            float_or_none(data.get("t")),
        )


def whole_or_none(value: Any) -> int | None:
    """A whole number ≥ 0 (and in range), or None (any other value, from a damaged or
    foreign line)."""
    return value if is_of(value, int) and 0 <= value < HIGH else None


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
