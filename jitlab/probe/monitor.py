"""Process-wide hooks into JAX, installed once and routed per thread.

``jax.monitoring`` listeners, the cache-miss explanation logger and ``sys.stdout`` are all
process-wide. jitlab installs one listener of each kind, never removes anyone else's, and
routes what arrives to the collector of the probed call running on the *calling thread*
(JAX fires compile events on the thread that called the function), else to the watchers
(:class:`Watcher`); every duration also goes to the listeners (:class:`DurationListener`).
This is jitlab's one registration with JAX's listeners: whatever in jitlab hears JAX's events
hears them through it, so a program that clears JAX's listeners gets all of them back at
once (:func:`revive`).

Every process-wide hook (listeners, logger filter, stdout router) in one place, since each
must be installed once and restored exactly.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import logging
import os
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any, Protocol

import jax

from jitlab.probe import _jax, _jax_programs, frames
from jitlab.records.paths import engine_dirs
from jitlab.records.persistent import PersistentFate, fate_of

# JAX's event names (private conventions, tested in tests/probe/test_jax_contract.py).
TRACE_EVENT = _jax.TRACE_EVENT
LOWER_EVENT = _jax.LOWER_EVENT
COMPILE_EVENT = _jax.COMPILE_EVENT
PERSISTENT_HIT_EVENT = _jax.PERSISTENT_HIT_EVENT
PERSISTENT_LOAD_EVENT = _jax.PERSISTENT_LOAD_EVENT
trace_event_name = _jax.trace_event_name  # "jit(f)" -> "f": the name a trace event gives

MAX_LINES_PER_CALL = 200
MAX_CHARS_PER_CALL = 64_000
MAX_CHARS_PER_LINE = 4_000

_local = threading.local()
_install_lock = threading.Lock()
_installed = False
_active: set[CallCollector] = set()  # collectors of calls in flight, on any thread
_EXPLAIN = _jax.EXPLAIN
_swap_explain = _EXPLAIN.swap_local  # bound once: begin/end run on every probed call
_set_explain = _EXPLAIN.set_local


class Watcher(Protocol):
    """What the monitor calls on a watcher (:func:`add_watcher`; jitlab.watch's recorder, a
    budget): what happens on threads with no probed call in flight, i.e. in functions
    jitlab did not wrap."""

    def duration(self, event: str, ms: float, fun_name: str | None) -> None:
        """A phase JAX timed (a ``*_EVENT`` above) ended: ``ms`` long, of ``fun_name``."""

    def event(self, event: str) -> None:
        """JAX counted an event (a persistent-cache hit)."""

    def explanation(self, text: str) -> None:
        """JAX explained a tracing-cache miss (its log's words)."""

    def listeners_lost(self) -> None:
        """jitlab's listeners were found removed and registered again (see :func:`revive`):
        compiles in between went unseen."""


class DurationListener(Protocol):
    """What the monitor calls on a listener (:func:`add_listener`): every phase JAX timed,
    on any thread, a probed call in flight or not (the notebook's live view, the probe's
    backward pass). Called on the thread where the phase ended, inside JAX."""

    def __call__(self, event: str, ms: float, fun_name: str | None) -> None: ...


# Watchers see what happens outside probed calls (functions jitlab did not wrap).
_watchers: list[Watcher] = []
# Listeners see every duration event (rebound, never changed in place: read without a lock).
_listeners: tuple[DurationListener, ...] = ()
_unset = _jax.UNSET  # "no thread-local value" in JAX's config
_saved_global_explain: Any = _unset  # the user's global value while watchers override it
_unhook_explain: Callable[[], None] | None = None  # while watchers run: see add_watcher


class CallCollector:
    """Gathers what JAX reports during one probed call on one thread."""

    __slots__ = (
        "_dropped",
        "_echo",
        "_kept_lines",
        "_on_phase",
        "_output",
        "_trace_mark",
        "busy",
        "compile_ms",
        "compiled",
        "defer_explain",
        "deferred",
        "dispatched",
        "executable",
        "explanations",
        "jit_name",
        "lazy",
        "lower_ms",
        "lowered",
        "persistent",
        "quiet",
        "restore_explain",
        "routed",
        "source",
        "tokens_before",
        "trace_ms",
        "trace_name",
        "traced",
        "user_explain",
    )

    def __init__(
        self,
        trace_name: str,
        on_phase: Callable[[str, float], None] | None,
        echo: bool,
        source: Any = None,
    ) -> None:
        self.trace_name = trace_name
        self.jit_name = _jax.jit_event_name(trace_name)
        self._on_phase = on_phase
        self._echo = echo
        # A probe reuses one collector per thread for all its calls: it reads the probe's
        # on_phase / echo_output when an event comes, so nothing is copied per call.
        # Weakly: a collector lives in a thread-local, and a thread's locals are freed while
        # Python tears that thread state down — dropping the last reference to a probe (and
        # its jitted function) there makes JAX evict caches without a thread state (abort).
        self.source = weakref.ref(source) if source is not None else None
        self.busy = False
        self.user_explain: Any = None  # this thread's own explain_cache_misses, during a call
        self.restore_explain: Any = None  # the thread's value before begin() (nested calls)
        # A probed call (Probe._spare): JAX's costly explanations are put off (see
        # defer_explanations) and ``deferred`` holds them, unmade, until the call is filed.
        self.defer_explain = False
        # A probed call that routes stdout and explanations only once JAX dispatches it in
        # Python (_python_dispatch): a cache hit, run by C++ alone, routes nothing.
        self.lazy = False
        self.routed = False  # stdout and explanations routed to this call now
        self.reset()

    def reset(self) -> None:
        self.trace_ms = self.lower_ms = self.compile_ms = 0.0
        self.traced = self.lowered = self.compiled = self.persistent = False
        # The executable this call's compile made (executables-growing): held only until
        # the call is filed, never longer (it would keep the program's executable alive).
        self.executable: Any = None
        # Nothing happened but dispatch (the fast path of a cache hit): a plain attribute,
        # cleared by whatever makes the call worth a full record.
        self.quiet = True
        self.explanations: list[str] = []
        self.deferred: list[Callable[[], Any]] | None = None
        # JAX dispatched the call in Python (_python_dispatch): the only calls that can have
        # effects (host callbacks never take C++'s fast path); and the effect tokens this
        # thread held then, which are not this call's (see wait_for_effects).
        self.dispatched = False
        self.tokens_before: tuple[Any, ...] = ()
        self._output: io.StringIO | None = None
        self._trace_mark = 0  # output offset when the probed function's trace ended
        self._kept_lines = 0
        self._dropped: dict[str, int] | None = None  # lines past the cap, by when printed

    @property
    def on_phase(self) -> Callable[[str, float], None] | None:
        source = self.source() if self.source is not None else None
        return self._on_phase if source is None else source.on_phase

    @on_phase.setter
    def on_phase(self, value: Callable[[str, float], None] | None) -> None:
        self._on_phase = value

    @property
    def echo(self) -> bool:
        source = self.source() if self.source is not None else None
        return self._echo if source is None else source.echo_output

    @echo.setter
    def echo(self, value: bool) -> None:
        self._echo = value

    def explain(self, message: str) -> None:
        self.explanations.append(message)
        self.quiet = False

    # -- events (called on the calling thread) --------------------------------------------
    def duration(self, event: str, seconds: float, fun_name: str | None) -> None:
        ms = seconds * 1e3
        if event == TRACE_EVENT and fun_name == self.trace_name:
            # The outermost trace ends last: nested functions of the same name fire earlier.
            self.trace_ms, self.traced, self.quiet = ms, True, False
            self._trace_mark = self._output.tell() if self._output else 0
            self._phase("trace", ms)
        elif event == LOWER_EVENT and fun_name == self.jit_name:
            self.lower_ms, self.lowered, self.quiet = ms, True, False
            self._phase("lower", ms)
        elif event == COMPILE_EVENT and fun_name == self.jit_name:
            # Also without a lowering: JAX lowers once per abstract signature, and an array
            # committed to another device is only compiled again (pjit_test.py's
            # test_pjit_different_device_recompilation). A compile all the same.
            self.compile_ms, self.compiled, self.quiet = ms, True, False
            self.executable = _jax_programs.compiled_executable(frames.getframe(1))
            self._phase("compile", ms)
        elif event == PERSISTENT_LOAD_EVENT and self.lowered and not self.compiled:
            # Persistent-cache events carry no function name; after our lowering they are ours.
            self.compile_ms, self.persistent = ms, True
            self._phase("load", ms)

    def event(self, event: str) -> None:
        if event == PERSISTENT_HIT_EVENT and self.lowered and not self.compiled:
            self.persistent = True

    def _phase(self, phase: str, ms: float) -> None:
        on_phase = self.on_phase
        if on_phase is not None:
            on_phase(phase, ms)

    # -- output ---------------------------------------------------------------------------
    def write(self, text: str) -> None:
        self.quiet = False
        if self._output is None:
            self._output = io.StringIO()
        # A call that prints 100,000 lines keeps the first few hundred and an exact count of
        # the rest: records, the log, the GUI and --json stay usable.
        if self._kept_lines < MAX_LINES_PER_CALL and self._output.tell() < MAX_CHARS_PER_CALL:
            self._output.write(text)
            self._kept_lines += text.count("\n")
            return
        if self._dropped is None:
            self._dropped = {"trace": 0, "runtime": 0}
        self._dropped["runtime" if self.traced else "trace"] += text.count("\n")

    def output_lines(self) -> list[tuple[str, str]]:
        """Printed lines tagged ``trace`` (before our trace ended) or ``runtime``."""
        if self._output is None:
            return []
        text = self._output.getvalue()
        mark = self._trace_mark if self.traced else 0
        lines: list[tuple[str, str]] = []
        offset = 0
        for line in text.splitlines(keepends=True):
            when = "trace" if offset < mark else "runtime"
            offset += len(line)
            if line.strip():
                lines.append((when, line.rstrip("\n")[:MAX_CHARS_PER_LINE]))
        for when, count in (self._dropped or {}).items():
            if count:
                lines.append((when, f"… {count} more lines"))
        return lines


# -- JAX's explanations, put off where jitlab's own diff says why -------------------------------
# A probed call, and every miss while a watch runs, has JAX's explanations on (functions seen
# only through events have nothing else). JAX's explainer compares the miss with every key it
# holds for the function, leaf by leaf, so a function compiled for many signatures pays more
# at each compile. A probed call (``CallCollector.defer_explain``) has jitlab's own diff:
# JAX's words are made at once while JAX holds at most EXPLAIN_AT_ONCE keys of the function,
# else kept unmade on the collector and made only when the diff cannot say (:func:`explain_now`,
# called by the probe's filing).
EXPLAIN_AT_ONCE = 8


# -- where this thread's events go ---------------------------------------------------------------
# A probed call routes its thread's events to its collector (``_local.collector``) for the
# length of the call. A watched call does not, on its hot path (a cache hit, where JAX fires
# nothing): every event marks SEEN, and the first event of a watched call's own finds that call
# on the stack (IN_FLIGHT[0], the watch's finder) and routes the rest of the call to it. The
# watched call compares SEEN before and after: unchanged, nothing happened on any thread.
SEEN: list[int] = [0]
_marks = itertools.count(1)  # atomic: a new mark is never one a call saw before it began
IN_FLIGHT: list[Callable[[], CallCollector | None] | None] = [None]
# The watch's test, asked only of an explanation the program's log would show: is this miss
# one JAX explains only because a stand-in is not a ``jax.jit`` object (eval_shape of one
# traces the jit inside it again)? Then the program's log does not show it (jitlab keeps it).
REPEATED: list[Callable[[], bool] | None] = [None]


def mark() -> None:
    """Something happened that a watched call in flight must not take for a hit (see SEEN)."""
    SEEN[0] = next(_marks)


def routed() -> CallCollector | None:
    """The collector of the call in flight on this thread, if any (see SEEN)."""
    SEEN[0] = next(_marks)
    collector = getattr(_local, "collector", None)
    if collector is None:
        finder = IN_FLIGHT[0]
        if finder is not None:
            collector = finder()
    return collector


def _deferral_sink() -> list[Callable[[], Any]] | None:
    """Where JAX's explanation of the miss now on this thread may be put off; None: now."""
    collector = routed()
    if collector is None or not collector.defer_explain or user_wants_explanations():
        return None  # the user reads JAX's log: it is written as without jitlab
    if collector.deferred is None:
        collector.deferred = []
    return collector.deferred


def explain_now(deferred: list[Callable[[], Any]]) -> str | None:
    """Make the explanations a call put off: JAX's own words, as its log would have said."""
    capture = CallCollector("", None, False)  # takes what JAX logs; no event matches ""
    previous = getattr(_local, "collector", None)
    _local.collector = capture
    try:
        for thunk in deferred:
            with contextlib.suppress(Exception):  # as JAX's own: never into the program
                thunk()
    finally:
        _local.collector = previous
    return "\n".join(capture.explanations) or None


def current() -> CallCollector | None:
    return getattr(_local, "collector", None)


def begin(collector: CallCollector) -> CallCollector | None:
    """Route this thread's events to ``collector``; returns the one it replaces (nesting).

    For the length of the call only: ``sys.stdout`` is routed (and restored by :func:`end`)
    and JAX's cache-miss explanations are switched on for this thread alone.
    """
    previous = getattr(_local, "collector", None)
    _local.collector = collector
    _route_stdout(collector)
    restore = collector.restore_explain = _swap_explain(True)
    # Inside another probed call the thread's value is that call's (jitlab's own True): what
    # the user asked for is what the outer call saved (None: a watched call that swaps none).
    outer = previous.user_explain if previous is not None else None
    collector.user_explain = restore if outer is None else outer
    return previous


def end(collector: CallCollector, previous: CallCollector | None = None) -> None:
    _set_explain(collector.restore_explain)
    _unroute_stdout(collector)
    _local.collector = previous


def add_watcher(watcher: Watcher) -> None:
    """``watcher``'s methods (:class:`Watcher`) are called for everything that happens on
    threads with no probed call in flight.

    While any watcher is active JAX explains its cache misses on every thread (functions
    jitlab did not wrap need it too); the user's own setting comes back with the last one —
    the value the program set meanwhile, if it set one (``jax.config.update``), which also
    decides meanwhile whether the program sees JAX's explanations.
    """
    global _saved_global_explain, _unhook_explain
    install()
    with _install_lock:
        if not _watchers:
            _saved_global_explain = _EXPLAIN.get_global()
            _EXPLAIN.set_global(True)
            _unhook_explain = _jax.hook_explain_updates(_program_set_explain)
        _watchers.append(watcher)


def remove_watcher(watcher: Watcher) -> None:
    global _saved_global_explain, _unhook_explain
    with _install_lock:
        if watcher not in _watchers:
            return
        _watchers.remove(watcher)
        if not _watchers and _saved_global_explain is not _unset:
            if _unhook_explain is not None:
                _unhook_explain()
                _unhook_explain = None
            _EXPLAIN.set_global(_saved_global_explain)
            _saved_global_explain = _unset


def _program_set_explain(value: Any) -> None:
    """The program ran ``jax.config.update("jax_explain_cache_misses", value)`` while
    watchers need explanations on: its value is the user's now (restored at the end, and
    what the program gets to see), and the global switch stays on for the watchers."""
    global _saved_global_explain
    if _saved_global_explain is _unset:  # no watcher (a hook left behind): nothing to do
        return
    _saved_global_explain = bool(value)
    if not value:
        _EXPLAIN.set_global(True)


def user_wants_explanations() -> bool:
    """Would JAX log cache-miss explanations on this thread without jitlab?"""
    collector = getattr(_local, "collector", None)
    local = _EXPLAIN.get_local()  # the user's own, unless a probed call swapped it
    if collector is not None and collector.user_explain is not None:
        local = collector.user_explain
    if local is not _unset:
        return bool(local)
    saved = _saved_global_explain
    return bool(_EXPLAIN.get_global() if saved is _unset else saved)


def watching() -> bool:
    """Does a watcher run now (a watch files every compile outside probed calls itself)?"""
    return bool(_watchers)


def add_listener(listener: DurationListener) -> None:
    """Call ``listener`` for every phase JAX times from now on (idempotent). It is heard
    through jitlab's own registration with JAX: a program that clears JAX's listeners gets
    it back with jitlab's (:func:`revive`)."""
    global _listeners
    if listener in _listeners:  # already heard (read without the lock: rebound, not changed)
        return
    install()
    with _install_lock:
        if listener not in _listeners:
            _listeners = (*_listeners, listener)


def remove_listener(listener: DurationListener) -> None:
    global _listeners
    with _install_lock:
        _listeners = tuple(heard for heard in _listeners if heard != listener)


def _on_duration(event: str, duration_secs: float, **kwargs: str | int) -> None:
    collector = routed()
    fun_name = kwargs.get("fun_name")
    name = fun_name if isinstance(fun_name, str) else None
    if collector is not None:
        collector.duration(event, duration_secs, name)
    else:
        for watcher in _watchers:
            watcher.duration(event, duration_secs * 1e3, name)
    for listener in _listeners:
        listener(event, duration_secs * 1e3, name)


def _on_event(event: str, **kwargs: str | int) -> None:
    collector = routed()
    if collector is not None:
        collector.event(event)
    else:
        for watcher in _watchers:
            watcher.event(event)


class _ExplanationFilter(logging.Filter):
    """Takes JAX's cache-miss explanations for the call in flight (or the watchers).

    A filter on the loggers that emit them, not a handler: it sees each message before
    propagation, and lets it through only when the user asked JAX for explanations — a
    program that configured ``logging`` sees no warnings jitlab switched on.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name in _PERSISTENT_LOGGERS:
            _note_persistent(record)  # only noted: what the program's log sees is decided below
        message = record.getMessage()
        if record.levelno == logging.WARNING and _jax_programs.raised_by_explain(
            record.name, message
        ):
            if user_wants_explanations():
                return True
            # Without jitlab's switch JAX logs this at DEBUG: so it is, seen only by a
            # program that listens to DEBUG (persistent-cache writes, never explanations).
            if not logging.getLogger(record.name).isEnabledFor(logging.DEBUG):
                return False
            record.levelno, record.levelname = logging.DEBUG, logging.getLevelName(logging.DEBUG)
            return True
        if record.levelno != logging.WARNING or _EXPLANATION not in message.upper():
            # Not an explanation of a tracing-cache miss (JAX's DEBUG "PERSISTENT
            # COMPILATION CACHE MISS …" among them): the program's log, untouched.
            return True
        collector = routed()
        if collector is not None:
            collector.explain(message)
        else:
            for watcher in _watchers:
                watcher.explanation(message)
        if not user_wants_explanations():
            return False
        repeated = REPEATED[0]
        return repeated is None or not repeated()


# -- the persistent cache's fate of each compile (persistent-not-written, records/persistent.py)
# JAX logs it on the compiling thread, inside the compile (before the compile event fires):
# read once, typed (_jax_programs.persistent_log), kept per thread until the compile is filed
# (take_persistent). Seen only where JAX's logger lets the line out: at WARNING while
# explanations are on (a watch, a probed call), at DEBUG where the program listens to DEBUG.
_PERSISTENT_LOGGERS = frozenset(_jax_programs.RAISED_BY_EXPLAIN_LOGGERS)
_PERSISTENT_KEPT = 16  # per thread: lines of compiles nobody filed (JAX's own kernels)
PersistentLine = tuple[str, str | None, dict[str, Any]]


def _note_persistent(record: logging.LogRecord) -> None:
    line = _jax_programs.persistent_log(record.msg, record.args)
    if line is None:
        return
    lines: list[PersistentLine] | None = getattr(_local, "persistent", None)
    if lines is None:
        lines = _local.persistent = []
    outcome, _, figures = line
    if outcome not in ("missed", "loaded") and lines and "module" not in figures:
        figures["module"] = lines[-1][2].get("module")  # "since process_id != 0" names none
    lines.append(line)
    del lines[:-_PERSISTENT_KEPT]
    _local.persistent_noted = getattr(_local, "persistent_noted", 0) + 1


def take_persistent(fun_name: str) -> list[PersistentLine]:
    """The persistent-cache lines JAX logged on this thread for the latest compile of
    ``fun_name`` (the miss, then written / not written; or the load), taken off the thread.
    Asked again before JAX logs anything more (a second recorder filing the same compile):
    the same lines."""
    noted = getattr(_local, "persistent_noted", 0)
    taken = getattr(_local, "persistent_taken", None)
    if taken is not None and taken[0] == fun_name and taken[1] == noted:
        return taken[2]
    lines: list[PersistentLine] | None = getattr(_local, "persistent", None)
    if not lines:
        return []
    module = _jax_programs.module_name(fun_name)
    mine = [i for i, (_, _, figures) in enumerate(lines) if figures.get("module") == module]
    if not mine:
        return []
    last = mine[-1]
    first = last
    while first - 1 in mine and lines[first][0] != "missed" and lines[first][0] != "loaded":
        first -= 1
    mine_now = lines[first : last + 1]
    del lines[: last + 1]
    _local.persistent_taken = (fun_name, noted, mine_now)
    return mine_now


def persistent_fate(fun_name: str, loaded: bool) -> PersistentFate | None:
    """The fate in JAX's persistent cache of the compile of ``fun_name`` just done on this
    thread (``loaded``: JAX's load events fired for it), while a cache is configured; else
    None. Asked on the compile path only."""
    on, min_s, min_size = _jax_programs.persistent_settings()
    if not on:
        return None
    lines = take_persistent(fun_name)
    return fate_of(loaded, lines, _jax_programs.persistent_key_parts(), (min_s, min_size))


# The modules whose loggers emit cache-miss explanations.
_EXPLAINING_LOGGERS = _jax.EXPLAINING_LOGGERS
# What starts the one kind of message jitlab takes: JAX's explanation of a tracing-cache miss.
_EXPLANATION = "TRACING " + _jax.CACHE_MISS_MARKER


class _StdoutRouter:
    """Stands in for ``sys.stdout`` while probed calls are in flight, and only then.

    Text printed by a probed call goes to its collector (and to the real stream when the
    probe echoes); everything else — ``.buffer``, ``.fileno()``, ``.encoding``,
    ``.reconfigure()``, other threads' writes — is the real stream's.

    Whose a line is (:func:`_owner`): the calling thread's lines are its call's. A line from
    a thread Python did not start — JAX's runtime threads, where a TPU, a GPU or a CPU mesh
    runs host callbacks (``jax.debug.print``), during or after the call's wait — is the
    call's while exactly one probed call that waits for its effects is in flight. A line
    from another of the program's own Python threads is never a probed call's.
    """

    def __init__(self) -> None:
        self.target: Any = sys.stdout

    def write(self, text: str) -> int:
        collector = getattr(_local, "collector", None)
        if collector is None and _active:
            collector = _owner()
        if collector is None or collector.echo:
            target = self._real()
            if target is not None:  # as print() with sys.stdout None: nothing is written
                target.write(text)
        if collector is not None:
            collector.write(text)
        return len(text)

    def _real(self) -> Any:
        """The real stream. A thread that took ``sys.stdout`` while a call was routed may
        write after the router stood down (``target`` None): then it is today's stdout."""
        target = self.target
        if target is None:
            target = sys.stdout if sys.stdout is not self else sys.__stdout__
        return target

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real(), name)

    def __iter__(self) -> Any:
        return iter(self._real())


# A thread Python did not start gets a _DummyThread from threading.current_thread(): JAX's
# runtime threads (XLA's, libtpu's), where host callbacks run off the calling thread.
_FOREIGN_THREAD: type = getattr(threading, "_DummyThread", type(None))


def _owner() -> CallCollector | None:
    """The call a line written on a thread with no probed call of its own belongs to: the
    only probed call in flight, if it waits for its effects (``block``: its window stays
    open until its host callbacks have run) and the line comes from a runtime thread."""
    calls = tuple(_active)  # one C call under the GIL: never torn by another thread
    if len(calls) != 1 or not isinstance(threading.current_thread(), _FOREIGN_THREAD):
        return None
    (only,) = calls
    source = only.source() if only.source is not None else None
    return only if source is not None and source.block else None


_router = _StdoutRouter()
# Guards _active and the router's installation together: the first call in flight (on any
# thread) puts the router in place, the last one out takes it away. One uncontended lock
# per begin and per end; the set of collectors doubles as the depth count.
_stdout_lock = threading.Lock()
_stdout_installed = False  # did we put the router in place (and so must take it out)?


_lock_stdout = _stdout_lock.acquire  # acquire/release: a third of what `with` costs
_unlock_stdout = _stdout_lock.release


def _route_stdout(collector: CallCollector) -> None:
    global _stdout_installed
    _lock_stdout()
    try:
        if not _active:
            current = sys.stdout
            _stdout_installed = current is not _router
            if _stdout_installed:
                _router.target = current
                sys.stdout = _router
        _active.add(collector)
    finally:
        _unlock_stdout()


def _unroute_stdout(collector: CallCollector) -> None:
    global _stdout_installed
    _lock_stdout()
    try:
        _active.discard(collector)
        if not _active and _stdout_installed:
            _stdout_installed = False
            # Put back the very object we found — unless someone replaced us meanwhile
            # (their own redirect): then theirs stays, and we are out of the way anyway.
            if sys.stdout is _router:
                sys.stdout = _router.target
            _router.target = None
    finally:
        _unlock_stdout()


def install() -> None:
    """Register jitlab's listeners once per process (idempotent, thread-safe).

    Listeners and filters only observe; JAX's configuration is left as the user set it.
    """
    global _installed
    with _install_lock:
        if _installed:
            return
        _register_listeners()
        explanation_filter = _ExplanationFilter()
        for name in _EXPLAINING_LOGGERS:
            logging.getLogger(name).addFilter(explanation_filter)
        # JAX points its miss explanations at the first frame outside its own files:
        # make that the user's line, not the probe's.
        for folder in engine_dirs():
            _jax.register_source_exclusion(folder)
            _jax.register_traceback_exclusion(folder)  # a filtered traceback is python's
        _jax.defer_explanations(_deferral_sink, EXPLAIN_AT_ONCE)
        DISPATCH_HOOKED[0] = _jax.hook_python_dispatch(_python_dispatch) is not None
        _jax.hook_fastpath_verdict(_fastpath_verdict)
        _installed = True


# -- JAX's Python dispatch of a jitted call -------------------------------------------------
# C++ runs a cache hit alone; every other call of a jax.jit function (a miss, tracers, a
# trace or transformation around it, a host callback in it) reaches JAX's Python dispatch
# first, and there, before anything is traced, this hook (installed once, with the
# listeners). A probed call whose collector is ``lazy`` routes stdout and explanations here,
# so that a hit touches neither; a watch adds its own step (ON_DISPATCH).
DISPATCH_HOOKED: list[bool] = [False]  # in place: this JAX's dispatch is as checked
_effect_tokens = _jax.effect_tokens  # this thread's tokens of calls with effects
_barrier = jax.effects_barrier
ON_DISPATCH: list[Callable[[], None] | None] = [None]  # the watch's, while one runs


def _python_dispatch() -> None:
    _local.fastpath = None  # this call's verdict comes next (_fastpath_verdict)
    collector = getattr(_local, "collector", None)
    if collector is not None and not collector.dispatched:
        source = collector.source() if collector.source is not None else None
        if source is not None and source.block:
            # A call that waits for its effects (Probe.__call__, wait_for_effects), once per
            # call, before JAX runs anything of it: the tokens held now are earlier calls'.
            collector.dispatched = True
            before = collector.tokens_before = _effect_tokens()
            # Earlier calls' effects the program did not wait for end before this call's
            # window opens: their lines are not this call's. Only waited for: their errors
            # stay JAX's, raised at the program's own barrier as without jitlab.
            for token in before:
                with contextlib.suppress(Exception):
                    token.block_until_ready()
        if collector.lazy and not collector.routed and source is not None and source.capture_output:
            route_call(collector)
    watching = ON_DISPATCH[0]
    if watching is not None:
        watching()


def _fastpath_verdict(verdict: str) -> None:
    _local.fastpath = verdict  # the last one of a call is its own cache_miss's


def fastpath_verdict() -> str | None:
    """Why JAX kept no fast-path entry for the call this thread's Python dispatch last ran
    (a ``_jax.FASTPATH_*`` value; None: JAX did not say), read once (slow-dispatch)."""
    verdict = getattr(_local, "fastpath", None)
    _local.fastpath = None
    return verdict


def wait_for_effects(collector: CallCollector) -> None:
    """Wait until the effects of the call of ``collector`` (dispatched by JAX in Python,
    its result ready) have run: its host callbacks' lines are then all written, on whatever
    thread the runtime ran them, while its window is open. A callback's error is raised
    here: the call's. The tokens stay JAX's (the program's own barrier sees them as without
    jitlab). Where this JAX keeps no tokens as checked: ``jax.effects_barrier()``."""
    before = collector.tokens_before
    collector.tokens_before = ()
    if not _jax.EFFECT_TOKENS_READ:
        _barrier()
        return
    for token in _effect_tokens():
        if not any(token is earlier for earlier in before):
            token.block_until_ready()


def route_call(collector: CallCollector) -> None:
    """Route stdout and JAX's explanations to the probed call of ``collector`` (this
    thread's), until :func:`unroute_call`; the thread's explain setting is kept."""
    collector.routed = True
    _route_stdout(collector)
    collector.user_explain = _swap_explain(True)


def unroute_call(collector: CallCollector) -> None:
    """Undo :func:`route_call`: stdout back (the explain setting is put back at dispatch)."""
    collector.routed = False
    _unroute_stdout(collector)


# -- listeners a program cleared ----------------------------------------------------------------
# ``jax.monitoring.clear_event_listeners()`` is public: a program or a library may remove every
# listener, jitlab's included, and every compile after it would look like a cache hit. It
# rebinds JAX's lists, so comparing the list jitlab registered into with JAX's current one
# (LISTENING[0], one identity test) tells on each watched or probed call that they are gone.
LISTENING: list[Any] = [None]  # the duration-listener list jitlab's listener is in
listeners_now = _jax.duration_listeners  # ``listeners_now() is not LISTENING[0]``: cleared
_losses = 0  # how many times jitlab found its listeners gone and registered them again


def _register_listeners() -> bool:
    """Register whichever of jitlab's listeners JAX no longer holds (lock held); True when
    one was missing."""
    missing = False
    if _on_duration not in _jax.duration_listeners():
        jax.monitoring.register_event_duration_secs_listener(_on_duration)
        missing = True
    if _on_event not in _jax.event_listeners():
        jax.monitoring.register_event_listener(_on_event)
        missing = True
    LISTENING[0] = _jax.duration_listeners()
    return missing


def losses() -> int:
    """How many times jitlab's listeners were found removed (a recorder compares counts)."""
    return _losses


def revive() -> bool:
    """Make sure jitlab's listeners are registered; when a program had removed them,
    register them again, say so on stderr and tell the watchers. True when they were gone.

    Compiles between the removal and now were not seen: watchers must say so (a budget
    that could not see fails)."""
    global _losses
    with _install_lock:
        if not _installed:
            return False
        if not _register_listeners():
            return False
        _losses += 1
        watchers = list(_watchers)
    from jitlab.records import messages

    say_words(messages.say("listeners_cleared", user_language()) + "\n")
    for watcher in watchers:
        watcher.listeners_lost()
    return True


# Where jitlab's own words go while it runs inside a program (a live diagnosis, listeners
# registered again, a recording stopped): the program's stderr, or under `jitlab watch` a
# stream of the command's own on the descriptor stderr had when it started (the terminal it
# runs on), which a program that moves its stderr (`os.dup2(log, 2)`, `sys.stderr =
# io.StringIO()`) does not take along: jitlab's words never go into the program's files.
_words: list[Any] = [None]


def set_words_stream(stream: Any) -> None:
    """``jitlab watch``: say jitlab's words on ``stream`` (None: the program's stderr)."""
    _words[0] = stream


def words_stream() -> Any:
    """Where jitlab's words go now: the command's own stream, else the program's stderr (a
    fresh one on descriptor 2 when the program closed it; None when there is none)."""
    stream = _words[0]
    if stream is not None and not getattr(stream, "closed", False):
        return stream
    err = sys.stderr
    if err is not None and not getattr(err, "closed", False):
        return err
    return None


def say_words(text: str) -> None:
    """Write jitlab's words (whole lines) where the user reads them, now; never raises."""
    stream = words_stream()
    with contextlib.suppress(Exception):
        if stream is None:  # the program closed sys.stderr: its descriptor still takes it
            os.write(2, text.encode("utf-8", "backslashreplace"))
            return
        stream.write(text)
        stream.flush()


_said_language: list[str] = []  # `jitlab --lang zh watch`: the command's language


def set_user_language(lang: str) -> None:
    """Speak ``lang`` from inside the program (``jitlab --lang … watch``), not the locale's;
    kept here, not in the environment, so the program's ``os.environ`` stays its own."""
    _said_language[:] = [lang]


def user_language() -> str:
    """``zh`` or ``en`` for what jitlab itself prints from inside a program: the command's
    ``--lang`` where one was given, else the locale's."""
    from jitlab.records import messages

    if _said_language:
        return _said_language[0]
    return messages.language_of(os.environ.get("LC_ALL") or os.environ.get("LANG"))
