"""The lines of a recording, as typed values (JAX-free): ``start``, ``call``, ``hits``,
``script``, ``process``, ``notice``, ``diagnosis`` (:class:`~jitlab.records.diagnoses.Diagnosis`,
which reads and writes its own line) and ``end``.

Each type writes its own line (``to_json``) and reads it back (``from_json``), strictly: a
line that is not what ``jitlab watch`` writes — a field of the wrong type, a number no
recording holds (a 400-digit count, a time past 1e18) — reads as None, so whatever reads a
recording can trust the types of what it gets. :mod:`jitlab.recordings.reader` reads whole
files of them.

The format has a version (:data:`FORMAT`, written in the ``start`` line; a recording
without one is ``1.0``). A minor version adds what older readers skip or read as before;
a newer major version is refused (:attr:`RecordingStart.readable`).

- ``1.0``: each reason written three times (``changes``, ``items``, ``text``).
- ``1.1``: each reason written once (``items``, and JAX's words in ``jax``); the ``start``
  line names the format. 1.0 readers read 1.1 files (they read ``items`` first).
- ``1.2``: ``diagnosis`` lines (``recompile-limit``, …). Older readers skip them (a line of
  a type they do not know is ignored, not counted as damaged).
- ``1.3``: an argument committed to one device names it (``device``: ``cpu:1``), a compile
  of its own in JAX. Older readers skip it (its signature reads with no placement).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jitlab.records.calls import (
    CallKind,
    CallRecord,
    ErrorInfo,
    OutputLine,
)
from jitlab.records.diagnoses import Diagnosis as Diagnosis  # the ``diagnosis`` line
from jitlab.records.executables import Executables
from jitlab.records.persistent import PersistentFate
from jitlab.records.scripts import Script
from jitlab.records.strict import (
    COUNTS,
    HIGH,
    LOW,
    NUMBER_TYPES,
    REASONS,
    SIGNATURES,
    float_or_none,
    intern,
    is_array,
    is_number,
    is_object,
    is_of,
    kept,
    reason_key,
    signature_key,
    whole_or_none,
)
from jitlab.records.strict import reason as read_reason
from jitlab.records.strict import signature as read_signature

Key = tuple[str, str | None]  # (function name, where it is defined)

FORMAT = "1.3"  # the recording format this jitlab writes
FORMAT_MAJOR = 1  # the newest major version it reads
OLDEST_FORMAT = "1.0"  # a start line without "format" (written before versions)


KINDS = frozenset(kind.value for kind in CallKind)


CALL_KINDS = {kind.value: kind for kind in CallKind}


COMPILED = frozenset(kind for kind in CallKind if kind.compiled)


STACK_KEPT = 8  # user frames kept of a compile's call stack (``stack``), the innermost


def _stack(value: Any) -> tuple[str, ...]:
    """A ``stack`` as written (file:line strings); a malformed one reads as none (the
    call itself is kept: the field is optional)."""
    if not is_array(value) or len(value) > STACK_KEPT:
        return ()
    sites = [site for site in value if type(site) is str]
    if len(sites) != len(value):
        return ()
    return tuple(intern(site) for site in sites)


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
    # On compiles only (optional, ignored by older readers): the user's lines that led to
    # the call, outermost first, the last being ``called_from`` (at most STACK_KEPT).
    stack: tuple[str, ...] = ()

    @property
    def key(self) -> Key:
        """Whose call this is. JAX's own kernels are one function per primitive, wherever
        they were called from."""
        return (self.record.function, None if self.internal else self.defined_at)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RecordedCall | None:
        """The typed call of a ``call`` line, or None when a field has the wrong type.

        ``CallRecord.from_json`` is tolerant by design (missing fields default); this is
        strict about the types it reads, so a damaged line is counted rather than read as
        zeros. JSON gives exact types (dict, list, str, int, float, bool), so ``type(v) is``
        checks suffice. Reading a long recording spends most of its time here: a signature
        or reason already read (an equal JSON object) is the same object again, names are
        interned (a long recording repeats a few signatures, reasons and names a hundred
        thousand times: also most of its memory).
        """
        get = data.get
        function, kind = get("function"), get("kind")
        if type(function) is not str or type(kind) is not str or kind not in KINDS:
            return None
        for name in TIMES:
            value = get(name)
            # A number in range: finite, and no 400-digit count (float() would overflow).
            if value is not None and not (type(value) in NUMBER_TYPES and LOW < value < HIGH):
                return None
        index, card, defined_at = get("index"), get("card"), get("defined_at")
        variant = get("variant")
        if (index is not None and (type(index) is not int or not LOW < index < HIGH)) or (
            card is not None and (type(card) is not int or not LOW < card < HIGH)
        ):
            return None
        if (defined_at is not None and type(defined_at) is not str) or (
            variant is not None and type(variant) is not str
        ):
            return None
        signature, reason, error = get("signature"), get("reason"), get("error")
        params, notes, stdout = get("params"), get("notes"), get("stdout")
        for value in (signature, reason, error, params, notes):
            if value is not None and type(value) is not dict:
                return None
        if stdout is not None and not is_array(stdout):
            return None
        fate = get("persistent")  # only while JAX's persistent cache was configured
        if fate is not None:
            fate = PersistentFate.from_json(fate)
            if fate is None:
                return None
        texts = [error.get("type"), error.get("message")] if error else []
        for line in stdout or ():
            if not is_object(line):
                return None
            texts += (line.get("when"), line.get("text"))
        if any(t is not None and type(t) is not str for t in texts):
            return None
        try:
            if signature:
                signature = kept(signature, SIGNATURES, signature_key, read_signature)
            if reason:
                reason = kept(reason, REASONS, reason_key, read_reason)
            trace = float(get("trace_ms") or 0.0)
            lower = float(get("lower_ms") or 0.0)
            compile_ms = float(get("compile_ms") or 0.0)
            latency, called_from, t = get("latency_ms"), get("called_from"), get("t")
            record = CallRecord(
                int(index or 0),
                intern(function or "?"),
                CALL_KINDS[kind],
                # Calls seen only through compile events have no latency: the phases bound it.
                float(latency) if latency is not None else 0 + trace + lower + compile_ms,
                trace,
                lower,
                compile_ms,
                signature or None,
                card,
                reason or None,
                ErrorInfo(error.get("type", "?"), error.get("message", "")) if error else None,
                tuple(OutputLine(o["when"], o["text"]) for o in stdout) if stdout else (),
                params,
                variant,
                notes,
                Executables.from_json(get("executables")),
                fate,
            )
            return cls(
                record,
                defined_at=intern(defined_at) if defined_at is not None else None,
                called_from=intern(called_from) if type(called_from) is str else None,
                events_only=get("source") == "events",
                internal=bool(get("internal")),
                t=float(t) if t is not None else None,
                stack=_stack(get("stack")),
            )
        except Exception:  # Unfit, or a shape the records cannot take: KeyError, TypeError…
            return None

    def to_json(self) -> dict[str, Any]:
        """The ``call`` line ``jitlab watch`` writes (read back by :meth:`from_json`)."""
        # Each reason written once, as data (Reason.to_json): its words are rendered from it.
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
        if self.stack:  # a compile's only: the other lines stay as they were
            line["stack"] = list(self.stack)
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
    def from_json(cls, data: dict[str, Any]) -> RecordedHits | None:
        """None when the line is not a hits line this reader can trust."""
        function, defined_at, hits = data.get("function"), data.get("defined_at"), data.get("hits")
        count = whole_or_none(hits)
        if not isinstance(function, str) or count is None:
            return None
        if defined_at is not None and not isinstance(defined_at, str):
            return None
        return cls(function, defined_at, count, float_or_none(data.get("t")))


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
    format: str = FORMAT  # the recording format ("1.0": written before versions)

    @property
    def readable(self) -> bool:
        """False when a newer jitlab wrote the file in a format this one cannot read (a
        damaged version, not ``MAJOR.MINOR``, is no newer: the rest is read as usual)."""
        return format_major(self.format) <= FORMAT_MAJOR

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RecordingStart | None:
        """None when the line is not a start line this reader can trust."""
        version = data.get("format", OLDEST_FORMAT)
        if not (
            is_of(data.get("argv"), list, none=True)
            and is_number(data.get("time"))
            and is_of(version, str)
        ):
            return None
        if any(is_of(data.get(n), int) and whole_or_none(data.get(n)) is None for n in COUNTS):
            return None  # a process index no job has (a 400-digit number)
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
            format=version,
        )

    def to_json(self, **more: Any) -> dict[str, Any]:
        """The ``start`` line (``more``: fields a newer writer adds, such as ``pid``)."""
        line = {
            "type": "start",
            "format": self.format,
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


def format_major(version: str) -> int:
    """The major version of a format (``"1.1"`` → 1); -1 when it is not ``MAJOR.MINOR``."""
    major, dot, minor = version.partition(".")
    if not (major.isdigit() and major.isascii() and len(major) < 6):
        return -1
    if dot and not (minor.isdigit() and minor.isascii()):
        return -1
    return int(major)


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
        function, card = data.get("function"), whole_or_none(data.get("card"))
        defined_at, created_by = data.get("defined_at"), data.get("created_by")
        body, why = data.get("script"), data.get("why")
        if not (
            isinstance(function, str)
            and is_of(defined_at, str, none=True)
            and card is not None
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
            function,
            defined_at if isinstance(defined_at, str) else None,
            card,
            whole_or_none(created_by),
            script,
            why if isinstance(why, str) else "",
            float_or_none(data.get("t")),
        )


LAUNCHER_PROCESS_VARIABLES: tuple[tuple[str, str], ...] = (
    ("SLURM_PROCID", "SLURM_NTASKS"),
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
    ("PMI_RANK", "PMI_SIZE"),
)
"""(index, count) environment variables a launcher sets in each process, first match wins.
The Slurm and Open MPI pairs are the ones ``jax.distributed.initialize()`` reads itself when
it detects the cluster (JAX's ``clusters.slurm_cluster`` / ``ompi_cluster``, 0.10.2);
``PMI_*`` (MPICH, Intel MPI) is read by no JAX cluster, whose programs pass ``process_id``
by hand. Read at start only, without touching JAX: the backend must not start before the
program's own ``jax.distributed.initialize``."""


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
        """None when the line names no process index, or is not one this reader can trust."""
        index = whole_or_none(data.get("process"))
        if index is None or not is_number(data.get("t")):
            return None
        if any(is_of(data.get(n), int) and whole_or_none(data.get(n)) is None for n in COUNTS):
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


@dataclass(frozen=True, slots=True)
class RecordedNotice:
    """A ``notice`` line: something the recording could not see, and when. Written today:
    ``listeners_removed`` (the program cleared jitlab's JAX listeners: compiles before ``t``
    may be missing from the counts), and at the end of a watch ``internal_left_out`` (``n``
    compiles of JAX's own functions not listed; ``detail``: the most frequent, ``name ×k``)
    and ``jitted_before`` (``n`` functions jitted before the watch began, whose hits and
    arguments jitlab could not see; ``detail``: which)."""

    notice: str
    t: float | None = None
    n: int = 1  # how many this line stands for (older readers count the line once)
    detail: str = ""  # recorded names, shown as written (at most 2,000 characters)

    def to_json(self) -> dict[str, Any]:
        line: dict[str, Any] = {"type": "notice", "notice": self.notice, "t": self.t}
        if self.n != 1:
            line["n"] = self.n
        if self.detail:
            line["detail"] = self.detail
        return line

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RecordedNotice | None:
        """None when the line names no notice (a notice is kept to 200 characters)."""
        notice, t = data.get("notice"), data.get("t")
        if not isinstance(notice, str) or not is_number(t):
            return None
        n, detail = data.get("n", 1), data.get("detail", "")
        if isinstance(n, bool) or not isinstance(n, int) or not 0 < n < 10**12:
            n = 1
        detail = detail[:2000] if isinstance(detail, str) else ""
        return cls(intern(notice[:200]), float_or_none(t), n, detail)


@dataclass(frozen=True, slots=True)
class RecordingEnd:
    """The ``end`` line: the program finished (``signal``: the signal that ended it)."""

    t: float | None = None
    signal: str | None = None

    def to_json(self) -> dict[str, Any]:
        line: dict[str, Any] = {"type": "end", "t": self.t}
        if self.signal is not None:
            line["signal"] = self.signal
        return line

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RecordingEnd:
        """Any ``end`` line ends the recording (its fields are read where they can be)."""
        signal = data.get("signal")
        return cls(float_or_none(data.get("t")), signal if isinstance(signal, str) else None)
