"""The quiz's JAX work, as jobs on the one executor: load the exercises, run a snippet.

The quiz runs nothing itself: :class:`QuizRunner` submits each check to an
:class:`~jitlab.gui.executor.Executor` — the main window's (the same thread and the same
queue as the scenario's calls, so the two never run at once and nothing polls), or, when the
quiz runs alone, one of its own. Checks run in submission order, between scenario calls;
every exercise clears JAX's caches, and the executor starts the scenario's run afresh before
its next call (``clears_caches=True``), so nobody else has to be told.

When the main window leaves a stuck scenario call behind, the queue moves to a fresh
executor and the runner follows it (``Executor.replaced``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal, Slot

from jitlab.gui.executor import Executor, leave_behind

__all__ = ["OneCheck", "QuizRunner"]


class QuizRunner(QObject):
    """Runs callables on an executor, one at a time, in submission order.

    ``finished(token, result, error)`` arrives on the GUI thread for each of this runner's
    jobs (``error`` is "" when it worked, else a traceback or the executor's
    ``CANCELLED``/``ABANDONED``). ``executor`` is the main window's executor, or None to
    start and own one (the quiz alone).
    """

    finished = Signal(int, object, str)

    def __init__(self, executor: Executor | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pending: set[int] = set()
        self._closed = False
        self._owns = executor is None
        if executor is None:
            executor = Executor(discover=False)
            executor.setObjectName("jitlab-quiz")
            app = QCoreApplication.instance()
            if app is not None:  # a safety net: never let Qt destroy a running thread at exit
                app.aboutToQuit.connect(self.shutdown)
            executor.start()
        self._executor: Executor = executor
        self._connect(executor)

    # -- the executor, followed when it is replaced ---------------------------------------
    @property
    def executor(self) -> Executor:
        return self._executor

    @executor.setter
    def executor(self, executor: Executor) -> None:
        self._follow(executor)

    # The main window's name for it (it sets it after replacing a stuck executor).
    scenario_worker = executor

    def _connect(self, executor: Executor) -> None:
        executor.job_done.connect(self._done)
        executor.replaced.connect(self._follow)

    @Slot(object)
    def _follow(self, executor: Executor) -> None:
        if executor is self._executor:
            return
        old = self._executor
        old.job_done.disconnect(self._done)
        old.replaced.disconnect(self._follow)
        self._executor = executor
        self._connect(executor)

    # -- jobs -----------------------------------------------------------------------------
    def submit(self, fn: Callable[[], Any], clears_caches: bool = False) -> int:
        """Queue ``fn`` on the executor; returns the token ``finished`` will carry."""
        if self._closed:
            raise RuntimeError("the quiz runner is shut down")
        token = self._executor.submit(fn, clears_caches=clears_caches)
        self.pending.add(token)
        return token

    @Slot(int, object, str)
    def _done(self, token: int, result: Any, error: str) -> None:
        if token not in self.pending:
            return  # another client's job on the shared executor
        self.pending.discard(token)
        self.finished.emit(token, result, error)

    @property
    def running(self) -> bool:
        """A job of this runner is queued or in flight."""
        return bool(self.pending)

    def shutdown(self, timeout_ms: int = -1) -> bool:
        """No more jobs; queued ones are dropped. An executor of its own is stopped after the
        job in flight (a compile cannot be interrupted) and left behind if ``timeout_ms``
        runs out; a shared one is its owner's to stop. Idempotent; False if the wait timed
        out."""
        self._closed = True
        executor = self._executor
        if not self._owns:
            executor.cancel(set(self.pending))
            return True
        executor.stop()
        if not executor.isRunning():
            return True
        ok = executor.wait() if timeout_ms < 0 else executor.wait(timeout_ms)
        if ok:
            self.pending.clear()
        else:  # a check that does not end: never wait again, never let Qt destroy it
            executor.abandon()
            leave_behind(executor)
        return ok


class OneCheck:
    """Mixed into a quiz page that runs one check at a time on its runner: the check's token
    while it runs, and the page's busy state around it (the page's ``_set_busy``)."""

    runner: QuizRunner
    token: int | None = None

    def _set_busy(self, busy: bool) -> None:
        raise NotImplementedError

    def start_check(self, fn: Callable[[], Any]) -> None:
        """Run ``fn`` on the runner with empty JAX caches; the page is busy until it ends."""
        self.token = self.runner.submit(fn, clears_caches=True)
        self._set_busy(True)

    def check_done(self, token: int) -> bool:
        """Whether ``token`` (a job the runner finished) is this page's check; if so the
        page is no longer busy."""
        if token != self.token:
            return False
        self.token = None
        self._set_busy(False)
        return True
