"""Process-wide hooks into JAX, installed once and routed per thread.

``jax.monitoring`` listeners, the cache-miss explanation logger and ``sys.stdout`` are all
process-wide. jitlab installs one listener of each kind, never removes anyone else's, and
routes what arrives to the collector of the probed call running on the *calling thread*
(JAX fires compile events on the thread that called the function).
"""

from __future__ import annotations

import io
import logging
import sys
import threading
from collections.abc import Callable
from typing import Any, TextIO

import jax

TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
LOWER_EVENT = "/jax/core/compile/jaxpr_to_mlir_module_duration"
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
PERSISTENT_HIT_EVENT = "/jax/compilation_cache/cache_hits"
PERSISTENT_LOAD_EVENT = "/jax/compilation_cache/cache_retrieval_time_sec"

_local = threading.local()
_install_lock = threading.Lock()
_installed = False
_active: set[CallCollector] = set()  # collectors of calls in flight, on any thread
# Watchers see what happens outside probed calls (functions jitlab did not wrap).
_watchers: list[Any] = []


class CallCollector:
    """Gathers what JAX reports during one probed call on one thread."""

    __slots__ = (
        "_output",
        "_trace_mark",
        "busy",
        "compile_ms",
        "compiled",
        "echo",
        "explanations",
        "jit_name",
        "lower_ms",
        "lowered",
        "on_phase",
        "persistent",
        "trace_ms",
        "trace_name",
        "traced",
    )

    def __init__(
        self, trace_name: str, on_phase: Callable[[str, float], None] | None, echo: bool
    ) -> None:
        self.trace_name = trace_name
        self.jit_name = f"jit({trace_name})"
        self.on_phase = on_phase
        self.echo = echo
        self.busy = False  # a probe reuses its collector while nothing happened in it
        self.reset()

    def reset(self) -> None:
        self.trace_ms = self.lower_ms = self.compile_ms = 0.0
        self.traced = self.lowered = self.compiled = self.persistent = False
        self.explanations: list[str] = []
        self._output: io.StringIO | None = None
        self._trace_mark = 0  # output offset when the probed function's trace ended

    @property
    def quiet(self) -> bool:
        """Nothing happened but dispatch: the fast path of a cache hit."""
        return not (self.traced or self.lowered or self._output or self.explanations)

    # -- events (called on the calling thread) --------------------------------------------
    def duration(self, event: str, seconds: float, fun_name: str | None) -> None:
        ms = seconds * 1e3
        if event == TRACE_EVENT and fun_name == self.trace_name:
            # The outermost trace ends last: nested functions of the same name fire earlier.
            self.trace_ms, self.traced = ms, True
            self._trace_mark = self._output.tell() if self._output else 0
            self._phase("trace", ms)
        elif event == LOWER_EVENT and fun_name == self.jit_name:
            self.lower_ms, self.lowered = ms, True
            self._phase("lower", ms)
        elif event == COMPILE_EVENT and fun_name == self.jit_name and self.lowered:
            self.compile_ms, self.compiled = ms, True
            self._phase("compile", ms)
        elif event == PERSISTENT_LOAD_EVENT and self.lowered and not self.compiled:
            # Persistent-cache events carry no function name; after our lowering they are ours.
            self.compile_ms, self.persistent = ms, True
            self._phase("load", ms)

    def event(self, event: str) -> None:
        if event == PERSISTENT_HIT_EVENT and self.lowered and not self.compiled:
            self.persistent = True

    def _phase(self, phase: str, ms: float) -> None:
        if self.on_phase is not None:
            self.on_phase(phase, ms)

    # -- output ---------------------------------------------------------------------------
    def write(self, text: str) -> None:
        if self._output is None:
            self._output = io.StringIO()
        self._output.write(text)

    def output_lines(self) -> list[tuple[str, str]]:
        """Printed lines tagged ``trace`` (before our trace ended) or ``runtime``."""
        if self._output is None:
            return []
        text = self._output.getvalue()
        mark = self._trace_mark if self.traced else 0
        lines = []
        offset = 0
        for line in text.splitlines(keepends=True):
            when = "trace" if offset < mark else "runtime"
            offset += len(line)
            if line.strip():
                lines.append((when, line.rstrip("\n")))
        return lines


def current() -> CallCollector | None:
    return getattr(_local, "collector", None)


def begin(collector: CallCollector) -> CallCollector | None:
    """Route this thread's events to ``collector``; returns the one it replaces (nesting)."""
    previous = getattr(_local, "collector", None)
    _local.collector = collector
    _active.add(collector)
    if sys.stdout is not _router:
        _router.target = sys.stdout
        sys.stdout = _router
    return previous


def end(collector: CallCollector, previous: CallCollector | None = None) -> None:
    _local.collector = previous
    _active.discard(collector)


def add_watcher(watcher: Any) -> None:
    """``watcher.duration(event, ms, fun_name)``, ``.event(event)`` and ``.explanation(text)``
    are called for everything that happens on threads with no probed call in flight."""
    install()
    _watchers.append(watcher)


def remove_watcher(watcher: Any) -> None:
    if watcher in _watchers:
        _watchers.remove(watcher)


def _on_duration(event: str, duration: float, **kwargs: object) -> None:
    collector = getattr(_local, "collector", None)
    fun_name = kwargs.get("fun_name")
    name = fun_name if isinstance(fun_name, str) else None
    if collector is not None:
        collector.duration(event, duration, name)
    else:
        for watcher in _watchers:
            watcher.duration(event, duration * 1e3, name)


def _on_event(event: str, **kwargs: object) -> None:
    collector = getattr(_local, "collector", None)
    if collector is not None:
        collector.event(event)
    else:
        for watcher in _watchers:
            watcher.event(event)


class _ExplanationHandler(logging.Handler):
    """Keeps the raw text of JAX's cache-miss explanations for the calling thread's call."""

    def emit(self, record: logging.LogRecord) -> None:
        collector = getattr(_local, "collector", None)
        if collector is None and not _watchers:
            return
        message = record.getMessage()
        if "CACHE MISS" not in message.upper():
            return
        if collector is not None:
            collector.explanations.append(message)
        else:
            for watcher in _watchers:
                watcher.explanation(message)


class _StdoutRouter(io.TextIOBase):
    """Sends text printed during a probed call to its collector instead of the terminal.

    Lines from the calling thread go to its call; lines from a runtime-callback thread
    (``jax.debug.print`` on some backends) go to the only call in flight, if there is one.
    """

    def __init__(self) -> None:
        self.target: TextIO = sys.stdout

    def write(self, text: str) -> int:
        collector = getattr(_local, "collector", None)
        if collector is None and len(_active) == 1 and _from_jax_callback():
            collector = next(iter(_active), None)
        if collector is None or collector.echo:
            self.target.write(text)
        if collector is not None:
            collector.write(text)
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    def isatty(self) -> bool:
        return self.target.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.target, "encoding", "utf-8")


def _from_jax_callback() -> bool:
    """Is this write made by a JAX host callback (``jax.debug.print``) on a runtime thread?

    Other threads' prints (a GUI thread, a logger) must not be credited to the call in flight.
    """
    frame = sys._getframe(2)
    for _ in range(30):
        if frame is None:
            return False
        if frame.f_code.co_filename.endswith(("debugging.py", "callback.py")):
            return True
        frame = frame.f_back
    return False


_router = _StdoutRouter()


def install() -> None:
    """Register jitlab's listeners once per process (idempotent, thread-safe)."""
    global _installed
    with _install_lock:
        if _installed:
            return
        jax.monitoring.register_event_duration_secs_listener(_on_duration)
        jax.monitoring.register_event_listener(_on_event)
        jax_logger = logging.getLogger("jax")
        jax_logger.addHandler(_ExplanationHandler(level=logging.WARNING))
        jax.config.update("jax_explain_cache_misses", True)
        _installed = True
