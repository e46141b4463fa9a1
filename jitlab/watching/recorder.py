"""Watch a real program: record its compiles, count its cache hits, guard a compile budget.

``with jitlab.watch("run.jsonl"):`` records every jitted function called inside the block
without changing the user's code:

* functions jitted *inside* the block (``jax.jit`` is swapped for the block's duration) are
  wrapped in a :class:`~jitlab.probe.probe.Probe`: full signature, jitlab's own diff, and
  cache hits counted per function;
* functions jitted *before* the block are seen through JAX's compile events: name, phases and
  JAX's own explanation (their in-memory cache hits fire no event, so they are not counted).

The file is JSON lines, flushed as it goes: ``start``, one ``call`` line per compile /
recompile / persistent hit / error, ``hits`` lines with aggregated cache-hit counts, ``end``.

**One recording per process.** Run in every process of a ``jax.distributed`` job, each
process writes its own file, ``run.p0.jsonl``, ``run.p1.jsonl``, … (``run.jsonl`` named by
the user), and every line carries ``"process": i``. The index comes from the launcher's
environment at start (:data:`~jitlab.probe._jax.LAUNCHER_PROCESS_VARIABLES`: Slurm, Open MPI,
PMI). Otherwise the program says it to ``jax.distributed.initialize`` itself: nothing is
wrapped; at the first line after ``start`` (the first compile, or the end) the recorder asks
JAX — ``jax.process_count()``, only once the backend runs, which any compile implies and
which ``jax.distributed.initialize`` must precede — and renames its file. Until then the
first process to lock ``run.jsonl`` writes there and the others write to a provisional
``run.pid<PID>.jsonl``. A single process keeps ``run.jsonl``, with no ``process`` field.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import json
import operator
import os
import socket
import sys
import threading
import time
import types
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import jax

import jitlab
from jitlab.probe import _jax, explain, frames, monitor, signature, sites, wrappers
from jitlab.probe.probe import Ledger, Probe, backward_compile
from jitlab.records import messages
from jitlab.records.calls import CallKind, CallRecord, Change, Reason, dumps_strict
from jitlab.records.changes import ChangeKind
from jitlab.records.lines import (
    ProcessInfo,
    RecordedCall,
    RecordedHits,
    RecordedScript,
    RecordingStart,
)
from jitlab.records.outputs import RECORDING, is_kind, is_stream, refusal

# How often aggregated hit counts are written while a program runs (and before every
# compile's line): a program that ends with os._exit loses at most this much of its counts.
_HITS_EVERY_S = 1.0
# Failing calls kept in memory per function, in full: the first and the latest few (every
# one is still written to the file and counted exactly): a call failing 20,000 times in a loop
# would otherwise hold each failure's traceback and its frames.
_ERRORS_KEPT = 20

try:  # POSIX: two processes of one job never write the same file
    import fcntl
except ImportError:  # pragma: no cover - Windows: the first writer is not protected
    fcntl = None  # type: ignore[assignment]


def launcher_process(environ: Any = None) -> tuple[int, int] | None:
    """(index, count) from a launcher's environment when it started several processes."""
    environ = os.environ if environ is None else environ
    for index_name, count_name in _jax.LAUNCHER_PROCESS_VARIABLES:
        try:
            index, count = int(environ[index_name]), int(environ[count_name])
        except (KeyError, ValueError):
            continue
        if count > 1 and 0 <= index < count:
            return index, count
    return None


def process_path(path: str | Path, index: int) -> Path:
    """The recording of process ``index``: ``run.jsonl`` -> ``run.p1.jsonl``."""
    path = Path(path)
    return path.with_name(f"{path.stem}.p{index}{path.suffix}")


def _open_lines(path: Path, mode: str) -> IO[str]:
    # Strict UTF-8; a line holding a lone surrogate (a non-UTF-8 byte in argv or a message)
    # is written escaped instead (see Recorder._write_line).
    return path.open(mode, encoding="utf-8")


def _claim(path: Path) -> tuple[IO[str], Path]:
    """Open ``path`` for this process alone, or a provisional file when another holds it."""
    if is_stream(path):  # /dev/null, /dev/stdout | cat: written as it comes, never truncated
        return _open_lines(path, "w"), path
    f = _open_lines(path, "a")  # "a": never empty a file another process writes
    try:
        if fcntl is not None:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        pending = path.with_name(f"{path.stem}.pid{os.getpid()}{path.suffix}")
        why = refusal(pending, RECORDING)
        if why is not None:  # never over a user's file, whatever its name
            raise FileExistsError(why) from None
        return _open_lines(pending, "w"), pending
    f.seek(0)
    f.truncate()
    return f, path


def _without_traceback(call: RecordedCall) -> RecordedCall:
    """The call with its error's exception dropped: the recording keeps its type and
    message; the exception would keep its traceback's frames (and their arrays) alive."""
    error = call.record.error
    if error is None or error.exception is None:
        return call
    record = call.record._replace(error=dataclasses.replace(error, exception=None))
    return dataclasses.replace(call, record=record)


def child_path(path: str | Path, pid: int) -> Path:
    """A forked child's own recording: ``run.jsonl`` -> ``run.pid4242.jsonl``."""
    path = Path(path)
    return path.with_name(f"{path.stem}.pid{pid}{path.suffix}")


def child_recordings(recorder: Recorder) -> list[Path]:
    """The files forked children of this recording's process wrote (their ``start`` line
    names this process as ``parent``)."""
    if recorder.path is None or recorder._stream:
        return []
    found = []
    pattern = f"{recorder.path.stem}.pid*{recorder.path.suffix}"
    for candidate in sorted(recorder.path.parent.glob(pattern)):
        if not is_kind(candidate, RECORDING):
            continue
        try:
            with candidate.open("rb") as f:
                start = json.loads(f.readline(1 << 16))
        except (OSError, ValueError):
            continue
        if isinstance(start, dict) and start.get("parent") == recorder._pid:
            found.append(candidate)
    return found


def _after_fork_in_child() -> None:
    # A forked child (multiprocessing's "fork", os.fork) records as a process of its own,
    # never into its parent's file: run.pid<PID>.jsonl, its start line naming the parent.
    global _patch_lock
    _patch_lock = threading.RLock()  # another thread of the parent may have held it
    for recorder in list(_recorders):
        with contextlib.suppress(Exception):
            recorder._become_child()


def _defined_at(fun: Any) -> str | None:
    # Called while jax.jit runs: a library's inner function maps to the user's def.
    site = sites.defined_at(fun, search_stack=True)
    for _ in range(8):  # jax.shard_map(f) and the like: JAX's wrapper, the user's f inside
        fun = getattr(fun, "__wrapped__", None)
        if fun is None or site is None or not frames.is_library(site.rpartition(":")[0]):
            break
        site = sites.defined_at(fun) or site
    return site


def events_reason(explanation: str | None, first: bool, persistent: bool) -> Reason:
    """Why a function seen only through compile events compiled: JAX's words, as data.

    Without a signature jitlab has no diff of its own, so it never guesses (no "sharding
    change" for an eager op that simply compiled again): JAX's changes, or ``unknown``.
    """
    changes = [c for c in explain.parse(explanation) if c.kind is not ChangeKind.UNKNOWN]
    if first and (not changes or explain.never_seen(explanation)):
        kind = ChangeKind.FIRST_PERSISTENT_LOAD if persistent else ChangeKind.FIRST_CALL
        changes = [Change(kind)]
    if not changes:
        changes = [Change(ChangeKind.UNKNOWN, detail=explain.summary(explanation))]
    return Reason(tuple(changes), explanation)


class Site:
    """One jitted function as the user sees it: a definition site, however many times the
    same code is handed to ``jax.jit`` (a closure jitted inside a loop, a factory).

    Its instances share one ledger — so the second instance's compile is a recompile of the
    same function — and hits are counted over all of them, living or gone.
    """

    def __init__(self, name: str, defined_at: str | None) -> None:
        self.name = name
        self.defined_at = defined_at
        self.ledger = Ledger()
        self.instances = 0  # how many distinct function objects of this code were jitted
        # (function, jit options, generation) of the objects seen: jax.jit of the *same*
        # function and options again shares JAX's cache, so it is not a new function object.
        self._objects: list[tuple[Any, Any, int]] = []

    def generation(self, fun: Any, jitted: Any) -> int:
        """The generation of ``fun`` jitted as ``jitted``: a new one per function object."""
        info = wrappers.recognise(jitted)
        identity = wrappers.cache_identity(info) if info is not None else None
        with self.ledger.lock:
            for ref, held, generation in self._objects:
                if identity is not None and ref() is fun and held == identity:
                    return generation
            alive = [entry for entry in self._objects if entry[0]() is not None]
            generation = self.instances
            self.instances += 1
            with contextlib.suppress(TypeError):  # not weak-referenceable: always new
                alive.append((weakref.ref(fun), identity, generation))
            self._objects = alive[-64:]
            return generation

    @property
    def hits(self) -> int:
        return self.ledger.counts[CallKind.CACHE_HIT]


@dataclass
class FunctionStats:
    """One function's share of one recording (a block may start after its first calls)."""

    name: str
    defined_at: str | None
    compiles: int = 0
    site: Site | None = None  # probed functions; None for those seen through events only
    hits_base: int = 0  # the site's hits when this recording began to count them
    hits_final: int | None = None  # frozen when the recording stopped
    last_signature: Any = None  # functions seen through events: the last compile's signature

    @property
    def hits(self) -> int | None:
        """Cache hits in this recording, or None when not counted (jitted before any watch)."""
        if self.site is None:
            return None
        end = self.site.hits if self.hits_final is None else self.hits_final
        return end - self.hits_base


@dataclass
class _Pending:
    """Compile events of one unwrapped function on one thread, until its compile ends."""

    trace_ms: float = 0.0
    lower_ms: float = 0.0
    lowered: bool = False
    persistent: bool = False


class _WatchProbe(Probe):
    """The probe of a watched function: also when the program's own :class:`Probe` calls it.

    Then the program's probe is the call in flight on this thread, and JAX's events go to
    it; the watch files what that call did from what it saw (a hit counted, a compile
    recorded), so both the program's probe and the recording count every call.
    """

    def _inlined(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        outer = monitor.current()
        source = outer.source() if outer is not None and outer.source is not None else None
        if getattr(getattr(source, "_fn", None), "_probe", None) is not self or outer is None:
            return super()._inlined(args, kwargs)  # inside another function's trace
        start = time.perf_counter()
        error: Exception | None = None
        result = None
        try:
            result = self._fn(*args, **kwargs)
        except Exception as exc:
            error = exc
        if error is None and outer.quiet and _jax.TRACE_STATE.value is _jax.EVAL_TRACE:
            return self.counted_hit(result)  # else inside a transformation: filed below
        seen = monitor.CallCollector(self._trace_name, None, False)
        for name in ("trace_ms", "lower_ms", "compile_ms", "traced", "lowered", "compiled"):
            setattr(seen, name, getattr(outer, name))
        seen.persistent, seen.quiet = outer.persistent, False
        seen.explanations = list(outer.explanations)
        latency_ms = (time.perf_counter() - start) * 1e3
        return self._file_call(seen, latency_ms, args, kwargs, error, result, None)

    def counted_hit(self, result: Any) -> Any:
        next(self._unrecorded)  # as counted_call counts a hit: lock-free, folded in later
        next(self._unrecorded_ledger)
        return result


class WatchedFunction:
    """What ``jax.jit`` (and ``jax.pmap``) return while a watch is on: the real jitted
    function, probed.

    Outside any watch it calls the real jitted function directly (and is otherwise the same
    object, so a function jitted in one block and called in the next is seen by the next).
    To the program it is JAX's own jitted function: the same ``repr``, hash and equality
    (a static argument JAX caches on), ``__wrapped__``/``__name__``/``__doc__``/
    ``inspect.signature``, a bound method as a class attribute, copies that keep working
    (and stay watched), and pickling exactly as JAX allows it.
    """

    def __init__(self, jitted: Any, fun: Any, site: Site) -> None:
        functools.update_wrapper(self, fun)
        self._jitted = jitted
        self._site = site
        generation = site.generation(fun, jitted)
        probe = _WatchProbe(
            jitted,
            keep_records=False,
            echo_output=True,
            block=False,  # keep the program's asynchronous dispatch: latency = dispatch time
            record_hits=False,  # hits are counted in the ledger, never one object each
            # The program's prints reach its stream untouched; explanations are on globally
            # while any watch runs (monitor.add_watcher).
            capture_output=False,
            ledger=site.ledger,
            generation=generation,
        )
        # Weakly: nothing of jitlab's may keep the user's function alive (JAX's caches hold
        # it weakly; a bound method jitted per call must die with its call, as in a plain run).
        probe.on_record = functools.partial(_dispatch, site, weakref.ref(probe))
        self._probe = probe
        self._counted_call = probe.counted_call  # bound once: called on every step

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _recorders:
            if _listeners_now() is not _LISTENING[0]:  # one identity test: still registered?
                monitor.revive()
            return self._counted_call(*args, **kwargs)
        return self._jitted(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # lower, trace, eval_shape, clear_cache, …
        try:
            jitted = self.__dict__["_jitted"]
        except KeyError:  # half-made (a copy being built): nothing to delegate to
            raise AttributeError(name) from None
        return getattr(jitted, name)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        # As JAX's jitted function: a bound method (inspect.ismethod, __self__, __func__).
        return self if obj is None else types.MethodType(self, obj)

    def __repr__(self) -> str:
        return repr(self._jitted)  # a static argument is shown as the program's own

    def __hash__(self) -> int:
        return hash(self._jitted)

    def __eq__(self, other: object) -> bool:
        if other is self or other is self._jitted:
            return True
        return NotImplemented  # type: ignore[no-any-return]  # then identity, as JAX's

    def __copy__(self) -> WatchedFunction:
        # JAX's copy is a new object sharing the function's cache; so is this one (watched).
        twin = object.__new__(WatchedFunction)
        twin.__dict__.update(self.__dict__)
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> WatchedFunction:
        # JAX deep-copies a jitted function into one that reuses its compiled programs
        # (the user's function is copied by reference): a twin, like copy.copy.
        return self.__copy__()

    def __reduce_ex__(self, protocol: Any) -> Any:
        # Pickled as JAX's own jitted function (plain pickle refuses it as JAX does;
        # cloudpickle and the like store JAX's object, loaded unwatched, without jitlab).
        return operator.getitem, ((self._jitted,), 0)


# -- the process-wide jax.jit stand-in -------------------------------------------------------
# jax.jit is replaced once, while at least one recorder is active, and the very object found
# is put back when the last one stops: blocks nest, repeat and run in threads without
# stacking wrappers.
_patch_lock = threading.RLock()
_recorders: list[Recorder] = []  # active recorders, in start order
_real_jit: Callable[..., Any] | None = None
_real_pmap: Callable[..., Any] | None = None  # jax.pmap is stood in for likewise
_sites: dict[tuple[str, str | None], Site] = {}


def _after_fork_in_parent() -> None:
    for recorder in list(_recorders):
        recorder.forks += 1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child, after_in_parent=_after_fork_in_parent)
_listeners_now = monitor.listeners_now  # the hot path's listener check (see monitor.revive)
_LISTENING = monitor.LISTENING


def _watched_jit(fun: Any = None, /, **options: Any) -> Any:
    real = _real_jit if _real_jit is not None else jax.jit
    if fun is None:  # @jax.jit(static_argnames=...) used as a decorator factory
        return lambda f: _watched_jit(f, **options)
    return _watched(real(fun, **options), fun)


def _watched_pmap(*args: Any, **options: Any) -> Any:
    real = _real_pmap if _real_pmap is not None else jax.pmap
    pmapped = real(*args, **options)  # called as the program called it: JAX's own errors
    return _watched(pmapped, args[0] if args else options.get("fun"))


def _watched(jitted: Any, fun: Any) -> Any:
    try:
        name = getattr(fun, "__name__", None) or type(fun).__name__
        key = (name, _defined_at(fun))
        with _patch_lock:
            site = _sites.get(key)
            if site is None:
                site = _sites[key] = Site(*key)
                for recorder in _recorders:  # counted from now, compiled here or not
                    recorder._track(site)
        return WatchedFunction(jitted, fun, site)
    except Exception:  # whatever we cannot wrap keeps working unwatched
        return jitted


def _dispatch(site: Site, probe_ref: weakref.ref[Probe], record: CallRecord) -> None:
    probe = probe_ref()
    for recorder in list(_recorders):
        recorder._on_probe_record(site, record, probe)


def _activate(recorder: Recorder) -> None:
    global _real_jit, _real_pmap
    with _patch_lock:
        if not _recorders:
            _real_jit, _real_pmap = jax.jit, jax.pmap
            jax.jit = _watched_jit  # type: ignore[assignment]
            jax.pmap = _watched_pmap  # type: ignore[assignment]
        _recorders.append(recorder)
        for site in _sites.values():  # functions jitted in earlier blocks: count from now
            recorder._track(site)


def _deactivate(recorder: Recorder) -> None:
    global _real_jit, _real_pmap
    with _patch_lock:
        if recorder in _recorders:
            _recorders.remove(recorder)
        if not _recorders and _real_jit is not None:
            if jax.jit is _watched_jit:  # type: ignore[comparison-overlap]
                jax.jit = _real_jit  # type: ignore[assignment]
            # else: the program replaced jax.jit itself meanwhile; its choice stands.
            if jax.pmap is _watched_pmap and _real_pmap is not None:  # type: ignore[comparison-overlap]
                jax.pmap = _real_pmap  # type: ignore[assignment]
            _real_jit = _real_pmap = None


class Recorder:
    """Records compiles of every jitted function while active; optionally to a JSON-lines file."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        include_internal: bool = False,
        scripts: bool | str = False,
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.include_internal = include_internal
        self.scripts = _scripts_mode(scripts)  # None, "figures" or "texts"
        self.calls: list[RecordedCall] = []
        self.recorded_scripts: list[RecordedScript] = []  # with ``scripts``: one per compile
        self.stats: dict[Any, FunctionStats] = {}  # by Site, or (events, name, site)
        self.recording = False
        self._lock = threading.RLock()
        self._file: IO[str] | None = None
        self.file_path: Path | None = None  # where the lines go now (see the module docstring)
        self.process: int | None = None  # this process's index in a multi-process job
        self._first_line: RecordingStart | None = None
        self._resolved = False
        self._start = 0.0
        self._hits_written: dict[Any, int] = {}
        self._stopping = threading.Event()
        self._flusher: threading.Thread | None = None
        self._local = threading.local()
        self._stream = False  # writing to a device or a pipe: no rename, no rewrite
        self._pid = os.getpid()
        self._inherited: list[IO[str]] = []  # a forked child's copy of its parent's file
        self.forks = 0  # children this process forked while recording (each writes its own)
        # Failing calls: counted exactly per function, the first _ERRORS_KEPT kept in
        # ``calls``, the latest _ERRORS_KEPT here (see _add).
        self.errors: collections.Counter[Any] = collections.Counter()
        self.latest_errors: dict[Any, collections.deque[RecordedCall]] = {}
        # Times jitlab's listeners were found removed while this recorded (the program ran
        # jax.monitoring.clear_event_listeners()): compiles may have gone unseen.
        self.blinded = 0

    # -- lifecycle ------------------------------------------------------------------------
    def __enter__(self) -> Recorder:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self._start = time.monotonic()
        self._pid = os.getpid()
        if self.path is not None:
            # Absolute now: a program that changes folder does not move its recording.
            self.path = Path(os.path.abspath(self.path))
            why = refusal(self.path, RECORDING)
            if why is not None:  # never over a user's file
                raise FileExistsError(why)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            launched = launcher_process()
            self._resolved = False
            self._stream = is_stream(self.path)
            if launched is not None and not self._stream:
                self.process = launched[0]
                self.file_path = process_path(self.path, self.process)
                why = refusal(self.file_path, RECORDING)
                if why is not None:
                    raise FileExistsError(why)
                self._file = _open_lines(self.file_path, "w")
            else:
                self.process = launched[0] if launched is not None else None
                self._file, self.file_path = _claim(self.path)
            self._first_line = RecordingStart(
                tuple(sys.argv),
                jax.__version__,
                jitlab.__version__,
                time.time(),
                host=socket.gethostname(),
                process=self.process,
                processes=launched[1] if launched else None,
                scripts=self.scripts,
            )
            self._write(self._first_line.to_json(pid=os.getpid()))
        monitor.revive()  # removed before the block: registered again before it counts
        monitor.add_watcher(self)
        _activate(self)
        self.recording = True
        self._start_flusher()

    def _start_flusher(self) -> None:
        if self._file is not None:
            self._stopping = threading.Event()
            self._flusher = threading.Thread(
                target=self._flush_hits_periodically, name="jitlab-watch-flush", daemon=True
            )
            self._flusher.start()

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
            self._flusher.join(timeout=5.0)
            self._flusher = None
        monitor.revive()  # removed meanwhile? Then this recording says it could not see
        _deactivate(self)
        monitor.remove_watcher(self)
        with self._lock:
            for stats in self.stats.values():
                if stats.site is not None:
                    stats.hits_final = stats.site.hits
            self._write_hits()
            end: dict[str, Any] = {"type": "end", "t": self._elapsed()}
            if signal is not None:
                end["signal"] = signal
            self._write(end)
            if self._file is not None:
                self._file.close()
                self._file = None

    def listeners_lost(self) -> None:
        """jitlab's JAX listeners were found removed (and registered again): compiles in
        between went unseen. Written as a ``notice`` line; a budget that could not see fails."""
        with self._lock:
            self.blinded += 1
            self._write({"type": "notice", "notice": "listeners_removed", "t": self._elapsed()})

    def _become_child(self) -> None:
        """In a forked child: leave the parent's file, open this process's own."""
        parent, self._pid = self._pid, os.getpid()
        self._lock = threading.RLock()
        self._flusher = None
        if self._file is not None:  # never closed here: its lock may be held from the fork
            self._inherited.append(self._file)
            self._file = None
        self.calls, self.recorded_scripts = [], []
        self.errors, self.latest_errors = collections.Counter(), {}
        self._hits_written = {}
        for stats in self.stats.values():  # this process counts from the fork on
            stats.compiles = 0
            if stats.site is not None:
                stats.hits_base = stats.site.hits
        self._start = time.monotonic()
        if self.path is None or self._stream:  # a stream is the parent's: nothing written
            self.file_path = None
            return
        self.file_path = child_path(self.path, self._pid)
        if refusal(self.file_path, RECORDING) is not None:  # a user's file by that name
            self.file_path = None
            return
        self._file = _open_lines(self.file_path, "w")
        self.process, self._resolved = None, True
        self._first_line = RecordingStart(
            tuple(sys.argv),
            jax.__version__,
            jitlab.__version__,
            time.time(),
            host=socket.gethostname(),
            scripts=self.scripts,
        )
        self._write(self._first_line.to_json(pid=self._pid, parent=parent))
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

    def _track(self, site: Site) -> FunctionStats:
        """This recording's row for a probed function, counting its hits from now on."""
        with self._lock:
            stats = self.stats.get(site)
            if stats is None:
                stats = FunctionStats(site.name, site.defined_at, site=site, hits_base=site.hits)
                self.stats[site] = stats
            return stats

    def _stats_for(self, key: Any, name: str | None, defined_at: str | None) -> FunctionStats:
        with self._lock:
            stats = self.stats.get(key)
            if stats is None:
                stats = FunctionStats(name or "?", defined_at)
                self.stats[key] = stats
            return stats

    # -- records from wrapped functions ---------------------------------------------------
    def _on_probe_record(self, site: Site, record: CallRecord, probe: Probe | None = None) -> None:
        stats = self._track(site)
        stats.compiles += record.kind.compiled
        called_from = frames.call_site(1)
        self._add(RecordedCall(record, stats.defined_at, called_from, t=self._elapsed()))
        made_card = record.kind.compiled and record.card is not None
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
                times = dict(
                    trace_ms=record.trace_ms,
                    lower_ms=record.lower_ms,
                    compile_ms=record.compile_ms,
                )
                script = dataclasses.replace(
                    script, figures=dataclasses.replace(script.figures, **times)
                )
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
            stats.name, stats.defined_at, record.card, record.index, script, why, self._elapsed()
        )
        parts = _SCRIPT_PARTS[self.scripts or "figures"]
        with self._lock:
            self.recorded_scripts.append(line)
            self._write(line.to_json(parts))

    # -- events from functions jitted before the watch (monitor watcher protocol) ---------
    def _pending(self) -> dict[str, _Pending]:
        pending = getattr(self._local, "pending", None)
        if pending is None:
            pending = self._local.pending = {}
            self._local.explanations = []
        return pending

    def explanation(self, text: str) -> None:
        self._pending()
        self._local.explanations.append(text)

    def event(self, event: str) -> None:
        if event == monitor.PERSISTENT_HIT_EVENT:
            for state in self._pending().values():
                if state.lowered:
                    state.persistent = True

    def duration(self, event: str, ms: float, fun_name: str | None) -> None:
        if fun_name is None and event != monitor.PERSISTENT_LOAD_EVENT:
            return
        pending = self._pending()
        if event == monitor.TRACE_EVENT:
            pending.setdefault(fun_name, _Pending()).trace_ms = ms
        elif event == monitor.LOWER_EVENT:
            state = pending.setdefault(_base_name(fun_name), _Pending())
            state.lower_ms, state.lowered = ms, True
        elif event == monitor.COMPILE_EVENT:
            name = _base_name(fun_name)
            state = pending.pop(name, _Pending())
            if not self._backward_pass(fun_name, state, ms):
                self._finish_unwrapped(name, state, ms)
        elif event == monitor.PERSISTENT_LOAD_EVENT:
            for name, state in list(pending.items()):
                if state.lowered and state.persistent:
                    del pending[name]
                    self._finish_unwrapped(name, state, ms)

    def _backward_pass(self, fun_name: str | None, state: _Pending, compile_ms: float) -> bool:
        """A compile of grad's backward pass (the transpose JAX compiles after the watched
        call under grad returned): filed as that function's own executable, a
        transformation, never its "first call". True when it was a watched function's."""
        found = backward_compile(fun_name, sys._getframe(1))
        if found is None:
            return False
        probe, avals = found
        first = not _recorders or _recorders[0] is self
        if first:  # once: a watched function's record reaches every recorder (_dispatch)
            probe._file_backward(state.lower_ms, compile_ms, avals)
        if isinstance(probe, _WatchProbe):
            return True
        # The program's own Probe (its listener leaves compiles outside probed calls to the
        # watch): filed there above, and here as an events-only compile of the same kind.
        after = str(probe.backward_signature(avals))
        change = Change(ChangeKind.TRANSFORMED, "transpose", after=after, count=1)
        self._finish_unwrapped(_base_name(fun_name), state, compile_ms, Reason((change,)))
        return True

    def _finish_unwrapped(
        self, name: str, state: _Pending, compile_ms: float, known: Reason | None = None
    ) -> None:
        site = sites.compile_site(1)
        event_name = name
        if site.internal and name == _jax.PMAP_TRACE_NAME:
            # A jax.pmap made before the watch (it runs as jit(shard_map(_fun)), JAX's own
            # function): named and placed as the user's function it maps.
            user = _jax.pmap_user_function(sys._getframe(1))
            if user is not None:
                name = _jax.fun_name(user)
                site = dataclasses.replace(site, internal=False, defined_at=_defined_at(user))
        if site.internal and not self.include_internal:
            return
        explanations = self._local.explanations
        mine = [
            t for t in explanations if f"for {event_name} defined" in t or f"{event_name} id=" in t
        ]
        for text in mine:
            explanations.remove(text)
        explanation = "\n".join(mine) or None
        stats = self._stats_for(("events", name, site.defined_at), name, site.defined_at)
        # A function compiled before the watch began is recompiling even if we never saw it.
        seen_before = stats.compiles or (explanation and "never seen function" not in explanation)
        if state.persistent:
            kind = CallKind.PERSISTENT_HIT
        else:
            kind = CallKind.RECOMPILE if seen_before else CallKind.COMPILE
        stats.compiles += 1
        reason = events_reason(explanation, stats.compiles == 1, state.persistent)
        if event_name != name and not state.persistent:
            # JAX's words are about its own _fun, a new one per argument structure ("never
            # seen function"): they say nothing of the user's. No guess of ours either.
            kind = CallKind.COMPILE if stats.compiles == 1 else CallKind.RECOMPILE
            first = Change(ChangeKind.FIRST_SEEN)
            vague = Change(ChangeKind.UNKNOWN, detail=explain.summary(explanation))
            reason = Reason((first if stats.compiles == 1 else vague,), explanation)
        if known is not None:  # jitlab knows what JAX compiled (grad's backward pass)
            kind, reason = CallKind.RECOMPILE, Reason(known.items, explanation)
        new = site.signature
        if new is not None and stats.last_signature is not None and known is None:
            # The call's signature in the user's names (through eqx.filter_jit / nnx.jit):
            # jitlab's own diff names the field; JAX's words stay alongside.
            # JAX's own words win where they name a concrete change (it compares with the
            # closest executable it holds); a wrapper's opaque static repr does not.
            vague = {ChangeKind.UNKNOWN, ChangeKind.JAX_EXPLAINED, ChangeKind.TREE_STRUCTURE}
            ours = signature.diff(new, stats.last_signature)
            if ours and all(kind in vague for kind in reason.kinds()):
                reason = Reason(tuple(ours), explanation)
        if new is not None:
            stats.last_signature = new
        record = CallRecord(
            index=stats.compiles - 1,
            function=name,
            kind=kind,
            latency_ms=0.0,  # not timed: written as null (see RecordedCall.to_json)
            trace_ms=round(state.trace_ms, 4),
            lower_ms=round(state.lower_ms, 4),
            compile_ms=round(compile_ms, 4),
            signature=new,
            reason=reason,
        )
        call = RecordedCall(
            record,
            stats.defined_at,
            site.called_from,
            events_only=True,
            internal=site.internal,
            t=self._elapsed(),
        )
        self._add(call)

    # -- output -----------------------------------------------------------------------------
    def _add(self, call: RecordedCall) -> None:
        record = call.record
        with self._lock:
            if record.kind.compiled:
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
                    self._write(call.to_json())
                    return
            self.calls.append(call)
            self._write(call.to_json())

    def _write_hits(self, only_changed: bool = False) -> None:
        for key, stats in list(self.stats.items()):
            hits = stats.hits
            if hits is None or (only_changed and self._hits_written.get(key, 0) == hits):
                continue
            if not hits and not stats.compiles:
                continue  # a function this recording never saw called
            self._hits_written[key] = hits
            self._write(RecordedHits(stats.name, stats.defined_at, hits, self._elapsed()).to_json())

    def _flush_hits_periodically(self) -> None:
        # Hits are counted on the hot path without any I/O; this thread writes them out so
        # that a killed program still leaves recent counts in the file.
        while not self._stopping.wait(_HITS_EVERY_S):
            monitor.revive()  # a program that cleared jitlab's listeners is blind no longer
            with self._lock:
                if self._stopping.is_set():  # stop() writes the last counts, then the end
                    return
                self._write_hits(only_changed=True)

    def _write(self, obj: dict[str, Any]) -> None:
        if self._file is None:
            return
        if not self._resolved and obj.get("type") != "start":
            self._resolve_process()
        if self.process is not None:
            obj = {**obj, "process": self.process}
        self._write_line(dumps_strict(obj))  # never a bare NaN
        self._file.flush()  # a crash or Ctrl-C loses nothing written before it

    def _write_line(self, line: str) -> None:
        assert self._file is not None
        try:
            self._file.write(line + "\n")
        except UnicodeEncodeError:  # a lone surrogate (argv's undecodable bytes): escaped
            self._file.write(json.dumps(json.loads(line), ensure_ascii=True) + "\n")

    def _resolve_process(self) -> None:
        """Ask JAX which process this is, once, before the first line after ``start``.

        Only when the backend already runs (it does at any compile): starting it here would
        break the program's later ``jax.distributed.initialize``. A multi-process job renames
        the file to ``run.p{index}.jsonl``, rewrites its one ``start`` line with the index
        and writes a ``process`` line with the device counts.
        """
        self._resolved = True
        assert self._file is not None and self.path is not None and self.file_path is not None
        if not _jax.backends_are_initialized():
            return
        try:
            count, index = jax.process_count(), jax.process_index()
            local, total = jax.local_device_count(), jax.device_count()
        except Exception:  # a backend that cannot say: leave the file as it is
            return
        start = self._first_line or RecordingStart()
        if count > 1:
            start = dataclasses.replace(start, process=index, processes=count)
        elif self.process is None:
            return  # a single process: run.jsonl, as always
        else:  # a launcher said so, but JAX runs alone here: keep the launcher's index
            index, count = self.process, start.processes or count
        target = process_path(self.path, index)
        if self._stream:  # a device or a pipe: lines marked with the index, no rename
            self.process = index
        elif self.file_path != target and refusal(target, RECORDING) is not None:
            pass  # a user's file has that name: the lines stay under the first one
        elif self.file_path != target:
            with contextlib.suppress(OSError):  # on failure it stays under its first name
                os.replace(self.file_path, target)
                self.file_path = target
            self.process = index
            self._file.seek(0)
            self._file.truncate()
            self._first_line = start
            self._write(start.to_json(pid=os.getpid()))
        self.process = index
        info = ProcessInfo(index, count, socket.gethostname(), local, total, self._elapsed())
        self._write(info.to_json())

    def _elapsed(self) -> float:
        return round(time.monotonic() - self._start, 6)

    @property
    def compiles(self) -> list[RecordedCall]:
        """Calls that produced an executable (compile, recompile, persistent hit)."""
        return [c for c in self.calls if c.record.kind.compiled]


_base_name = _jax.trace_event_name  # "jit(f)" -> "f"

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


@contextmanager
def watch(
    path: str | Path | None = None,
    *,
    include_internal: bool = False,
    scripts: bool | str = False,
) -> Iterator[Recorder]:
    """Record every jitted function called inside the block (see the module docstring).

    ``scripts=True`` (or ``"figures"``) also keeps, right after each compile of a function
    jitted inside the block, the figures of the program it made (equations, HLO
    instructions, flops, bytes accessed, argument / output / temp bytes) as a ``script``
    line; ``scripts="texts"`` keeps its jaxpr, StableHLO and optimized HLO too. Making one
    traces, lowers and compiles the signature again through JAX's ahead-of-time API (about
    the compile's own time once more); it is never counted as a compile, and a failure is
    recorded as its reason, never raised.
    """
    recorder = Recorder(path, include_internal=include_internal, scripts=scripts)
    with recorder:
        yield recorder


# -- compile budgets --------------------------------------------------------------------------
class CompileBudgetExceeded(AssertionError):
    """Raised when code compiled more often than its budget allows."""


@dataclass
class Budget:
    max_compiles: int
    recorder: Recorder = field(repr=False)

    @property
    def compiles(self) -> list[RecordedCall]:
        return self.recorder.compiles

    def check(self) -> None:
        __tracebackhide__ = True  # pytest shows the user's line, not ours
        compiles = self.compiles
        blinded = self.recorder.blinded > 0
        if len(compiles) <= self.max_compiles and not blinded:
            return
        lines = [
            f"{len(compiles)} compile(s) where the budget allows {self.max_compiles}:",
        ]
        if blinded:  # never a pass that could not see
            lang = monitor.user_language()
            n = len(compiles)
            lines = [messages.say("budget.blinded", lang, n=n, max=self.max_compiles)]
        for i, call in enumerate(compiles, 1):
            c = call.record
            over = "  ← over budget" if i > self.max_compiles else ""
            where = f" at {call.called_from}" if call.called_from else ""
            reason = str(c.reason) if c.reason else "?"
            lines.append(
                f"  {i}. {c.function} {c.kind.value}{where}: {reason}"
                f" ({c.trace_ms + c.lower_ms + c.compile_ms:.1f} ms){over}"
            )
        raise CompileBudgetExceeded("\n".join(lines))


@contextmanager
def budget(max_compiles: int = 0, *, include_internal: bool = False) -> Iterator[Budget]:
    """Fail (``CompileBudgetExceeded``) if the block compiles more than ``max_compiles`` times.

    ``max_compiles=0`` after a warm-up forbids any further compile. Each extra compile is
    listed with its function, call site and reason.
    """
    __tracebackhide__ = True
    recorder = Recorder(None, include_internal=include_internal)
    guard = Budget(max_compiles, recorder)
    with recorder:
        yield guard
    guard.check()
