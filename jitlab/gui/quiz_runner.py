"""The quiz's JAX work, off the GUI thread: load the exercises, run a snippet.

Why a thread of its own: the scenario :class:`~jitlab.gui.worker.Worker` is a ``QThread``
whose ``run()`` is a loop over its command slot (no event loop, no way to hand it a
callable), and its module belongs to the scenario views. So the quiz runs its checks on a
second thread, ``jitlab-quiz``, an ordinary ``QThread`` with an event loop and one
:class:`_Job` object living on it, and keeps the two threads from running at once:

* before each job, :meth:`QuizRunner.submit` stops the scenario worker's autoplay
  (``worker.play(False)``, which also drops pending one-shot calls), and the job waits on
  the quiz thread until ``worker.busy`` has read False for a few polls in a row, so a
  compile in flight ends first;
* while the quiz view is in front, the scenario views are hidden and send the worker
  nothing, so no new scenario call can start;
* every exercise clears JAX's caches (``jax.clear_caches()``), which empties the scenario's
  card holder too: :attr:`QuizRunner.caches_cleared` says so, and the main window should
  ``worker.reset()`` before the next scenario call so the kitchen starts clean rather
  than showing an unexplained recompile.

jitlab's probe routes JAX's events and printed lines per calling thread
(:mod:`jitlab.core.monitor`), so even a scenario call that slipped through would not mix its
records with the quiz's; the guard is about timings and the shared caches.
"""

from __future__ import annotations

import contextlib
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal, Slot

POLL_S = 0.005
QUIET_POLLS = 3  # the scenario worker must look idle this many polls in a row


@dataclass(frozen=True)
class Catalogue:
    """The exercises, loaded on the quiz thread (importing them imports JAX)."""

    exercises: tuple[Any, ...]  # jitlab.quiz.Exercise, in catalogue order
    available: tuple[str, ...]  # ids of those that can run on this machine's devices
    devices: int


def load_catalogue() -> Catalogue:
    import jax

    from jitlab.quiz import exercises

    return Catalogue(
        tuple(exercises.EXERCISES),
        tuple(e.id for e in exercises.available()),
        jax.device_count(),
    )


class _Job(QObject):
    """Lives on the quiz thread; runs one callable per request, in order."""

    done = Signal(int, object, str)  # token, result, error text ("" when it worked)

    def __init__(self, runner: QuizRunner) -> None:
        super().__init__()
        self._runner = runner

    @Slot(int, object)
    def execute(self, token: int, fn: Callable[[], Any]) -> None:
        self._runner._wait_for_scenario_worker()
        self._runner.busy = True
        try:
            result, error = fn(), ""
        except Exception:
            result, error = None, traceback.format_exc()
        finally:
            self._runner.busy = False
        self.done.emit(token, result, error)


class QuizRunner(QObject):
    """Runs callables on the ``jitlab-quiz`` thread, one at a time, in submission order.

    ``finished(token, result, error)`` arrives on the GUI thread. ``scenario_worker`` is the
    main window's :class:`~jitlab.gui.worker.Worker` (or None when the quiz runs alone).
    """

    finished = Signal(int, object, str)
    caches_cleared = Signal()  # a job ran an exercise: JAX's caches are empty now
    _request = Signal(int, object)

    def __init__(self, scenario_worker: Any = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.scenario_worker = scenario_worker
        self.busy = False  # a job is running (read by the GUI for display only)
        self.pending: set[int] = set()
        self._clears: set[int] = set()
        self._next = 0
        self._closed = False
        self.thread = QThread()
        self.thread.setObjectName("jitlab-quiz")
        self._job = _Job(self)
        self._job.moveToThread(self.thread)
        self._request.connect(self._job.execute)
        self._job.done.connect(self._done)
        app = QCoreApplication.instance()
        if app is not None:  # a safety net: never let Qt destroy a running thread at exit
            app.aboutToQuit.connect(self.shutdown)
        self.thread.start()

    def submit(self, fn: Callable[[], Any], clears_caches: bool = False) -> int:
        """Queue ``fn`` for the quiz thread; returns the token ``finished`` will carry."""
        if self._closed:
            raise RuntimeError("the quiz runner is shut down")
        worker = self.scenario_worker
        if worker is not None:
            with contextlib.suppress(Exception):  # a worker without autoplay: nothing to stop
                worker.play(False)
        self._next += 1
        token = self._next
        self.pending.add(token)
        if clears_caches:
            self._clears.add(token)
        self._request.emit(token, fn)
        return token

    def _wait_for_scenario_worker(self) -> None:
        if self.scenario_worker is None:
            return
        quiet = 0
        deadline = time.monotonic() + 600.0  # a compile may take long, never forever
        while quiet < QUIET_POLLS and time.monotonic() < deadline and not self._closed:
            # Read it each time: the window swaps in a fresh worker when a call is stuck.
            quiet = 0 if getattr(self.scenario_worker, "busy", False) else quiet + 1
            time.sleep(POLL_S)

    @Slot(int, object, str)
    def _done(self, token: int, result: Any, error: str) -> None:
        self.pending.discard(token)
        if token in self._clears:
            self._clears.discard(token)
            self.caches_cleared.emit()
        self.finished.emit(token, result, error)

    @property
    def running(self) -> bool:
        """A job is queued or in flight."""
        return bool(self.pending)

    def shutdown(self, timeout_ms: int = -1) -> bool:
        """Let the job in flight end (a compile cannot be interrupted), then stop the thread.

        Jobs still queued are dropped. Idempotent; returns False if the wait timed out."""
        self._closed = True
        if not self.thread.isRunning():
            return True
        self.thread.requestInterruption()
        self.thread.quit()
        ok = self.thread.wait() if timeout_ms < 0 else self.thread.wait(timeout_ms)
        if ok:
            self.pending.clear()
        else:  # a check that does not end: never wait again, never let Qt destroy it
            from jitlab.gui.worker import leave_behind

            leave_behind(self.thread)
        return ok
