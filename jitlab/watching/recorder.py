"""Watch a real program: record its compiles and count its cache hits.

``with jitlab.watch("run.jsonl"):`` records every jitted function called inside the block
without changing the user's code:

* functions jitted *inside* the block (``jax.jit`` is swapped for the block's duration, see
  :mod:`~jitlab.watching.standin`) are wrapped in a :class:`~jitlab.probe.probe.Probe`: full
  signature, jitlab's own diff, and cache hits counted per function;
* functions jitted *before* the block are seen through JAX's compile events
  (:mod:`~jitlab.watching.events`): name, phases and JAX's own explanation (their in-memory
  cache hits fire no event, so they are not counted).

The file is JSON lines, flushed as it goes: ``start``, one ``call`` line per compile /
recompile / persistent hit / error, ``hits`` lines with aggregated cache-hit counts, ``end``.
Each process of a job writes its own file (:mod:`~jitlab.watching.files`). A compile budget
(:func:`~jitlab.watching.budget.budget`) is a recorder without a file.
"""

from __future__ import annotations

import _thread
import collections
import dataclasses
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jitlab.probe import contract, explain, frames, monitor
from jitlab.probe.diagnosing import (
    CapturedConstant,
    Diagnoser,
    ExecutablesGrowing,
    IdentityStatic,
    RecompileLimit,
    SlowDispatch,
    resolve_warn_after,
    say_live,
    say_notice,
)
from jitlab.probe.probe import Probe
from jitlab.records.calls import CallKind, CallRecord
from jitlab.records.diagnoses import Diagnosis
from jitlab.records.history import Tally
from jitlab.records.lines import (
    STACK_KEPT,
    Key,
    RecordedCall,
    RecordedHits,
    RecordedNotice,
    RecordedScript,
    RecordingEnd,
)
from jitlab.records.persistent import KEY_PARTS, PERSISTENT_NOT_WRITTEN, PersistentFate
from jitlab.watching import standin
from jitlab.watching.events import CompileEvents
from jitlab.watching.files import RecordingFile
from jitlab.watching.fleet import Fleet, exporters
from jitlab.watching.functions import FunctionStats, Site
from jitlab.watching.standin import WatchedFunction

__all__ = ["FunctionStats", "Recorder", "WatchedFunction", "watch"]

# How often aggregated hit counts are written while a program runs (and before every
# compile's line): a program that ends with os._exit loses at most this much of its counts.
_HITS_EVERY_S = 1.0
# Failing calls kept in memory per function, in full: the first and the latest few (every
# one is still written to the file and counted exactly): a call failing 20,000 times in a loop
# would otherwise hold each failure's traceback and its frames.
_ERRORS_KEPT = 20

_NAMES_SAID = 8  # the names an end notice lists (the most frequent first)

# What a ``script`` line keeps: figures always (and the source, small), texts on request.
_SCRIPT_PARTS = {"figures": ("source",), "texts": ("source", "jaxpr", "stablehlo", "hlo")}
_TEXTS_NOT_KEPT = "not kept in the recording (record with jitlab watch --script-texts)"


def _scripts_mode(scripts: bool | str | None) -> str | None:
    """``scripts=`` of :func:`watch`: False/None (none), True or "figures", "texts"."""
    if scripts is None or scripts is False:
        return None
    if scripts is True:
        return "figures"
    if scripts in _SCRIPT_PARTS:
        return str(scripts)
    raise ValueError(f"scripts={scripts!r}: choose False, True, 'figures' or 'texts'")


def _without_traceback(call: RecordedCall) -> RecordedCall:
    """The call with its error's exception dropped: the recording keeps its type and
    message; the exception would keep its traceback's frames (and their arrays) alive."""
    error = call.record.error
    if error is None or error.exception is None:
        return call
    record = call.record._replace(error=dataclasses.replace(error, exception=None))
    return dataclasses.replace(call, record=record)


class Recorder:
    """Records compiles of every jitted function while active; optionally to a JSON-lines file.

    A :class:`jitlab.probe.monitor.Watcher` while it records (checked by mypy at add_watcher)."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        include_internal: bool = False,
        scripts: bool | str = False,
        warn_after: int = 0,
        metrics: Fleet | None = None,
        output: RecordingFile | None = None,
    ) -> None:
        # ``output``: a recording file opened already, its start line written (jitlab watch
        # opens it before the program runs and starts this recorder when JAX is imported).
        self.output = RecordingFile(path) if output is None else output
        self.metrics = metrics  # the fleet view (jitlab.watching.fleet): fed, never waited on
        # recompile-limit: warn when one function passes this many compiles (0: never).
        self.recompile_limit = RecompileLimit(warn_after)
        # Each diagnoser sees every compile (never a hit); what it states is written, kept
        # and said live on stderr, once per function (and argument).
        self.diagnosers: tuple[Diagnoser, ...] = (
            self.recompile_limit,
            IdentityStatic(),
            ExecutablesGrowing(warn_after),  # more than warn_after alive for the same arrays
        )
        self.diagnoses: list[Diagnosis] = []  # as written (a notebook shows them)
        # captured-constant reads the Probe's program again: run from on_probe_record.
        self.captured_constant = CapturedConstant()
        self._not_written_said: set[tuple[Key, str | None]] = set()  # persistent-not-written said
        self.slow_dispatch = SlowDispatch()  # slow-dispatch: counted, written at the end
        self.include_internal = include_internal
        self.scripts = _scripts_mode(scripts)  # None, "figures" or "texts"
        self.calls: list[RecordedCall] = []
        self.recorded_scripts: list[RecordedScript] = []  # with ``scripts``: one per compile
        self.stats: dict[Any, FunctionStats] = {}  # by Site, or (events, name, site)
        self.recording = False
        self._lock = threading.RLock()
        self._events = CompileEvents(self)
        self._hits_written: dict[Any, int] = {}
        self._hits_looked_at = 0.0  # when _write_hits last ran (monotonic), and how long
        self._hits_look_s = 0.0
        self._stopping = threading.Event()
        self._flusher: threading.Event | None = None  # set once the flusher has ended
        self.forks = 0  # children this process forked while recording (each writes its own)
        # Failing calls: counted exactly per function, the first _ERRORS_KEPT kept in
        # ``calls``, the latest _ERRORS_KEPT here (see add).
        self.errors: collections.Counter[Any] = collections.Counter()
        self.latest_errors: dict[Any, collections.deque[RecordedCall]] = {}
        # Times jitlab's listeners were found removed while this recorded (the program ran
        # jax.monitoring.clear_event_listeners()): compiles may have gone unseen.
        self.blinded = 0
        # Compiles of JAX's own functions not recorded (without include_internal), by name:
        # said at the end, with how to list them.
        self.internal_left_out: collections.Counter[str] = collections.Counter()
        # Functions JAX traced for the first time under a transformation in this recording
        # (its words: "never seen function"), by (name, defined_at): a compile of such a
        # trace, later and with no trace of its own, is still the function's first.
        self.first_traced: set[tuple[str, str | None]] = set()

    @property
    def path(self) -> Path | None:
        """The recording's path as given (absolute once started); None: no file."""
        return self.output.path

    @property
    def file_path(self) -> Path | None:
        """Where the lines go now (``run.p1.jsonl`` in a job; see :mod:`.files`)."""
        return self.output.file_path

    @property
    def process(self) -> int | None:
        """This process's index in a multi-process job."""
        return self.output.process

    def __repr__(self) -> str:
        """One line for a plain prompt: where it writes, whether it is recording, the
        functions watched and their totals (names as in code, so no language). Never raises."""
        try:
            # The functions this recording saw something of (a recorder also holds the sites
            # jitted before it began, as a recording file leaves out those with nothing)
            stats = [s for s in list(self.stats.values()) if s.filed.calls or s.hits]
            counts = [s.filed.counts for s in stats]
            compiles = sum(c.get(CallKind.COMPILE, 0) for c in counts)
            recompiles = sum(c.get(CallKind.RECOMPILE, 0) for c in counts)
            hits = [h for h in (s.hits for s in stats) if h is not None]
            where = str(self.path) if self.path is not None else "no file"
            state = "recording" if self.recording else "stopped"
            return (
                f"<Recorder ({where}, {state}): functions={len(stats)} compiles={compiles} "
                f"recompiles={recompiles} hits={sum(hits) if hits else '-'} "
                f"errors={sum(self.errors.values())}>"
            )
        except Exception:  # a half-built recorder still prints
            return f"<Recorder at {id(self):#x}>"

    # -- lifecycle ------------------------------------------------------------------------
    def __enter__(self) -> Recorder:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        # A JAX jitlab cannot see is refused before anything is written: its compiles would
        # be recorded as hits. The whole check, its known compile included (run in a fresh
        # interpreter while the program's backend has not started: see the contract).
        contract.require_before_counting()
        if self.metrics is not None:  # its port bound (or refused) before the program runs
            self.metrics.open()
        try:
            if not self.output.opened:
                self.output.open(self.scripts)
        except BaseException:
            if self.metrics is not None:
                self.metrics.close()
            raise
        monitor.revive()  # removed before the block: registered again before it counts
        monitor.add_watcher(self)
        standin.activate(self)
        self.recording = True
        self._start_flusher()

    def _start_flusher(self) -> None:
        """The thread that writes hit counts while the program runs: a bare ``_thread`` one,
        so the program sees the threads it would see under python (``threading.enumerate()``,
        ``active_count()``: a program that joins every thread but main returns), and never
        waits for it at exit, as for a daemon thread. It touches nothing of ``threading``'s
        registry (no ``current_thread()``): it would be listed then."""
        if self.output.file is not None or self.metrics is not None:
            self._stopping = threading.Event()
            self._flusher = ended = threading.Event()
            _thread.start_new_thread(self._flush_hits_periodically, (self._stopping, ended))

    def stop(self, *, signal: str | None = None) -> None:
        """Write the last counts and the ``end`` line (``signal``: the one that ends the
        program, from jitlab watch's handler, written on the ``end`` line)."""
        if not self.recording:
            return
        self.recording = False
        self._stopping.set()
        if self._flusher is not None:
            # Bounded: from a signal handler the interrupted thread may hold the lock the
            # flusher waits for; the handler writes the end regardless (the lock is an RLock).
            self._flusher.wait(timeout=5.0)
            self._flusher = None
        monitor.revive()  # removed meanwhile? Then this recording says it could not see
        standin.deactivate(self)
        monitor.remove_watcher(self)
        with self._lock:
            for stats in self.stats.values():
                if stats.site is not None:
                    stats.hits_final = stats.site.hits
            self._write_hits()
            hits = {(s.name, s.defined_at): s.hits for s in self.stats.values()}
            elapsed = self.elapsed()
            for diagnosis in self.slow_dispatch.diagnoses(hits, elapsed, elapsed):
                self.output.write(diagnosis.to_json())
                self.diagnoses.append(diagnosis)  # the end table lists them
            for notice in self._end_notices(elapsed):
                self.output.write(notice.to_json())
            if self.metrics is not None:
                self.metrics.flushed(self.stats, self.diagnoses)
            self.output.write(RecordingEnd(self.elapsed(), signal).to_json())
            self.output.close()
        if self.metrics is not None:  # the last push, the port closed
            self.metrics.close()

    def note(self, notice: str) -> None:
        """Write a ``notice`` line now (``exec``: the program replaces itself, …)."""
        with self._lock:
            self.output.write(RecordedNotice(notice, self.elapsed()).to_json())

    def _end_notices(self, t: float) -> list[RecordedNotice]:
        """What this recording left out or could not check, said once at its end: JAX's
        own compiles not listed (``internal_left_out``), and the functions jitted before
        the watch began (``jitted_before``: seen through JAX's events only)."""
        found = []
        left = sum(self.internal_left_out.values())
        if left:
            common = self.internal_left_out.most_common(_NAMES_SAID)
            names = ", ".join(f"{name} ×{n}" for name, n in common)
            more = len(self.internal_left_out) - len(common)
            found.append(RecordedNotice("internal_left_out", t, left, names + (", …" * (more > 0))))
        # A function some of whose calls jitlab probed was jitted inside the watch: a compile
        # of it heard through events only is of a jitted object the program had dropped (the
        # backward pass of ``jax.grad(lambda v: jax.jit(g)(v))``), not one made before.
        probed = {c.key for c in self.calls if not c.events_only}
        before = list(
            dict.fromkeys(
                c.key
                for c in self.calls
                if c.events_only and not c.internal and c.key not in probed
            )
        )
        if before:
            shown = [f"{name} ({at})" if at else name for name, at in before]
            rest = ", …" if len(shown) > _NAMES_SAID else ""
            detail = ", ".join(shown[:_NAMES_SAID]) + rest
            notice = RecordedNotice("jitted_before", t, len(before), detail)
            found.append(notice)
            say_notice(notice)  # once, now: the functions jitlab could not check, and why
        return found

    def left_out(self, name: str) -> None:
        """A compile of JAX's own function (``name``), not recorded: counted."""
        with self._lock:
            self.internal_left_out[name] += 1

    def listeners_lost(self) -> None:
        """jitlab's JAX listeners were found removed (and registered again): compiles in
        between went unseen. Written as a ``notice`` line; a budget that could not see fails."""
        with self._lock:
            self.blinded += 1
            self.output.write(RecordedNotice("listeners_removed", self.elapsed()).to_json())

    def become_child(self) -> None:
        """In a forked child: leave the parent's file, open this process's own."""
        self._lock = threading.RLock()
        self._flusher = None
        self.calls, self.recorded_scripts = [], []
        self.errors, self.latest_errors = collections.Counter(), {}
        self.slow_dispatch = SlowDispatch()  # this process counts its own
        self._hits_written = {}
        for stats in self.stats.values():  # this process counts from the fork on
            stats.filed = Tally()
            if stats.site is not None:
                stats.hits_base = stats.site.hits
        if not self.output.open_in_child(self.scripts) and self.metrics is None:
            return
        self._start_flusher()
        # multiprocessing ends its children with os._exit after its exit functions: the
        # end line is written by one of them (its registry is cleared first, so it is
        # registered by an after-fork callback, which runs after that).
        util = sys.modules.get("multiprocessing.util")
        if util is not None:
            util.register_after_fork(self, Recorder._stop_at_child_exit)

    def _stop_at_child_exit(self) -> None:
        util = sys.modules.get("multiprocessing.util")
        if util is not None:
            util.Finalize(self, self.stop, exitpriority=0)

    def dispatched_in_python(self, site: Site, cause: str, ms: float) -> None:
        """A hit of a function jitted in the block that JAX ran through its Python
        dispatch (slow-dispatch; ``cause`` from diagnosing.dispatch_cause; ``ms`` the call's
        time from that dispatch)."""
        stats = self.track(site)
        with self._lock:
            live = self.slow_dispatch.dispatched(
                stats.name, stats.defined_at, cause, self.elapsed(), ms
            )
        if live is not None:
            say_live(live)

    def track(self, site: Site) -> FunctionStats:
        """This recording's row for a probed function, counting its hits from now on."""
        with self._lock:
            stats = self.stats.get(site)
            if stats is None:
                stats = FunctionStats(site.name, site.defined_at, site=site, hits_base=site.hits)
                self.stats[site] = stats
            return stats

    def stats_for(self, key: Any, name: str | None, defined_at: str | None) -> FunctionStats:
        """This recording's row for a function seen through its compile events only."""
        with self._lock:
            stats = self.stats.get(key)
            if stats is None:
                stats = FunctionStats(name or "?", defined_at)
                self.stats[key] = stats
            return stats

    # -- records from wrapped functions ---------------------------------------------------
    def on_probe_record(self, site: Site, record: CallRecord, probe: Probe | None = None) -> None:
        stats = self.track(site)
        stats.filed.add(record)
        called_from = frames.call_site(1)
        # A compile's whole path of user lines (a helper called from several places): on
        # compiles only, never on the calls that hit.
        stack = frames.user_stack(1, STACK_KEPT) if record.kind.compiled else ()
        stack = stack if len(stack) > 1 else ()  # one line: called_from says it already
        call = RecordedCall(record, stats.defined_at, called_from, t=self.elapsed(), stack=stack)
        self.add(call)
        made_card = record.kind.compiled and record.card is not None
        # The compile path only, and only where it is written (a budget has no file).
        if made_card and probe is not None and self.output.file is not None:
            found = self.captured_constant.compiled(call, probe, self.elapsed())
            if found is not None:
                with self._lock:
                    self.output.write(found.to_json())
                    self.diagnoses.append(found)
                if found.figures.get("told"):  # a named constant is said live; "can't tell" not
                    say_live(found)
        if made_card and self.scripts is not None and probe is not None:
            self._add_script(stats, record, probe)

    def _add_script(self, stats: FunctionStats, record: CallRecord, probe: Probe) -> None:
        """The script of the card this compile made, right after its ``call`` line.

        Made by :meth:`Probe.script` (cached per card, so several recorders make it once):
        its JAX events go to a collector nobody files, so it is no compile of the recording,
        of a budget or of the program's own probes. Any failure is written as the reason,
        never raised into the program.
        """
        assert record.card is not None
        script, why = None, ""
        try:
            script = probe.script(record.card)
            if script.figures is not None and script.figures.compile_ms is None:
                # The watch's probe keeps no records: the compile's times come from this one.
                figures = dataclasses.replace(
                    script.figures,
                    trace_ms=record.trace_ms,
                    lower_ms=record.lower_ms,
                    compile_ms=record.compile_ms,
                )
                script = dataclasses.replace(script, figures=figures)
            if self.scripts != "texts":
                unavailable = dict(script.unavailable)
                for part in ("jaxpr", "stablehlo", "hlo"):
                    unavailable.setdefault(part, _TEXTS_NOT_KEPT)
                script = dataclasses.replace(script, unavailable=unavailable)
        except Exception as exc:  # the program goes on; the recording says why
            text = str(exc).strip().splitlines()
            why = f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")
            script = None
        line = RecordedScript(
            stats.name, stats.defined_at, record.card, record.index, script, why, self.elapsed()
        )
        parts = _SCRIPT_PARTS[self.scripts or "figures"]
        with self._lock:
            self.recorded_scripts.append(line)
            self.output.write(line.to_json(parts))

    # -- events from functions jitted before the watch (a monitor.Watcher) ------------------
    def explanation(self, text: str) -> None:
        self._events.explanation(text)

    def event(self, event: str) -> None:
        self._events.event(event)

    def duration(self, event: str, ms: float, fun_name: str | None) -> None:
        self._events.duration(event, ms, fun_name)

    # -- output -----------------------------------------------------------------------------
    def add(self, call: RecordedCall) -> None:
        """File one call: kept (failures bounded, see _ERRORS_KEPT) and written."""
        record = call.record
        with self._lock:
            if self.metrics is not None:
                self.metrics.filed(call)
            if record.kind.compiled and self._hits_due():
                # Counts so far go out before each compile: a program ended by os._exit or
                # a kill loses at most the hits since its last compile or _HITS_EVERY_S.
                self._write_hits(only_changed=True)
            if record.error is not None:
                call = _without_traceback(call)
                key = (record.function, call.defined_at)
                self.errors[key] += 1
                if self.errors[key] > _ERRORS_KEPT:  # bounded: the latest few in full
                    latest = self.latest_errors.get(key)
                    if latest is None:
                        latest = self.latest_errors[key] = collections.deque(maxlen=_ERRORS_KEPT)
                    latest.append(call)
                    self.output.write(call.to_json())
                    return
            said = record.reason.jax_explanation if record.reason else None
            if record.kind is CallKind.TRACED and explain.never_seen(said):
                self.first_traced.add((record.function, call.defined_at))
            self.calls.append(call)
            self.output.write(call.to_json())
            if record.kind.compiled:  # the compile path only
                for diagnoser in self.diagnosers:
                    found = diagnoser.compiled(call, self.elapsed())
                    if found is not None:
                        self.output.write(found.to_json())
                        self.diagnoses.append(found)
                        say_live(found)
            if record.persistent is not None and record.persistent.why is not None:
                self._not_written(call, record.persistent)

    def _not_written(self, call: RecordedCall, fate: PersistentFate) -> None:
        """persistent-not-written: the first time a function's compile is not written to
        the persistent cache for a reason (once per function and reason)."""
        if call.internal or (call.key, fate.why) in self._not_written_said:
            return
        self._not_written_said.add((call.key, fate.why))
        numbers = {k: v for k, v in fate.figures.items() if k not in KEY_PARTS}
        figures = {"why": fate.why, "key": fate.key, **numbers}
        record = call.record
        if "compile_s" not in figures and record.compile_ms > 0:
            # JAX gives its compile time only when the time was the reason; for any other
            # (host callbacks, process_id…) what a new process pays is the compile measured.
            figures["compile_s"] = round(record.compile_ms / 1e3, 4)
        diagnosis = Diagnosis(
            PERSISTENT_NOT_WRITTEN, record.function, call.defined_at, figures, self.elapsed()
        )
        self.output.write(diagnosis.to_json())
        self.diagnoses.append(diagnosis)  # listed at the end, not said live (one per reason)

    def _hits_due(self) -> bool:
        """Before a compile: unless the last look at every function's counts took more than
        a tenth of the time since. A look costs a little per function: with thousands of
        functions, one per compile would make the program's compiles cost quadratic time;
        so it stays under a tenth of the program's time (and the flusher still writes every
        _HITS_EVERY_S). With few functions it is every compile."""
        return time.monotonic() - self._hits_looked_at >= 10 * self._hits_look_s

    def _write_hits(self, only_changed: bool = False) -> None:
        began = time.monotonic()
        try:
            self._write_hits_now(only_changed)
        finally:
            self._hits_looked_at = time.monotonic()
            self._hits_look_s = self._hits_looked_at - began

    def _write_hits_now(self, only_changed: bool) -> None:
        for key, stats in list(self.stats.items()):
            hits = stats.hits
            if hits is None or (only_changed and self._hits_written.get(key, 0) == hits):
                continue
            if not hits and not stats.compiles:
                continue  # a function this recording never saw called
            self._hits_written[key] = hits
            line = RecordedHits(stats.name, stats.defined_at, hits, self.elapsed())
            self.output.write(line.to_json())

    def _flush_hits_periodically(self, stopping: threading.Event, ended: threading.Event) -> None:
        # Hits are counted on the hot path without any I/O; this thread writes them out so
        # that a killed program still leaves recent counts in the file.
        # A pass looks at every function: with thousands it is paced like the one before a
        # compile, so that it stays under a tenth of the program's time.
        try:
            while not stopping.wait(max(_HITS_EVERY_S, 10 * self._hits_look_s)):
                monitor.revive()  # a program that cleared jitlab's listeners sees again
                with self._lock:
                    if stopping.is_set():  # stop() writes the last counts, then the end
                        return
                    self._write_hits(only_changed=True)
                    if self.metrics is not None:
                        self.metrics.flushed(self.stats, self.diagnoses)
        except BaseException:  # never into the program (a bare thread would print it)
            return
        finally:
            ended.set()

    def elapsed(self) -> float:
        """Seconds since the recording started: the ``t`` of its lines."""
        return self.output.elapsed()

    @property
    def compiles(self) -> list[RecordedCall]:
        """Calls that produced an executable (compile, recompile, persistent hit)."""
        return [c for c in self.calls if c.record.kind.compiled]


@contextmanager
def watch(
    path: str | Path | None = None,
    *,
    include_internal: bool = False,
    scripts: bool | str = False,
    warn_after: int | None = None,
    metrics_port: int | None = None,
    metrics_host: str = "127.0.0.1",
    otlp: bool = False,
    metrics_max_functions: int | None = None,
) -> Iterator[Recorder]:
    """Record every jitted function called inside the block (see the module docstring).

    ``warn_after``: the moment one function passes that many compiles, say so once on
    stderr (``recompile-limit``: what keeps changing and the likely fix) and write it to the
    recording; 0 never. None: ``JITLAB_WARN_AFTER``, else 8. ValueError for a negative or
    non-whole value.

    ``scripts=True`` (or ``"figures"``) also keeps, right after each compile of a function
    jitted inside the block, the figures of the program it made (equations, HLO
    instructions, flops, bytes accessed, argument / output / temp bytes) as a ``script``
    line; ``scripts="texts"`` keeps its jaxpr, StableHLO and optimized HLO too. Making one
    traces, lowers and compiles the signature again through JAX's ahead-of-time API (about
    the compile's own time once more); it is never counted as a compile, and a failure is
    recorded as its reason, never raised.

    The fleet view (needs ``pip install 'jitlab[fleet]'``): ``metrics_port`` serves the
    metrics for Prometheus at ``http://METRICS_HOST:PORT/metrics`` while the block runs
    (:class:`~jitlab.watching.fleet.CannotServe` when the port cannot be opened); ``otlp``
    pushes them with OpenTelemetry, configured by the ``OTEL_*`` variables.
    ``metrics_max_functions`` (default 50) folds the functions past it into ``other``.
    """
    limit = resolve_warn_after(warn_after)
    metrics = exporters(metrics_port, metrics_host, otlp, metrics_max_functions)
    recorder = Recorder(
        path, include_internal=include_internal, scripts=scripts, warn_after=limit, metrics=metrics
    )
    with recorder:
        yield recorder
