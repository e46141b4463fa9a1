"""The one thread that owns all JAX work.

The GUI never calls JAX: it writes requests into a command slot (the newest parameter values
win, so a slider drag never builds a backlog of stale calls) and drains the worker's event
queue once per frame. A compile in progress cannot be interrupted; stopping waits for it.

A call that never returns (a plugin stuck on a lock, a network wait, an endless loop) cannot
be interrupted either, and a Python thread cannot be killed: :meth:`Worker.successor` leaves
the stuck thread behind and hands the commands to a fresh one. Threads left behind are kept
referenced (Qt must never destroy a running ``QThread``) and the process ends with
``os._exit`` while any of them still runs (:func:`left_behind`).
"""

from __future__ import annotations

import threading
import time
import traceback
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QThread

_LEFT_BEHIND: list[QThread] = []  # stuck threads: referenced so Qt never destroys them running


def leave_behind(thread: QThread) -> None:
    """Give up on a thread that does not end: keep it alive, never wait for it again."""
    if thread not in _LEFT_BEHIND:
        _LEFT_BEHIND.append(thread)


def left_behind() -> list[QThread]:
    """Threads given up on that still run (then the process must end with ``os._exit``)."""
    _LEFT_BEHIND[:] = [t for t in _LEFT_BEHIND if not t.isFinished()]
    return list(_LEFT_BEHIND)


# -- events the worker adds to the engine's (CallStarted, PhaseEnded, CallFinished) -----------


@dataclass(frozen=True)
class Discovered:
    """Scenario plugins found on the worker (discovery imports JAX, so not on the GUI thread)."""

    entries: list[Any]  # jitlab.core.discovery.PluginEntry


@dataclass(frozen=True)
class RunReady:
    """A new run segment begins (scenario chosen, variant switched or reset): no cards yet."""

    scenario: str
    variant: str
    reason: str  # "scenario", "variant" or "reset"


@dataclass(frozen=True)
class WorkerFailed:
    """Something outside a probed call failed; the worker keeps going."""

    text: str


@dataclass(frozen=True)
class Idle:
    """The worker has nothing left to do (handy for tests and autoplay)."""

    calls: int


class Worker(QThread):
    """Long-lived worker thread holding the engine ``Run`` of the current scenario."""

    BURST_S = 0.005  # streaming: work this long…
    REST_S = 0.008  # …then leave the GIL to the GUI this long

    def __init__(
        self,
        scenarios_dir: Path | None = None,
        entry_points: bool = True,
        parent: Any = None,
        discover: bool = True,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("jitlab-worker")
        self.events: deque[Any] = deque()  # worker appends, GUI timer drains (thread-safe)
        self._scenarios_dir = scenarios_dir
        self._entry_points = entry_points
        self._discover = discover
        self._cond = threading.Condition()
        self._stop = False
        self._scenario: Any = None  # requested scenario class
        self._scenario_dirty = False
        self._fresh_reason = "scenario"  # what RunReady says when a new Run is made
        self._variant = "pitfall"
        self._variant_dirty = False
        self._reset = False
        self._params: dict[str, Any] = {}
        self._pending_calls = 0  # one-shot calls requested (slider moves, step)
        self._playing = False
        self._interval = 0.0  # seconds between calls while playing; 0 = as fast as possible
        self._next_due = 0.0
        self._calls = 0
        self._burst_start = 0.0
        self._hold_until = 0.0
        self.busy = False  # a call is in flight (read by the GUI for display only)
        self.call_started = 0.0  # perf_counter() when the call in flight began
        self.abandoned = False  # left behind: its late events are dropped, it ends after
        self.current_run: Any = None  # the engine Run (tests inspect it once the worker idles)

    # -- commands (any thread) ------------------------------------------------------------
    def select(self, scenario: Any, variant: str, params: Mapping[str, Any]) -> None:
        """Switch to a scenario class; the newest request wins."""
        with self._cond:
            self._scenario = scenario
            self._scenario_dirty = True
            self._fresh_reason = "scenario"
            self._variant = variant
            self._variant_dirty = False
            self._reset = False
            self._params = dict(params)
            self._pending_calls = 0
            self._cond.notify_all()

    def set_variant(self, variant: str) -> None:
        with self._cond:
            self._variant = variant
            self._variant_dirty = True
            self._pending_calls = 0
            self._cond.notify_all()

    def reset(self) -> None:
        """Clear the jit caches before the next call: the card holder empties."""
        with self._cond:
            self._reset = True
            self._pending_calls = 0
            self._cond.notify_all()

    def set_params(self, params: Mapping[str, Any], call: bool = True) -> None:
        """New parameter values; with ``call``, make one call with the newest values.

        Several moves before the worker gets to them collapse into one call.
        """
        with self._cond:
            self._params = dict(params)
            if call:
                self._pending_calls = 1
            self._cond.notify_all()

    def step(self) -> None:
        with self._cond:
            self._pending_calls += 1
            self._cond.notify_all()

    def play(self, playing: bool, rate: float | None = None) -> None:
        """Call continuously at ``rate`` calls per second (0 or None: as fast as possible)."""
        with self._cond:
            self._playing = playing
            if rate is not None:
                self._interval = 1.0 / rate if rate > 0 else 0.0
            if not playing:
                self._pending_calls = 0
            self._next_due = time.perf_counter()
            self._cond.notify_all()

    def set_rate(self, rate: float) -> None:
        with self._cond:
            self._interval = 1.0 / rate if rate > 0 else 0.0
            self._next_due = min(self._next_due, time.perf_counter() + self._interval)
            self._cond.notify_all()

    @property
    def playing(self) -> bool:
        return self._playing

    def stop(self) -> None:
        """Ask the thread to end after the call in flight (a compile cannot be interrupted)."""
        with self._cond:
            self._stop = True
            self._playing = False
            self._pending_calls = 0
            self._cond.notify_all()

    def shutdown(self, timeout_ms: int = -1) -> bool:
        """Stop and wait for the thread: never let a running QThread be destroyed."""
        self.stop()
        if self.isRunning():
            return self.wait() if timeout_ms < 0 else self.wait(timeout_ms)
        return True

    def abandon(self) -> None:
        """Give up on this thread's call in flight: drop what it reports, end it after."""
        with self._cond:
            self.abandoned = True
            self._stop = True
            self._playing = False
            self._pending_calls = 0
            self._cond.notify_all()
        if self.isRunning():
            leave_behind(self)

    def successor(self) -> Worker:
        """A fresh worker (not started) that takes over this one's commands; this one is
        abandoned. The stuck call is not repeated; the new worker starts a new Run (the old
        one belongs to the stuck thread), told to the GUI as a reset unless a scenario
        switch was waiting anyway."""
        with self._cond:
            new = Worker(self._scenarios_dir, self._entry_points, discover=False)
            new._scenario = self._scenario
            new._scenario_dirty = self._scenario is not None
            new._fresh_reason = "scenario" if self._scenario_dirty else "reset"
            new._variant = self._variant
            new._params = dict(self._params)
            new._pending_calls = self._pending_calls
            new._playing = self._playing
            new._interval = self._interval
            new._calls = self._calls
        self.abandon()
        return new

    def _emit(self, event: Any) -> None:
        if not self.abandoned:  # a stale thread's late results are ignored
            self.events.append(event)

    # -- the thread -----------------------------------------------------------------------
    def run(self) -> None:
        if self._discover:
            try:
                from jitlab.core.discovery import discover

                entries = discover(self._scenarios_dir, entry_points=self._entry_points)
                self._emit(Discovered(entries))
            except Exception:
                self._emit(WorkerFailed(traceback.format_exc()))
        run: Any = None
        while True:
            with self._cond:
                while not self._stop and not self._has_work(run):
                    self._cond.wait(self._wait_time(run))
                if self._stop:
                    break
                scenario = self._scenario if self._scenario_dirty else None
                self._scenario_dirty = False
                variant = self._variant if self._variant_dirty else None
                self._variant_dirty = False
                reset, self._reset = self._reset, False
                call = False
                if self._pending_calls > 0:
                    self._pending_calls -= 1
                    call = True
                elif self._playing and time.perf_counter() >= self._next_due:
                    call = True
                    self._next_due = max(self._next_due + self._interval, time.perf_counter())
                    if self._interval == 0.0:
                        self._next_due = 0.0
                params = dict(self._params)
                current_variant = self._variant
            try:
                run = self.current_run = self._apply(run, scenario, variant, reset, current_variant)
                if call and run is not None:
                    self.call_started = time.perf_counter()
                    self.busy = True
                    try:
                        run.step(params)
                    finally:
                        self.busy = False
                    self._calls += 1
                    if self._interval == 0.0 and self._playing:
                        self._breathe()
                    if not self._playing and self._pending_calls == 0:
                        self._emit(Idle(self._calls))
            except Exception:
                self._emit(WorkerFailed(traceback.format_exc()))

    def _breathe(self) -> None:
        """Between fast calls: stay off the GIL while the GUI renders a frame, and rest a bit.

        Every Qt call the GUI thread makes from Python gives the GIL away and must win it
        back; against a worker that never pauses, that costs up to a switch interval each
        time, and painting one frame (dozens of Python callbacks) stalls for tens of
        milliseconds. So the GUI marks its frames (:meth:`hold`) and the worker waits them
        out; bursts of ``BURST_S`` followed by ``REST_S`` of sleep cover the time in between.
        """
        now = time.perf_counter()
        while now < self._hold_until and not self._stop:
            time.sleep(0.0005)
            now = time.perf_counter()
        if now - self._burst_start >= self.BURST_S:
            time.sleep(self.REST_S)
            self._burst_start = time.perf_counter()

    def hold(self, seconds: float) -> None:
        """GUI thread: a frame is being rendered; don't start a call for ``seconds``."""
        self._hold_until = time.perf_counter() + seconds

    def release(self) -> None:
        """GUI thread: the frame is on screen."""
        self._hold_until = 0.0

    def _has_work(self, run: Any) -> bool:
        if self._scenario_dirty or self._variant_dirty or self._reset or self._pending_calls:
            return True
        return self._playing and run is not None and time.perf_counter() >= self._next_due

    def _wait_time(self, run: Any) -> float | None:
        if self._playing and run is not None:
            return max(0.0, self._next_due - time.perf_counter())
        return None

    def _apply(
        self, run: Any, scenario: Any, variant: str | None, reset: bool, current: str
    ) -> Any:
        from jitlab.core.engine import Run

        if scenario is not None:
            run = Run(scenario, current, listener=self._emit)
            self._emit(RunReady(scenario.id, current, self._fresh_reason))
        elif run is not None and variant is not None and variant != run.variant:
            run.set_variant(variant)
            self._emit(RunReady(run.scenario_cls.id, variant, "variant"))
        elif run is not None and reset:
            run.reset()
            self._emit(RunReady(run.scenario_cls.id, run.variant, "reset"))
        return run
