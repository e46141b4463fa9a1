"""The one thread that owns all JAX work in the GUI process, and the only GUI module that
reaches JAX.

The jobs it runs for the views are Qt-free and tested without a window: the scripts jobs in
:mod:`jitlab.lab.jobs`, the quiz's catalogue in :mod:`jitlab.quiz.kit`. The views import
them from here (the import contract lets only this module reach below the GUI to the probe).

An :class:`Executor` is a long-lived ``QThread`` with one queue of work, taken in order:

* **scenario calls** (a slider move, Step) and **jobs** (a quiz check, loading the exercises,
  later an IR fetch: any callable, :meth:`Executor.submit`) wait in one FIFO queue, so a job
  submitted while a slider drag streams calls runs after at most the calls queued before it;
* the **command slot** holds the scenario's state — scenario, variant, reset, parameter
  values, autoplay and its rate. The newest values win: a slider move while a call is still
  queued adds no second call (the queued one reads the newest values when it runs), so a
  drag never builds a backlog of stale calls. Switching scenario or variant, Reset and Pause
  drop queued scenario calls, never jobs;
* **autoplay** calls run only when the queue is empty, so jobs never wait behind a stream;
* :meth:`Executor.cancel` empties the queue at once (it is checked between calls: a call or
  compile in progress cannot be interrupted); each dropped job is reported as cancelled.

Nothing polls: the thread sleeps on a condition variable until a command, a job or the next
autoplay tick is due. Its messages to the window (:data:`Message`: the engine's events — call
started, phase ended, call finished — and its own: scenarios discovered, a run ready, a
failure, idle) are appended to :attr:`Executor.events` the moment they happen; the GUI drains
that queue once per frame, so records reach the views in batches while phase changes show
promptly. Job results come back as the ``job_done(token, result, error)`` signal, on the GUI
thread.

Every exercise clears JAX's process-wide caches, which empties the scenario's card holder
too; the executor knows (``clears_caches``) and starts the scenario's run afresh (a
``RunReady`` "reset") before its next call, so the kitchen never shows an unexplained
recompile. Nobody else needs to be told.

A call or a job that never returns (a plugin stuck on a lock, a network wait, an endless
loop; :meth:`Executor.job_compiling` tells a job busy compiling from a stuck one) cannot
be interrupted, and a Python thread cannot be killed: :meth:`Executor.successor` leaves the
stuck thread behind and hands the slot and the queue to a fresh executor (``replaced`` tells
whoever submitted jobs). Late results of the abandoned thread are dropped. Threads left
behind are kept referenced (Qt must never destroy a running ``QThread``) and the process
ends with ``os._exit`` while any of them still runs (:func:`left_behind`).
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from PySide6.QtCore import QThread, Signal

from jitlab.lab.events import Event
from jitlab.lab.jobs import (
    ScriptOf,
    ScriptsCompared,
    card_script,
    compare_scripts,
    diff_made,
    part_script,
)
from jitlab.lab.manifest import is_stand_in

# XLA's device count is set before JAX starts: the GUI asks through here, its one JAX seam.
from jitlab.probe.devices import simulate_cpu_devices
from jitlab.quiz.kit import QuizKit, load_kit

if TYPE_CHECKING:  # the engine imports JAX: this thread loads it, on its own, when it runs
    from jitlab.lab.discovery import PluginEntry
    from jitlab.lab.engine import Run
    from jitlab.lab.spec import ParamValue, ParamValues, Scenario

__all__ = [
    "ABANDONED",
    "CANCELLED",
    "Discovered",
    "Executor",
    "Idle",
    "Message",
    "QuizKit",
    "RunReady",
    "ScriptOf",
    "ScriptsCompared",
    "WorkerFailed",
    "leave_behind",
    "left_behind",
    "load_kit",
    "simulate_cpu_devices",
]

CANCELLED = "cancelled: the job was dropped before it ran"
ABANDONED = "abandoned: the job did not return and was left behind"

_LEFT_BEHIND: list[QThread] = []  # stuck threads: referenced so Qt never destroys them running


def leave_behind(thread: QThread) -> None:
    """Give up on a thread that does not end: keep it alive, never wait for it again."""
    if thread not in _LEFT_BEHIND:
        _LEFT_BEHIND.append(thread)


def left_behind() -> list[QThread]:
    """Threads given up on that still run (then the process must end with ``os._exit``)."""
    _LEFT_BEHIND[:] = [t for t in _LEFT_BEHIND if not t.isFinished()]
    return list(_LEFT_BEHIND)


# -- its messages to the window: the engine's events (CallStarted, PhaseEnded, CallFinished)
# and these four, one union (Message) that the window matches exhaustively -------------------


@dataclass(frozen=True)
class Discovered:
    """Scenario plugins found on the executor (discovery imports JAX, so not on the GUI thread)."""

    entries: list[PluginEntry]


@dataclass(frozen=True)
class RunReady:
    """A new run segment begins (scenario chosen, variant switched or reset): no cards yet."""

    scenario: str
    variant: str
    reason: Literal["scenario", "variant", "reset"]


@dataclass(frozen=True)
class WorkerFailed:
    """Something outside a probed call failed; the executor keeps going."""

    text: str


@dataclass(frozen=True)
class Idle:
    """No scenario call is left to make (handy for tests and autoplay)."""

    calls: int


#: Everything the executor tells the window (``Executor.events``), one kind per class. The
#: window's ``drain`` matches it with ``assert_never`` last, so mypy fails on a kind added
#: here and not handled there.
Message = Event | Discovered | RunReady | WorkerFailed | Idle


def failure_text(exc: BaseException) -> str:
    """What a failure outside a probed call shows: a JAX jitlab cannot see is said in one
    line, in the interface language (no traceback to read); anything else as its traceback."""
    from jitlab.probe.contract import JaxContractError

    if isinstance(exc, JaxContractError):
        from jitlab.gui import i18n

        return exc.report.line(i18n.language())
    return "".join(traceback.format_exception(exc))


# -- the queue -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Call:
    """A scenario call; it reads the slot's parameter values when it runs (newest wins)."""

    step: bool  # Step (each one counts) rather than a slider move (coalesced)


@dataclass(frozen=True)
class _Job:
    token: int
    fn: Callable[..., Any]
    clears_caches: bool
    with_run: bool


class Executor(QThread):
    """Long-lived thread holding the engine ``Run`` of the current scenario and running jobs.

    Commands may come from any thread. ``job_done(token, result, error)`` is emitted for
    every submitted job exactly once — its result, or ``error`` the traceback of what it
    raised, :data:`CANCELLED` or :data:`ABANDONED`. ``replaced(successor)`` is emitted (on
    the GUI thread) when :meth:`successor` hands the queue to a fresh executor.
    """

    job_done = Signal(int, object, str)
    replaced = Signal(object)

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
        self.setObjectName("jitlab-executor")
        self.events: deque[Message] = deque()  # the thread appends, a GUI timer drains
        self._scenarios_dir = scenarios_dir
        self._entry_points = entry_points
        self._discover = discover
        self._cond = threading.Condition()
        self._stop = False
        # the command slot
        self._scenario: type[Scenario] | None = None  # requested scenario class
        self._scenario_dirty = False
        # what RunReady says when a new Run is made
        self._fresh_reason: Literal["scenario", "reset"] = "scenario"
        self._variant = "pitfall"
        self._variant_dirty = False
        self._reset = False
        self._params: dict[str, ParamValue] = {}
        self._playing = False
        self._interval = 0.0  # seconds between calls while playing; 0 = as fast as possible
        self._next_due = 0.0
        # the queue
        self._queue: deque[_Call | _Job] = deque()
        self._next_token = 0
        self._job_in_flight: int | None = None
        self.job_started = 0.0  # perf_counter() when the job in flight began
        self._run_stale = False  # a job cleared JAX's caches: reset the run before its next call
        self._calls = 0
        self._burst_start = 0.0
        self._hold_until = 0.0
        self.busy = False  # a *scenario* call is in flight (jobs are not: see job_in_flight)
        self.call_started = 0.0  # perf_counter() when that call began
        self.abandoned = False  # left behind: its late events are dropped, it ends after
        self.current_run: Run | None = None  # the engine's Run (tests read it once idle)
        self._ident: int | None = None  # the thread's id once it runs
        # The scenarios discovery found, by id: a scenario selected before JAX had loaded is
        # the manifest's stand-in (jitlab.lab.manifest.Listing.lesson), swapped for its class
        # here before it runs; its calls wait in the queue meanwhile, behind the contract check.
        self._found: dict[str, type[Scenario]] = {}

    # -- scenario commands (any thread): the slot -----------------------------------------
    def select(self, scenario: type[Scenario], variant: str, params: ParamValues) -> None:
        """Switch to a scenario class; the newest request wins, queued calls are dropped."""
        with self._cond:
            self._scenario = scenario
            self._scenario_dirty = True
            self._fresh_reason = "scenario"
            self._variant = variant
            self._variant_dirty = False
            self._reset = False
            self._params = dict(params)
            self._drop_calls()
            self._cond.notify_all()

    def set_variant(self, variant: str) -> None:
        with self._cond:
            self._variant = variant
            self._variant_dirty = True
            self._drop_calls()
            self._cond.notify_all()

    def reset(self) -> None:
        """Clear the jit caches before the next call: the card holder empties."""
        with self._cond:
            self._reset = True
            self._drop_calls()
            self._cond.notify_all()

    def set_params(self, params: ParamValues, call: bool = True) -> None:
        """New parameter values; with ``call``, make one call with the newest values.

        Moves before the executor gets to the queued call collapse into that one call.
        """
        with self._cond:
            self._params = dict(params)
            if call and not any(isinstance(item, _Call) for item in self._queue):
                self._queue.append(_Call(step=False))
            self._cond.notify_all()

    def step(self) -> None:
        with self._cond:
            self._queue.append(_Call(step=True))
            self._cond.notify_all()

    def play(self, playing: bool, rate: float | None = None) -> None:
        """Call continuously at ``rate`` calls per second (0 or None: as fast as possible).

        Pausing also drops queued scenario calls (jobs stay queued)."""
        with self._cond:
            self._playing = playing
            if rate is not None:
                self._interval = 1.0 / rate if rate > 0 else 0.0
            if not playing:
                self._drop_calls()
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

    def waiting_calls(self) -> bool:
        """Are scenario calls asked for and not yet made (queued, or playing)?"""
        with self._cond:
            return self._playing or any(isinstance(item, _Call) for item in self._queue)

    # -- jobs (any thread) ----------------------------------------------------------------
    def submit(
        self, fn: Callable[..., Any], *, clears_caches: bool = False, with_run: bool = False
    ) -> int:
        """Queue ``fn`` behind the work already queued; returns the token ``job_done`` carries.

        ``clears_caches``: ``fn`` empties JAX's caches (an exercise does), so the scenario's
        run starts afresh before its next call. ``with_run``: ``fn`` is called with the
        current engine ``Run`` (None before a scenario is chosen), e.g. to fetch its IR.
        Raises RuntimeError once the executor is stopped."""
        with self._cond:
            if self._stop:
                raise RuntimeError("the executor is shut down")
            self._next_token += 1
            token = self._next_token
            self._queue.append(_Job(token, fn, clears_caches, with_run))
            self._cond.notify_all()
        return token

    def request_script(
        self,
        function: str,
        card: int,
        created_by: int,
        stablehlo: bool = False,
        view: bool = False,
    ) -> int:
        """Queue the making of one card's script (:func:`card_script`); ``job_done`` brings a
        :class:`ScriptOf`. Its StableHLO text is left to be printed when asked for unless
        ``stablehlo`` (printing it holds the GIL, and so the GUI, for tens of ms); ``view``:
        what a script window shows first (:func:`card_script`)."""
        return self.submit(
            lambda run: card_script(run, function, card, created_by, stablehlo, view),
            with_run=True,
        )

    def request_part(
        self, function: str, card: int, created_by: int, script: Any, part: str
    ) -> int:
        """Queue the printing of one text ``script`` was made without (:func:`part_script`);
        ``job_done`` brings a :class:`ScriptOf` holding ``script`` with that text."""
        return self.submit(
            lambda run: part_script(run, function, card, created_by, script, part),
            with_run=True,
        )

    def request_comparison(self, a: tuple[str, int, int], b: tuple[str, int, int]) -> int:
        """Queue the comparison of two cards' scripts, each ``(function, card, created_by)``;
        ``job_done`` brings a :class:`ScriptsCompared`."""
        return self.submit(lambda run: compare_scripts(run, a, b), with_run=True)

    def request_diff_of(self, before: ScriptOf, after: ScriptOf) -> int:
        """Queue the comparison of two scripts already made (:func:`diff_made`); ``job_done``
        brings a :class:`ScriptsCompared`."""
        return self.submit(lambda: diff_made(before, after))

    @property
    def job_in_flight(self) -> int | None:
        """The token of the job in flight, if any."""
        return self._job_in_flight

    def job_compiling(self) -> bool:
        """Is the job in flight inside JAX's compile path (lowering, XLA compiling: real work
        that ends) rather than, say, waiting on a lock? Read from the thread's Python stack."""
        if self._job_in_flight is None or "jax" not in sys.modules:
            return False
        frame = sys._current_frames().get(self._ident or -1)
        if frame is None:
            return False
        from jitlab.probe import _jax

        while frame is not None:
            if _jax.compiling_jaxpr(frame) is not None:
                return True
            frame = frame.f_back
        return False

    def pending_jobs(self) -> list[int]:
        """Tokens of the jobs queued and not started, in order."""
        with self._cond:
            return [item.token for item in self._queue if isinstance(item, _Job)]

    def cancel(self, tokens: set[int] | None = None) -> list[int]:
        """Empty the queue: queued scenario calls, autoplay and every queued job (only the
        jobs in ``tokens``, and no scenario work, when given). What is in flight runs to its
        end. Returns the dropped jobs' tokens; each is reported as :data:`CANCELLED`."""
        with self._cond:
            if tokens is None:
                self._playing = False
                dropped = [item for item in self._queue if isinstance(item, _Job)]
                self._queue.clear()
            else:
                dropped = [i for i in self._queue if isinstance(i, _Job) and i.token in tokens]
                self._queue = deque(i for i in self._queue if i not in dropped)
            self._cond.notify_all()
        for job in dropped:
            self._job_done(job.token, None, CANCELLED)
        return [job.token for job in dropped]

    # -- lifetime -------------------------------------------------------------------------
    def stop(self) -> None:
        """Ask the thread to end after the work in flight (a compile cannot be interrupted);
        queued jobs are cancelled."""
        with self._cond:
            self._stop = True
        self.cancel()

    def shutdown(self, timeout_ms: int = -1) -> bool:
        """Stop and wait for the thread: never let a running QThread be destroyed."""
        self.stop()
        if self.isRunning():
            return self.wait() if timeout_ms < 0 else self.wait(timeout_ms)
        return True

    def abandon(self) -> None:
        """Give up on this thread's work in flight: drop what it reports, end it after."""
        with self._cond:
            self.abandoned = True
            self._stop = True
            self._playing = False
            dropped = [item for item in self._queue if isinstance(item, _Job)]
            self._queue.clear()
            in_flight = self._job_in_flight
            self._cond.notify_all()
        # Said from here: the thread's own reports are dropped from now on.
        for job in dropped:
            self.job_done.emit(job.token, None, CANCELLED)
        if in_flight is not None:
            self.job_done.emit(in_flight, None, ABANDONED)
        if self.isRunning():
            leave_behind(self)

    def successor(self) -> Executor:
        """A fresh executor (not started) that takes over this one's slot and queue; this
        one is abandoned. The stuck call is not repeated; the new executor starts a new Run
        (the old one belongs to the stuck thread), told to the GUI as a reset unless a
        scenario switch was waiting anyway. ``replaced`` is emitted with the new one."""
        with self._cond:
            new = Executor(self._scenarios_dir, self._entry_points, discover=False)
            new._scenario = self._scenario
            new._found = self._found
            new._scenario_dirty = self._scenario is not None
            new._fresh_reason = "scenario" if self._scenario_dirty else "reset"
            new._variant = self._variant
            new._params = dict(self._params)
            new._playing = self._playing
            new._interval = self._interval
            new._calls = self._calls
            new._next_token = self._next_token
            new._queue = deque(self._queue)
            self._queue.clear()  # handed over: not cancelled
        self.abandon()
        self.replaced.emit(new)
        return new

    def _emit(self, event: Message) -> None:
        if not self.abandoned:  # a stale thread's late results are ignored
            self.events.append(event)

    def _job_done(self, token: int, result: Any, error: str) -> None:
        with self._cond:  # atomic with abandon(): once abandoned, nothing more is said
            if not self.abandoned:
                self.job_done.emit(token, result, error)

    def _drop_calls(self) -> None:
        """Under the lock: queued scenario calls are stale (jobs stay)."""
        if any(isinstance(item, _Call) for item in self._queue):
            self._queue = deque(item for item in self._queue if isinstance(item, _Job))

    # -- the thread -----------------------------------------------------------------------
    def run(self) -> None:
        self._ident = threading.get_ident()
        if self._discover:
            try:
                from jitlab.lab.discovery import discover

                entries = discover(self._scenarios_dir, entry_points=self._entry_points)
                self._found = {e.scenario.id: e.scenario for e in entries if e.scenario}
                self._emit(Discovered(entries))
            except Exception:
                self._emit(WorkerFailed(traceback.format_exc()))
            self._check_contract()
        run: Run | None = None
        while True:
            with self._cond:
                while not self._stop and not self._has_work(run):
                    self._cond.wait(self._wait_time(run))
                if self._stop:
                    break
                scenario = self._scenario if self._scenario_dirty else None
                if is_stand_in(scenario):  # the early screen's: the class discovery found
                    scenario = self._found.get(scenario.id)
                self._scenario_dirty = False
                variant = self._variant if self._variant_dirty else None
                self._variant_dirty = False
                reset, self._reset = self._reset, False
                item: _Call | _Job | None = None
                if self._queue:
                    item = self._queue.popleft()
                elif self._playing and run is not None and time.perf_counter() >= self._next_due:
                    item = _Call(step=False)
                    self._next_due = max(self._next_due + self._interval, time.perf_counter())
                    if self._interval == 0.0:
                        self._next_due = 0.0
                if isinstance(item, _Job):
                    self._job_in_flight = item.token
                    self.job_started = time.perf_counter()
                params = dict(self._params)
                current_variant = self._variant
            try:
                run = self.current_run = self._apply(run, scenario, variant, reset, current_variant)
            except Exception as exc:
                self._emit(WorkerFailed(failure_text(exc)))
            if isinstance(item, _Job):
                self._run_job(item, run)
            elif item is not None and run is not None:
                self._call(run, params)

    def _check_contract(self) -> None:
        """The contract check's known compile (:mod:`jitlab.probe.contract`), made while the
        window paints and the learner reads the question, not inside the first call. It still
        comes before the first probed call (this thread makes every call, in order), and a
        JAX jitlab cannot see is still refused there: ``Probe`` reads this check's report."""
        try:
            from jitlab.probe import contract

            contract.check()  # never raises; the report is kept for the process
        except Exception:  # its import failed: the first call says so, as before
            pass

    def _run_job(self, job: _Job, run: Run | None) -> None:
        try:
            result, error = (job.fn(run) if job.with_run else job.fn()), ""
        except Exception:
            result, error = None, traceback.format_exc()
        finally:
            if job.clears_caches:
                self._run_stale = True
            self._job_in_flight = None
        self._job_done(job.token, result, error)

    def _call(self, run: Run, params: dict[str, ParamValue]) -> None:
        try:
            if self._run_stale:  # a job emptied JAX's caches: the card holder is stale too
                self._run_stale = False
                run.reset()
                self._emit(RunReady(run.scenario_cls.id, run.variant, "reset"))
            self.call_started = time.perf_counter()
            self.busy = True
            try:
                run.step(params)
            finally:
                self.busy = False
            self._calls += 1
            if self._interval == 0.0 and self._playing:
                self._breathe()
            with self._cond:
                idle = not self._playing and not any(isinstance(i, _Call) for i in self._queue)
            if idle:
                self._emit(Idle(self._calls))
        except Exception as exc:
            self._emit(WorkerFailed(failure_text(exc)))

    def _breathe(self) -> None:
        """Between fast calls: stay off the GIL while the GUI renders a frame, and rest a bit.

        Every Qt call the GUI thread makes from Python gives the GIL away and must win it
        back; against a thread that never pauses, that costs up to a switch interval each
        time, and painting one frame (dozens of Python callbacks) stalls for tens of
        milliseconds. So the GUI marks its frames (:meth:`hold`) and the executor waits them
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

    def _has_work(self, run: Run | None) -> bool:
        if self._scenario_dirty or self._variant_dirty or self._reset or self._queue:
            return True
        return self._playing and run is not None and time.perf_counter() >= self._next_due

    def _wait_time(self, run: Run | None) -> float | None:
        if self._playing and run is not None:
            return max(0.0, self._next_due - time.perf_counter())
        return None

    def _apply(
        self,
        run: Run | None,
        scenario: type[Scenario] | None,
        variant: str | None,
        reset: bool,
        current: str,
    ) -> Run | None:
        from jitlab.lab.engine import Run

        if scenario is not None:
            run = Run(scenario, current, listener=self._emit)
            self._run_stale = False
            self._emit(RunReady(scenario.id, current, self._fresh_reason))
        elif run is not None and variant is not None and variant != run.variant:
            run.set_variant(variant)
            self._run_stale = False
            self._emit(RunReady(run.scenario_cls.id, variant, "variant"))
        elif run is not None and reset:
            run.reset()
            self._run_stale = False
            self._emit(RunReady(run.scenario_cls.id, run.variant, "reset"))
        return run
