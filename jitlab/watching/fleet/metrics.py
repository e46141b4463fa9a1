"""The fleet view's metrics: what a watch knows of each compile, as counters a fleet's
monitoring reads (:mod:`.prometheus` serves them, :mod:`.otlp` pushes them).

One set of metrics for both doors (:data:`METRICS`), fed by the recorder with what it already
has: each filed compile on the compile path (:meth:`Fleet.filed`), and on its flush path, about
once a second, the hits counted so far and the diagnoses stated (:meth:`Fleet.flushed`). A hit
costs the program nothing more: it is counted in the site's ledger as before, and read here.

Labels stay few (a fleet's monitoring pays per series): function names past ``max_functions``
and reasons past :data:`MAX_REASONS` are folded into ``other``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from jitlab.probe import monitor
from jitlab.records import messages
from jitlab.records.calls import CallKind, Reason
from jitlab.records.changes import ChangeKind
from jitlab.records.diagnoses import Diagnosis
from jitlab.records.lines import Key, RecordedCall
from jitlab.watching.functions import FunctionStats

EXTRA = "fleet"  # pip install 'jitlab[fleet]'
DEFAULT_MAX_FUNCTIONS = 50
MAX_REASONS = 32  # distinct reason labels (mostly single change kinds, a few joined)
OTHER = "other"  # the label of everything past a cap
NO_REASON = "none"  # a failing call JAX gave no reason for

# The kinds a compile is counted under (a hit is counted apart; eager and traced calls run
# no executable of their own).
COUNTED = frozenset((CallKind.COMPILE, CallKind.RECOMPILE, CallKind.PERSISTENT_HIT, CallKind.ERROR))
# Compile times run from milliseconds (a small step) to many minutes (a large model).
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)


@dataclass(frozen=True)
class Metric:
    """One metric, as OpenTelemetry and Prometheus name it."""

    name: str  # OpenTelemetry's
    prometheus: str  # as prometheus_client is given it (a counter's ``_total`` added there)
    type: str  # counter, histogram or gauge
    unit: str  # UCUM, as OpenTelemetry takes it
    labels: tuple[str, ...]
    description: str

    @property
    def exposed(self) -> str:
        """The name a scrape shows (``jitlab_compiles_total``)."""
        return f"{self.prometheus}_total" if self.type == "counter" else self.prometheus


COMPILES = Metric(
    "jitlab.compiles",
    "jitlab_compiles",
    "counter",
    "{compile}",
    ("function", "kind", "reason"),
    "Executables built (compile, recompile, persistent_hit) and failing calls (error) of "
    "jitted functions, by what changed since the function's last compile",
)
CACHE_HITS = Metric(
    "jitlab.cache_hits",
    "jitlab_cache_hits",
    "counter",
    "{hit}",
    ("function",),
    "Calls served from JAX's in-memory cache (functions jitted inside the watch)",
)
COMPILE_DURATION = Metric(
    "jitlab.compile.duration",
    "jitlab_compile_duration_seconds",
    "histogram",
    "s",
    ("function", "kind"),
    "Time one call spent tracing, lowering and compiling",
)
DIAGNOSES = Metric(
    "jitlab.diagnoses",
    "jitlab_diagnoses",
    "counter",
    "{diagnosis}",
    ("function", "id"),
    "Diagnoses stated (each once per function, or per argument)",
)
EXECUTABLES_LIVE = Metric(
    "jitlab.executables.live",
    "jitlab_executables_live",
    "gauge",
    "{executable}",
    ("function",),
    "A function's executables JAX still held at its last compile",
)
METRICS = (COMPILES, CACHE_HITS, COMPILE_DURATION, DIAGNOSES, EXECUTABLES_LIVE)


class MissingExtra(ImportError):
    """The fleet view's libraries are not installed (``option`` needs ``package``)."""

    def __init__(self, option: str, package: str) -> None:
        super().__init__(f"{option} needs {package}: pip install 'jitlab[{EXTRA}]'")
        self.option, self.package = option, package


class CannotServe(OSError):
    """The metrics port could not be opened (in use, not allowed, no such address)."""

    def __init__(self, address: str, why: str) -> None:
        super().__init__(f"cannot serve metrics at {address}: {why}")
        self.address, self.why = address, why


class Door(Protocol):
    """Where the metrics go: a Prometheus endpoint, an OTLP push. Called with the recorder's
    lock held; nothing here may block on the network."""

    def open(self) -> None: ...

    def compiled(self, function: str, kind: str, reason: str, seconds: float) -> None: ...

    def hits(self, function: str, n: int) -> None: ...

    def diagnosed(self, function: str, id: str) -> None: ...

    def live(self, function: str, n: int) -> None: ...

    def forked(self) -> None: ...

    def close(self) -> None: ...


class Capped:
    """Label values as given up to ``limit`` distinct ones, then ``other``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._kept: set[str] = set()

    def __call__(self, value: str) -> str:
        if value in self._kept:
            return value
        if len(self._kept) >= self.limit:
            return OTHER
        self._kept.add(value)
        return value


_ORDER = {kind: n for n, kind in enumerate(ChangeKind)}


def reason_label(reason: Reason | None) -> str:
    """The reason's change kinds, each once, joined by ``+`` in a fixed order (a compile is
    counted once, whatever changed): ``shape``, ``dtype+shape``."""
    if reason is None or not reason.items:
        return NO_REASON
    kinds = sorted(set(reason.kinds()), key=_ORDER.__getitem__)
    return "+".join(kind.value for kind in kinds)


def compile_seconds(call: RecordedCall) -> float:
    record = call.record
    return (record.trace_ms + record.lower_ms + record.compile_ms) / 1000.0


class Fleet:
    """The metrics of one recorder, handed to its doors."""

    def __init__(self, doors: Sequence[Door], max_functions: int = DEFAULT_MAX_FUNCTIONS) -> None:
        self.doors = list(doors)  # a door that fails is taken out (see _each)
        self.functions = Capped(max_functions)
        self.reasons = Capped(MAX_REASONS)
        self._pid = os.getpid()
        self._hits_sent: dict[Any, int] = {}  # per recorder row: the hits handed on so far
        self._live: dict[str, dict[Key, int]] = {}  # per label: each function's live executables
        self._diagnoses_seen = 0

    def open(self) -> None:
        """Open every door (the port is bound here: refused before the program runs)."""
        opened: list[Door] = []
        try:
            for door in self.doors:
                door.open()
                opened.append(door)
        except BaseException:
            for door in opened:
                door.close()
            raise

    def filed(self, call: RecordedCall) -> None:
        """One call the recorder filed (the compile path: never a hit)."""
        record = call.record
        if record.kind not in COUNTED:
            return
        self._after_fork()
        function = self.functions(record.function)
        reason = self.reasons(reason_label(record.reason))
        seconds = compile_seconds(call)
        self._each("compiled", function, record.kind.value, reason, seconds)
        held = record.executables
        if held is not None and held.live is not None:
            live = self._live.setdefault(function, {})
            live[call.key] = held.live
            total = sum(live.values())
            self._each("live", function, total)

    def flushed(self, stats: Mapping[Any, FunctionStats], diagnoses: Sequence[Diagnosis]) -> None:
        """The flush path: hits counted since the last flush, diagnoses stated since."""
        self._after_fork()
        for key, row in list(stats.items()):
            hits = row.hits
            sent = self._hits_sent.get(key, 0)
            if hits is None or hits <= sent:
                continue
            self._hits_sent[key] = hits
            function = self.functions(row.name)
            self._each("hits", function, hits - sent)
        if len(diagnoses) < self._diagnoses_seen:  # the list was started anew
            self._diagnoses_seen = 0
        for diagnosis in diagnoses[self._diagnoses_seen :]:
            function = self.functions(diagnosis.function)
            self._each("diagnosed", function, diagnosis.id)
        self._diagnoses_seen = len(diagnoses)

    def close(self) -> None:
        self._each("close")

    def _each(self, method: str, *args: Any) -> None:
        """``door.method(*args)`` on every door still open. A door that fails is closed and
        left out, said once on stderr: never raised into the program, which goes on."""
        for door in list(self.doors):
            try:
                getattr(door, method)(*args)
            except Exception as exc:
                self.doors.remove(door)
                with contextlib.suppress(Exception):
                    door.close()
                say_failed(door, exc)

    def _after_fork(self) -> None:
        """In a child the program forked: its counts start from nothing (the recorder's rows
        count from the fork on), and each door decides what its copy does."""
        pid = os.getpid()
        if pid == self._pid:
            return
        self._pid = pid
        self._hits_sent, self._live = {}, {}
        self._each("forked")


def say_failed(door: Door, exc: BaseException) -> None:
    """The one line that says a door stopped, and why, where jitlab speaks."""
    why = f"{type(exc).__name__}: {exc}".strip().splitlines()[0]
    line = messages.say("watch.metrics_failed", monitor.user_language(), door=door, error=why)
    monitor.say_words(line + "\n")


def require(module: str, option: str) -> Any:
    """``module`` imported, or :class:`MissingExtra` naming the extra that brings it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(option, module.split(".")[0]) from exc
