"""The lab window's link to its executor, the one thread that runs JAX.

:class:`WorkerLink` owns the executor (replaced by a fresh one when a call or a job never
returns), the frame loop that drains the executor's queue into the run model at most 60 times
a second, the watch on a call or job that Pause, Reset or a switch must not wait behind, and
the wait for a call in flight when the window closes. The stuck-call limits are module
constants here, where the fault tests tune them.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import assert_never

from PySide6.QtCore import QEventLoop, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication

from jitlab.gui.executor import Discovered, Executor, Idle, RunReady, WorkerFailed
from jitlab.gui.views.model import Phase, RunState
from jitlab.lab.events import CallFinished, CallStarted, PhaseEnded

FRAME_MS = 16  # ≤ 60 Hz
STUCK_S = 1.0  # a call this old does not hold up Pause, Reset or a switch: it is abandoned
SLOW_CALL_S = 2.0  # from here on the status bar counts the seconds of the call in flight
CLOSE_GRACE_S = 3.0  # closing: how long a call in flight is waited for before it is left
COMPILE_GRACE_S = 10.0  # …and while XLA compiles (real work that ends: a clean exit is better)
JOB_STUCK_S = 3.0  # a job (a quiz check) that made no progress this long is abandoned too…
JOB_COMPILE_S = 30.0  # …and one inside a compile this long (a check compiles for seconds)


class WorkerLink(QObject):
    """The executor, its frame loop and its stuck-call watch (see the module's doc)."""

    discovered = Signal(object)  # discovery's entries (list of PluginEntry)
    variant_began = Signal(str)  # a new run began on this variant: the picker shows it
    replaced = Signal()  # a fresh executor took over (:attr:`executor`)
    frame_rendered = Signal()

    def __init__(
        self,
        state: RunState,
        scenarios_dir: Path | None,
        entry_points: bool,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.state = state
        # JAX and the scenarios load on the executor, started by the first frame: importing
        # JAX holds the GIL for long stretches, so the window is built and shown first.
        self.executor = Executor(scenarios_dir, entry_points)
        self.closing = False  # the window is closing: the executor is not started any more
        # What Pause, Reset or a switch waits on: (("call", start) or ("job", token), pause)
        self._unstick: tuple[tuple[str, float], bool] | None = None
        self._job_progress = 0.0  # a watched job was last seen compiling (or began) then
        self._slow_shown = 0
        self.close_grace_s = CLOSE_GRACE_S
        self.compile_grace_s = COMPILE_GRACE_S
        self.timer = QTimer(self)
        self.timer.setInterval(FRAME_MS)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(self.drain)

    # -- the frame loop -------------------------------------------------------------------
    def drain(self) -> None:
        """Take everything the executor queued since the last frame into the model, then tell
        the views once (each decides how often it paints: see their ``bind``)."""
        worker = self.executor
        if not worker.isRunning() and not worker.isFinished() and not self.closing:
            worker.start()  # the first frame: the window is up
        events = worker.events
        while events:
            match events.popleft():
                case CallStarted() | PhaseEnded() as event:
                    self.state.apply(event)
                case CallFinished() as event:
                    self.state.apply(event)
                    if len(self.state.records) % 5000 == 0:
                        gc.freeze()  # records are kept for good: keep collections short
                case RunReady(scenario=sid, reason=reason, variant=variant) if (
                    reason != "scenario"
                    or (sid == self.state.scenario != "" and variant != self.state.variant)
                ):  # (a new run in a variant switched to before it began: that variant's)
                    self.state.new_segment(variant)
                    self.variant_began.emit(variant)
                case Discovered(entries=entries):
                    self.discovered.emit(entries)
                case WorkerFailed(text=text):
                    self.state.failed(text)
                case RunReady() | Idle():
                    pass
                case unhandled:  # mypy proves this unreachable: every Message kind is above
                    assert_never(unhandled)
        self._check_stuck()
        if self.state.in_flight is not None:
            elapsed = time.perf_counter() - self.state.started_at
            self.state.tick(elapsed)
            if elapsed >= SLOW_CALL_S and int(elapsed) != self._slow_shown:
                self._slow_shown = int(elapsed)  # the status bar counts the seconds
                self.state.touch()
        if self.state.dirty:
            if self.executor.playing:
                # Keep a fast worker off the GIL until this frame is painted (see Executor).
                self.executor.hold(0.03)
                QTimer.singleShot(0, self.executor.release)
            self.state.notify()
            self.frame_rendered.emit()

    # -- a call or a job that does not return ---------------------------------------------
    def unstick_later(self, pause: bool = False, jobs: bool = True) -> None:
        """Pause, Reset, another scenario or leaving the exercises: a call or a job (a quiz
        check) that does not return must not hold them up. Checked every frame
        (:meth:`_check_stuck`); what returns in time is kept."""
        worker = self.executor
        token = worker.job_in_flight
        if worker.busy:
            key = ("call", worker.call_started)
        elif token is not None and jobs:
            key = ("job", float(token))
            if self._unstick is None or self._unstick[0] != key:
                self._job_progress = worker.job_started
        else:
            return
        pause = pause and (self._unstick is None or self._unstick[1])
        self._unstick = (key, pause)

    def _check_stuck(self) -> None:
        if self._unstick is None:
            return
        (what, started), pause = self._unstick
        worker = self.executor
        now = time.perf_counter()
        if what == "job":
            if worker.job_in_flight is None or float(worker.job_in_flight) != started:
                self._unstick = None  # it returned
            elif worker.job_compiling():  # real work that ends: a longer limit
                self._job_progress = now
                if now - worker.job_started >= JOB_COMPILE_S:
                    self.abandon_job()
            elif now - max(self._job_progress, worker.job_started) >= JOB_STUCK_S:
                self.abandon_job()
            return
        if not worker.busy or worker.call_started != started:
            self._unstick = None  # it returned
            return
        age = now - started
        if age < STUCK_S or (pause and self.state.phase is Phase.WRITING):
            return  # young, or a compile that Pause does not need to stop (it will end)
        self.abandon_call(age)

    def abandon_call(self, seconds: float) -> None:
        """Leave the call in flight behind (a thread cannot be killed) with its thread; a
        fresh executor takes the commands and starts a new run."""
        self._take_over()
        self.state.call_abandoned(seconds)

    def abandon_job(self) -> None:
        """Leave the job in flight behind with its thread (it reads ``ABANDONED``); a fresh
        executor takes the queue and the scenario's commands and starts a new run."""
        self._take_over()

    def _take_over(self) -> None:
        self._unstick = None
        self.executor = self.executor.successor()
        self.executor.start()
        self.replaced.emit()

    # -- starting and closing -------------------------------------------------------------
    def start_frames(self) -> None:
        """Frames from now on; the first one starts the executor (the window is up)."""
        self.timer.start()

    def stop_frames(self) -> None:
        """No more frames and no more watching (the window is shutting down)."""
        self.timer.stop()
        self._unstick = None

    def finish(self, waiting: Callable[[float, float], None]) -> None:
        """Stop the executor; a call in flight gets a grace period, then is left behind.
        ``waiting(seconds waited, limit)`` is told while it is waited for."""
        worker = self.executor
        worker.stop()
        if worker.abandoned or worker.wait(200):
            return  # the usual case: idle, or a quick call
        start = time.perf_counter()
        while worker.isRunning():
            waited = time.perf_counter() - start
            compiling = self.state.phase is Phase.WRITING or worker.job_compiling()
            limit = self.compile_grace_s if compiling else self.close_grace_s
            if waited >= limit:
                print(
                    f"jitlab: a call was still running after {waited:.0f} s — abandoned",
                    file=sys.stderr,
                    flush=True,
                )
                worker.abandon()
                break
            self.drain()  # the kitchen keeps showing what the call is doing
            waiting(waited, limit)
            # Paint and take signals (a second Ctrl+C quits at once), but no clicks.
            QApplication.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents, 50)
            worker.wait(50)
