"""The stand-in for ``jax.jit`` (and ``jax.pmap``) while any watch runs.

``jax.jit`` is replaced once, while at least one recorder is active, and the very object found
is put back when the last one stops: blocks nest, repeat and run in threads without stacking
wrappers. What the stand-in returns, :class:`WatchedFunction`, is the real jitted function,
probed; its records go to every active recorder.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import operator
import os
import sys
import threading
import time
import types
import weakref
from collections.abc import Callable
from types import FrameType
from typing import Any, Protocol

import jax

from jitlab.probe import _jax, frames, monitor, wrappers
from jitlab.probe.diagnosing import hit_cause
from jitlab.probe.probe import Probe
from jitlab.records.calls import CallRecord
from jitlab.records.paths import engine_dirs
from jitlab.watching.functions import Site, defined_at


class Follower(Protocol):
    """What the stand-in tells an active recorder (:class:`~jitlab.watching.recorder.Recorder`)."""

    forks: int

    def track(self, site: Site) -> object: ...

    def on_probe_record(self, site: Site, record: CallRecord, probe: Probe | None) -> None: ...

    def become_child(self) -> None: ...

    def dispatched_in_python(self, site: Site, cause: str, ms: float) -> None: ...


class WatchProbe(Probe):
    """The probe of a watched function: also when the program's own :class:`Probe` calls it.

    Then the program's probe is the call in flight on this thread, and JAX's events go to
    it; the watch files what that call did from what it saw (a hit counted, a compile
    recorded), so both the program's probe and the recording count every call.
    """

    diagnose = False  # the recorder's diagnosers state them, once per recording

    def _inlined(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        start = time.perf_counter()
        error: Exception | None = None
        result = None
        try:
            result = self._fn(*args, **kwargs)
        except Exception as exc:
            error = exc
        latency_ms = (time.perf_counter() - start) * 1e3
        return self.inlined_after(monitor.current(), latency_ms, args, kwargs, error, result)

    def inlined_after(
        self,
        outer: monitor.CallCollector | None,
        latency_ms: float,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        error: Exception | None,
        result: Any,
    ) -> Any:
        """End a call made while ``outer`` (another probed call's collector, if any) was in
        flight on this thread: filed from what ``outer`` saw when the program's own probe
        called this function; else it was inlined into another function's trace, and
        nothing is filed (as for :meth:`Probe._inlined`)."""
        source = outer.source() if outer is not None and outer.source is not None else None
        if outer is None or getattr(getattr(source, "_fn", None), "_probe", None) is not self:
            if error is not None:
                raise error
            return result
        if error is None and outer.quiet and _jax.TRACE_STATE.value is _jax.EVAL_TRACE:
            return self.counted_hit(result)  # else inside a transformation: filed below
        seen = monitor.CallCollector(self._trace_name, None, False)
        for name in ("trace_ms", "lower_ms", "compile_ms", "traced", "lowered", "compiled"):
            setattr(seen, name, getattr(outer, name))
        seen.persistent, seen.quiet = outer.persistent, False
        seen.explanations = list(outer.explanations)
        return self._file_call(seen, latency_ms, args, kwargs, error, result, None)

    def counted_hit(self, result: Any) -> Any:
        next(self._unrecorded)  # as counted_call counts a hit: lock-free, folded in later
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

    def __init__(self, jitted: Any, fun: Any, site: Site, *, hooked: bool = True) -> None:
        functools.update_wrapper(self, fun)
        # JAX's own attributes of this object (_fun, _jit_info, pmap's lower, …), read once;
        # those of its type are read through (_FromJax). No __getattr__: a class with one
        # reads even its own attributes unspecialised (~30 ns a read, see __call__).
        for name, value in vars(jitted).items():
            self.__dict__.setdefault(name, value)
        if type(jitted) not in _read_through:
            _read_through_type(type(jitted))
        self._jitted = jitted
        generation = site.generation(fun, jitted)
        probe = WatchProbe(
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
        self._site = site
        # The hot path's parts, bound once (see __call__).
        # The probe's own parts (a WatchProbe is this module's): its collector per thread,
        # and the lock-free count a counted hit bumps (Probe.counted_call's).
        self._spares = probe._spares
        self._hits_counted = probe._unrecorded
        # JAX holds more than monitor.EXPLAIN_AT_ONCE executables of this function: its calls
        # run with JAX's explanations off on their thread (see _filed).
        self._unexplained = False
        # Only jax.jit's calls leave C++'s fast path through the hook (_jax.hook_python_dispatch)
        self._hooked = hooked
        self._hot: tuple[Any, Any, list[bool]]
        self._refresh_hot()

    def _refresh_hot(self) -> None:
        # What __call__ reads, in one attribute: the jitted function, the hit count, and the
        # gate its calls pass to the fast path: FAST_PATH, or one always closed for a function
        # whose calls are all careful (see _careful_call).
        careful = self._unexplained or not self._hooked
        self._hot = (self._jitted, self._hits_counted, _CLOSED if careful else FAST_PATH)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # The watch's hot path, a cache hit: JAX fires nothing and runs no Python. What else a
        # call may be is told by hooks, not read here: any event, and any call C++'s fast path
        # does not run (inside a trace or a transformation, a miss), mark SEEN on whichever
        # thread; a watch's end and jit disabled on any thread close FAST_PATH[0] (see
        # _careful_call). Events are not routed here: a call that fires one is found on the
        # stack by the listener (_collector_in_flight) and filed by _after. No clock either
        # (~0.04 µs): a call that is no hit is timed from JAX's Python dispatch of it.
        jitted, hits, gate = self._hot
        if not gate[0]:
            try:
                return self._careful_call(args, kwargs)
            except Exception as raised:
                _as_python_raised(raised)
                raise  # bare: this frame is not added back (see _as_python_raised)
        seen = _SEEN[0]
        try:  # f(*args) alone spares a dict a call (f(*args, **kwargs) merges into a new one)
            result = jitted(*args, **kwargs) if kwargs else jitted(*args)
        except Exception as exc:
            try:
                return self._after(sys._getframe(), None, args, kwargs, exc, None)
            except Exception as raised:
                _as_python_raised(raised)
                raise
        except BaseException:  # Ctrl-C while JAX compiled or ran: no call to file
            _drop_route(sys._getframe())
            raise
        if _SEEN[0] is seen:  # nothing happened anywhere: C++ ran a compiled program
            next(hits)  # lock-free (itertools.count), folded in when read
            return result
        return self._after(sys._getframe(), None, args, kwargs, None, result)

    def _careful_call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """A call (its ``__call__`` is the caller's frame) made while the fast path is closed:
        no watch runs; jit may be disabled on some thread; this function's dispatch is not
        hooked (``jax.pmap``); or JAX holds many executables of it (_call_unexplained). What
        the fast path leaves to hooks is read here, on every call."""
        if not recorders:
            return self._jitted(*args, **kwargs)
        if _MONITORING._event_duration_secs_listeners is not _LISTENING[0]:
            monitor.revive()  # the program cleared them: registered again, said on stderr
        frame = sys._getframe(1)
        _tls.fastpath = None  # a verdict after the call is this call's (see _dispatched_hit)
        if self._unexplained:
            return self._call_unexplained(frame, args, kwargs)
        seen = _SEEN[0]
        start = _clock()
        try:
            result = self._jitted(*args, **kwargs)
        except Exception as exc:
            return self._after(frame, start, args, kwargs, exc, None)
        except BaseException:
            _drop_route(frame)
            raise
        if _SEEN[0] is seen and _jit_ran_it():
            next(self._hits_counted)
            return result
        return self._after(frame, start, args, kwargs, None, result)

    def _after(
        self,
        frame: FrameType,
        start: float | None,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        error: Exception | None,
        result: Any,
    ) -> Any:
        """File a call (``frame``, its __call__) that saw events (its own, or another
        thread's), raised, or ran under jax.disable_jit or a transformation. ``start`` is
        None for the fast path's calls: timed from JAX's Python dispatch of the call
        (_python_dispatch), which every call but a hit reaches before it traces. A call JAX's
        C++ refused without reaching it (an argument deleted or donated, refused in
        microseconds) has no time of its own: 0 ms."""
        end = _clock()
        # Did JAX dispatch this very call in Python? On the fast path, its frame says so;
        # on the careful path the verdict slot was cleared before the call.
        dispatched = start is not None or frame in _dispatched_at
        if start is None:
            start = _dispatched_at.pop(frame, end)
        latency_ms = (end - start) * 1e3
        collector = self._unroute(frame)
        top = frame in _top_calls  # a call of its own (see _top_calls), wherever it was made
        try:
            if collector is None:
                outer = monitor.current()
                if outer is not None or (not top and _outer_watched_call(frame.f_back) is not None):
                    # Inside another probed or watched call's trace: inlined there.
                    return self._probe.inlined_after(outer, latency_ms, args, kwargs, error, result)
                collector = self._spare()
            if error is None and collector.quiet and _jit_ran_it():
                next(self._hits_counted)  # another thread's events: a plain hit
                if dispatched:  # or a hit JAX ran in Python (slow-dispatch)
                    self._dispatched_hit(latency_ms)
                return result
            return self._filed(collector, latency_ms, args, kwargs, error, result)
        finally:
            if getattr(_tls, "owner", None) is frame:
                _tls.owner = None
            if top:
                _end_top_call(frame)

    def _dispatched_hit(self, ms: float) -> None:
        """A hit JAX ran through its Python dispatch (``ms`` from that dispatch to its
        return): tell the recorders why JAX's C++ fast path did not run it (slow-dispatch),
        if JAX said (:func:`monitor.fastpath_verdict`)."""
        cause = hit_cause()
        if cause is not None:
            for recorder in list(recorders):
                recorder.dispatched_in_python(self._site, cause, ms)

    def _spare(self) -> monitor.CallCollector:
        """This thread's collector for this function's calls."""
        collector = getattr(self._spares, "collector", None)
        if collector is None or not collector.quiet:
            collector = self._probe._spare()  # first call on this thread, or interrupted
        return collector

    def _unroute(self, frame: FrameType) -> monitor.CallCollector | None:
        """The collector this call's events were routed to (if its frame is the one the
        listener found), no longer routed. The frame stays the owner, closed (no collector),
        until the call is filed: events JAX fires meanwhile are not this call's."""
        owner = getattr(_tls, "owner", None)
        if owner is not frame:
            _tls.owner = frame if owner is None else owner
            return None
        collector, _tls.collector = _tls.collector, None
        return collector

    def _call_unexplained(
        self, frame: FrameType, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """A call of a function JAX holds many executables of, with JAX's explanations off
        on this thread. With them on, even put off (Probe._spare), a miss costs more as JAX's
        cache grows: ×1.3 over 1,000 compiles in benchmarks/explain_cost.py, ×2.0 for a
        watched program compiling one function for 1,000 signatures (×0.8 with them off).
        jitlab's own diff names why."""
        start = _clock()
        if getattr(_tls, "collector", None) is not None or not _jit_ran_it():
            # Inside another call or a transformation: the call is inlined there.
            try:
                result = self._jitted(*args, **kwargs)
            except Exception as exc:
                return self._after(frame, start, args, kwargs, exc, None)
            return self._after(frame, start, args, kwargs, None, result)
        collector = self._spare()
        previous = _swap_explain(False)
        _tls.collector = collector
        error: Exception | None = None
        result = None
        try:
            result = self._jitted(*args, **kwargs)
        except Exception as exc:
            error = exc
        finally:  # also on Ctrl-C, which is raised with no call to file
            _tls.collector = None
            _set_explain(previous)
        latency_ms = (_clock() - start) * 1e3
        if error is None and collector.quiet and _jit_ran_it():
            next(self._hits_counted)
            self._dispatched_hit(latency_ms)
            return result
        return self._filed(collector, latency_ms, args, kwargs, error, result)

    def _filed(
        self,
        collector: monitor.CallCollector,
        latency_ms: float,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        error: Exception | None,
        result: Any,
    ) -> Any:
        """File a call that was not a plain hit; past EXPLAIN_AT_ONCE executables JAX is no
        longer asked to explain this function's misses (unless the program asked for JAX's
        explanations itself)."""
        try:
            return self._probe._file_call(collector, latency_ms, args, kwargs, error, result, None)
        finally:
            self._unexplained = (
                self._probe.cache_entries() > monitor.EXPLAIN_AT_ONCE
                and not monitor.user_wants_explanations()
            )
            self._refresh_hot()

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
        return NotImplemented  # then identity, as JAX's

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


class _FromJax:
    """An attribute of JAX's jitted type (lower, trace, eval_shape, clear_cache, _cache_size,
    …), read off the stand-in's jitted object; one the program sets on the stand-in wins."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else getattr(obj._jitted, self.name)


_read_through: set[type] = set()  # JAX's types whose attributes the stand-in reads through


def _read_through_type(kind: type) -> None:
    """Give the stand-in the attributes of ``kind``, a type of JAX's jitted (or pmapped)
    functions: JAX's ``PjitFunction``, ``PmapFunction`` (its ``_cache_clear``, …) before
    0.8. On another type the same name raises AttributeError, as JAX's own object would."""
    for name in dir(kind):
        if not name.startswith("__") and not hasattr(WatchedFunction, name):
            setattr(WatchedFunction, name, _FromJax(name))
    _read_through.add(kind)


# -- the process-wide jax.jit stand-in -------------------------------------------------------
_patch_lock = threading.RLock()
recorders: list[Follower] = []  # active recorders, in start order
_real_jit: Callable[..., Any] | None = None
_real_pmap: Callable[..., Any] | None = None  # jax.pmap is stood in for likewise
_sites: dict[tuple[str, str | None], Site] = {}


def _after_fork_in_child() -> None:
    # A forked child (multiprocessing's "fork", os.fork) records as a process of its own,
    # never into its parent's file: run.pid<PID>.jsonl, its start line naming the parent.
    global _patch_lock
    _patch_lock = threading.RLock()  # another thread of the parent may have held it
    for recorder in list(recorders):
        with contextlib.suppress(Exception):
            recorder.become_child()


def _after_fork_in_parent() -> None:
    for recorder in list(recorders):
        recorder.forks += 1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child, after_in_parent=_after_fork_in_parent)
# The hot path's listener check (see monitor.revive): JAX's list, read as one attribute.
_MONITORING = _jax.MONITORING
_LISTENING = monitor.LISTENING
_SEEN = monitor.SEEN  # marked by every JAX event jitlab hears, on any thread
_tls = monitor._local  # this thread's collector of the call in flight (events go there)
_disable_jit = _jax.DISABLE_JIT  # thread-aware, unlike jax.config.jax_disable_jit
# This thread's innermost trace: JAX's eval trace unless inside a transformation.
_TRACE_STATE, _EVAL_TRACE = _jax.TRACE_STATE, _jax.EVAL_TRACE
_clock = time.perf_counter
_swap_explain, _set_explain = _jax.EXPLAIN.swap_local, _jax.EXPLAIN.set_local


# -- the fast path's hooks -------------------------------------------------------------------
# FAST_PATH[0]: may a watched call count itself a hit when SEEN did not change (see __call__)?
# True only while a watch runs with both hooks in place and no thread can run with jit
# disabled (listeners a program cleared are registered again at the next Python dispatch,
# before anything compiles; a hit fires no event). Changed under _patch_lock.
FAST_PATH: list[bool] = [False]
_CLOSED: list[bool] = [False]  # the gate of a function whose calls are all careful
# When JAX dispatched each fast-path call in flight in Python (its __call__ frame): its start.
_dispatched_at: dict[FrameType, float] = {}
# The fast-path calls in flight that JAX dispatched at the top (no trace around them): each is
# a call of its own, also one made inside another call while that one runs (from a host
# callback: jax.pure_callback, io_callback, debug.callback), never inlined into its trace.
_top_calls: set[FrameType] = set()
# Such a call made while another call's events were routed on this thread: that routing,
# (collector, owner), put back once the inner call is filed.
_suspended: dict[FrameType, tuple[Any, Any]] = {}
_unhooks: list[Callable[[], None]] = []
# Threads whose own jax_disable_jit was last set true (their idents; a thread that ended with
# jit disabled stays here: its successors take the careful path, which is only slower). A
# thread already inside ``with jax.disable_jit()`` when the first watch starts is not known.
_jit_off_threads: set[int] = set()


def _python_dispatch() -> None:
    """JAX dispatches a jitted call in Python (monitor._python_dispatch), on any thread,
    before it traces or compiles: no watched call in flight may count itself a hit, and
    listeners the program cleared are registered again first, so the compile is heard. A
    watched call made by the fast path (it takes no clock) is timed from here."""
    now = _clock()
    monitor.mark()
    if _MONITORING._event_duration_secs_listeners is not _LISTENING[0]:
        monitor.revive()
    frame: FrameType | None = sys._getframe(3)  # past monitor's hook and its wrapper: JAX
    while frame is not None and frames.is_jax(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is not None and frame.f_code is _CALL_CODE:
        _dispatched_at.setdefault(frame, now)  # the first: a call is dispatched once
        if _jit_ran_it() and frame not in _top_calls:  # no trace around it: a call of its own
            _top_calls.add(frame)
            owner = getattr(_tls, "owner", None)
            if owner is not None and owner is not frame:  # inside another routed call
                _suspended[frame] = (_tls.collector, owner)
                _tls.collector = _tls.owner = None


def _jit_switched() -> None:
    """``jax_disable_jit`` changed on this thread or globally (_jax.hook_disable_jit)."""
    with _patch_lock:
        if _disable_jit.value:
            _jit_off_threads.add(threading.get_ident())
        else:
            _jit_off_threads.discard(threading.get_ident())
        _reopen_fast_path()


def _reopen_fast_path() -> None:
    """Open the fast path if nothing closes it (lock held)."""
    FAST_PATH[0] = bool(
        recorders
        and monitor.ON_DISPATCH[0] is _python_dispatch
        and not _jit_off_threads
        and not _disable_jit.get_global()
    )


def _hook() -> None:
    """Install the fast path's hooks (the first recorder starts; lock held)."""
    monitor.install()
    if monitor.DISPATCH_HOOKED[0]:  # else this JAX's dispatch is not as checked: careful
        monitor.ON_DISPATCH[0] = _python_dispatch
        _unhooks.append(_jax.hook_disable_jit(_jit_switched))
    _jit_off_threads.clear()
    if _disable_jit.value:
        _jit_off_threads.add(threading.get_ident())
    _reopen_fast_path()


def _unhook() -> None:
    """The last recorder stops (lock held): the hooks go, the fast path closes."""
    FAST_PATH[0] = False
    monitor.ON_DISPATCH[0] = None
    while _unhooks:
        _unhooks.pop()()


def _drop_route(frame: FrameType) -> None:
    """Route nothing more to the call of ``frame`` (interrupted), if it was routed."""
    _dispatched_at.pop(frame, None)
    if getattr(_tls, "owner", None) is frame:
        _tls.collector = _tls.owner = None
    _end_top_call(frame)


def _end_top_call(frame: FrameType) -> None:
    """The call of ``frame`` is over: the call it was made inside gets its routing back."""
    _top_calls.discard(frame)
    routing = _suspended.pop(frame, None)
    if routing is not None:
        _tls.collector, _tls.owner = routing


def _jit_ran_it() -> bool:
    """Did JAX dispatch the call as jit does (not under jax.disable_jit, nor inside a
    transformation or another function's trace)?"""
    return _TRACE_STATE.value is _EVAL_TRACE and not _disable_jit.value


_CALL_CODE = WatchedFunction.__call__.__code__


def _outer_watched_call(frame: FrameType | None) -> FrameType | None:
    """The outermost watched call in flight on this thread at or above ``frame``."""
    outermost = None
    while frame is not None:
        if frame.f_code is _CALL_CODE:
            outermost = frame
        frame = frame.f_back
    return outermost


def _call_in_flight(frame: FrameType | None) -> FrameType | None:
    """The watched call at or above ``frame`` that JAX's events there are about (see
    _collector_in_flight)."""
    outermost = None
    while frame is not None:
        if frame.f_code is _CALL_CODE:
            if frame in _top_calls:
                return frame
            outermost = frame
        frame = frame.f_back
    return outermost


_OWN_FRAMES = (*engine_dirs(), os.path.dirname(logging.__file__) + os.sep)


def _traced_again_by_eval_shape() -> bool:
    """Is the tracing-cache miss JAX is explaining (this thread's, from inside the logging
    filter) the second trace ``jax.eval_shape(standin)`` makes? JAX calls ``.trace`` directly
    only on a real ``jax.jit`` object and traces its own ``jit(standin)`` for anything else,
    whose trace calls the stand-in: its jitted function is traced a second time (explained
    "at :", no call site), where ``jax.eval_shape(jax.jit(f))`` traces it once. It is, when
    only JAX's (and jitlab's) frames lie between the miss and the innermost watched call,
    and between that call and ``eval_shape``, given that very stand-in. Run only when the
    program's log would show an explanation: never on a hit."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_code is not _CALL_CODE:
        name = frame.f_code.co_filename
        if not (frames.is_jax(name) or name.startswith(_OWN_FRAMES)):
            return False  # the user's code (a jit inside the function) is explained as JAX's
        frame = frame.f_back
    if frame is None:
        return False
    watched = frame.f_locals.get("self")
    frame = frame.f_back
    while frame is not None:
        if frame.f_code in _jax.EVAL_SHAPE_CODES:
            # eval_shape(partial(standin)) traces it twice without jitlab too: shown.
            return frame.f_locals.get("fun") is watched
        name = frame.f_code.co_filename
        if not (frames.is_jax(name) or name.startswith(_OWN_FRAMES)):
            return False  # a user's function called the stand-in: its trace, explained
        frame = frame.f_back
    return False


def _collector_in_flight() -> monitor.CallCollector | None:
    """For JAX's events on a thread with no call routed (monitor.routed): the call in flight
    on this thread they are about, found on the stack, gets them; the rest of the call is
    routed to it (WatchedFunction._after takes it back). That is the innermost call JAX
    dispatched at the top (_top_calls: one made from a host callback of another call is its
    own), else the outermost watched call; calls inside its trace are inlined there, as a
    probed call's are."""
    if getattr(_tls, "owner", None) is not None:
        return None  # a call is being filed (or it is another's, inlined)
    frame = _call_in_flight(sys._getframe(1))
    if frame is None:
        return None
    watched = frame.f_locals.get("self")
    if not isinstance(watched, WatchedFunction):
        return None
    collector = watched._spare()
    _tls.collector, _tls.owner = collector, frame
    return collector


def _as_python_raised(exc: BaseException) -> None:
    """The program's exception leaves a stand-in as JAX's own function would raise it: with
    no frame of jitlab's in its traceback (nor in those it was raised from), so a traceback
    the program catches and logs is python's, byte for byte. The caller re-raises with a
    bare ``raise``, which adds no entry for its own frame."""
    with contextlib.suppress(Exception):
        frames.strip_chain(exc, frames.is_engine)


def _watched_jit(fun: Any = None, /, **options: Any) -> Any:
    real = _real_jit if _real_jit is not None else jax.jit
    if fun is None:  # @jax.jit(static_argnames=...) used as a decorator factory
        return functools.partial(_watched_jit, **options)  # no frame of its own
    try:
        jitted = real(fun, **options)  # JAX's own errors (a bad static_argnums) as JAX's
    except Exception as raised:
        _as_python_raised(raised)
        raise
    return _watched(jitted, fun)


def _watched_pmap(*args: Any, **options: Any) -> Any:
    real = _real_pmap if _real_pmap is not None else jax.pmap
    try:
        pmapped = real(*args, **options)  # called as the program called it: JAX's errors
    except Exception as raised:
        _as_python_raised(raised)
        raise
    # pmap's calls leave its C++ fast path by another way than jit's: not hooked (careful).
    return _watched(pmapped, args[0] if args else options.get("fun"), hooked=False)


def _watched(jitted: Any, fun: Any, *, hooked: bool = True) -> Any:
    try:
        # Named as its probe names its records (wrappers.Jitted.name): one row per function.
        name = wrappers.function_name(fun)
        key = (name, defined_at(fun))
        with _patch_lock:
            site = _sites.get(key)
            if site is None:
                site = _sites[key] = Site(*key)
                for recorder in recorders:  # counted from now, compiled here or not
                    recorder.track(site)
        return WatchedFunction(jitted, fun, site, hooked=hooked)
    except Exception:  # whatever we cannot wrap keeps working unwatched
        return jitted


def _dispatch(site: Site, probe_ref: weakref.ref[Probe], record: CallRecord) -> None:
    probe = probe_ref()
    for recorder in list(recorders):
        recorder.on_probe_record(site, record, probe)


def is_first(recorder: object) -> bool:
    """Is ``recorder`` the first active one (or none is active)?"""
    return not recorders or recorders[0] is recorder


def activate(recorder: Follower) -> None:
    """Stand in for jax.jit (if no other recorder does yet) and tell ``recorder`` of every
    function jitted in earlier blocks."""
    global _real_jit, _real_pmap
    with _patch_lock:
        if not recorders:
            _real_jit, _real_pmap = jax.jit, jax.pmap
            jax.jit = _watched_jit
            jax.pmap = _watched_pmap
            monitor.IN_FLIGHT[0] = _collector_in_flight
            if _jax.EVAL_SHAPE_TRACES_A_JIT_ONCE:  # else JAX's own log has the second trace
                monitor.REPEATED[0] = _traced_again_by_eval_shape
        recorders.append(recorder)
        if len(recorders) == 1:
            _hook()
        for site in _sites.values():  # functions jitted in earlier blocks: count from now
            recorder.track(site)


def deactivate(recorder: Follower) -> None:
    """Forget ``recorder``; the last one puts JAX's own jax.jit back."""
    global _real_jit, _real_pmap
    with _patch_lock:
        if recorder in recorders:
            recorders.remove(recorder)
        if not recorders:
            monitor.IN_FLIGHT[0] = monitor.REPEATED[0] = None
            _unhook()
        if not recorders and _real_jit is not None:
            if jax.jit is _watched_jit:
                jax.jit = _real_jit
            # else: the program replaced jax.jit itself meanwhile; its choice stands.
            if jax.pmap is _watched_pmap and _real_pmap is not None:
                jax.pmap = _real_pmap
            _real_jit = _real_pmap = None
