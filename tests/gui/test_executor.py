"""The one JAX executor: scenario calls and jobs (quiz checks) on one thread, one queue.

Real JAX on a real executor thread; every wait is on a condition or a signal, never a sleep.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from PySide6.QtCore import QCoreApplication, QTimer

from jitlab.lab.engine import CallFinished, CallStarted
from jitlab.lab.scenario import Lesson, Param, Pitfall, Scenario, Text, Variant

pytestmark = pytest.mark.slow

TIMEOUT_MS = 60_000
T = Text("x", "x")


def square(x):
    return x * x


class Square(Scenario):
    """Each new ``n`` is a new shape: a fresh compile."""

    id = "executor-square"
    pitfall = Pitfall.DYNAMIC_SHAPES
    title = Text("Squares", "平方")
    question = T
    lesson = Lesson(T, T, T, T)
    params = (Param("n", 4, Text("n", "n"), T, minimum=1, maximum=100_000),)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))
    threads: ClassVar[set[int]] = set()  # the threads its calls ran on

    def setup(self, lab, variant):
        import jax.numpy as jnp

        f = lab.probe(square)

        def step(values):
            Square.threads.add(threading.get_ident())
            return f(jnp.ones(values["n"]))

        return step


@pytest.fixture
def executor(qtbot) -> Iterator[Any]:
    from jitlab.gui.app import application
    from jitlab.gui.executor import Executor

    application()
    Square.threads.clear()
    ex = Executor(discover=False)
    ex.start()
    yield ex
    assert ex.shutdown(TIMEOUT_MS)
    assert ex.isFinished(), "the executor thread is still running"


def finished(ex) -> list[Any]:
    """The calls finished so far (the test never drains the events)."""
    return [e.record for e in list(ex.events) if isinstance(e, CallFinished)]


def submit_and_wait(qtbot, ex, fn, **kwargs) -> tuple[int, Any, str]:
    tokens: list[int] = []
    with qtbot.waitSignal(
        ex.job_done, timeout=TIMEOUT_MS, check_params_cb=lambda t, r, e: t in tokens
    ) as blocker:
        tokens.append(ex.submit(fn, **kwargs))
    return tuple(blocker.args)  # type: ignore[return-value]


def test_a_check_and_calls_queued_together_run_in_order_on_one_thread(qtbot, executor) -> None:
    ran_on: list[int] = []

    def check() -> int:
        ran_on.append(threading.get_ident())
        return len(finished(executor))  # the calls finished before this job ran

    executor.select(Square, "pitfall", {"n": 3})
    executor.step()
    executor.step()
    with qtbot.waitSignal(executor.job_done, timeout=TIMEOUT_MS) as blocker:
        token = executor.submit(check)
        executor.step()  # queued after the check: it waits for it
    qtbot.waitUntil(lambda: len(finished(executor)) == 3, timeout=TIMEOUT_MS)
    assert blocker.args == [token, 2, ""]
    assert Square.threads == set(ran_on)  # one thread for all of it
    assert [r.index for r in finished(executor)] == [0, 1, 2]
    assert all(r.error is None for r in finished(executor))


def test_a_check_is_not_starved_by_a_slider_drag(qtbot, executor) -> None:
    executor.select(Square, "pitfall", {"n": 1})
    moves = iter(range(2, 100_000))
    made = [0]

    def move() -> None:  # a drag: a new value every millisecond, each a new shape
        made[0] += 1
        executor.set_params({"n": next(moves)}, call=True)

    drag = QTimer()
    drag.setInterval(1)
    drag.timeout.connect(move)
    drag.start()
    try:
        qtbot.waitUntil(lambda: len(finished(executor)) >= 3, timeout=TIMEOUT_MS)
        before = len(finished(executor))
        _, seen, error = submit_and_wait(qtbot, executor, lambda: len(finished(executor)))
        assert error == ""
        # Behind it: at most the call in flight and the one queued call (newest values).
        assert before <= seen <= before + 2
        qtbot.waitUntil(lambda: len(finished(executor)) >= seen + 2, timeout=TIMEOUT_MS)
    finally:
        drag.stop()
    # No backlog: the drag's moves collapsed into far fewer calls.
    assert len(finished(executor)) < made[0]
    last = made[0] + 1  # the newest value is the one the last call used
    qtbot.waitUntil(lambda: finished(executor)[-1].params == {"n": last}, timeout=TIMEOUT_MS)


def test_a_check_that_clears_the_caches_starts_the_scenario_afresh(qtbot, executor) -> None:
    from jitlab.gui.executor import RunReady

    def clear() -> None:
        import jax

        jax.clear_caches()

    executor.select(Square, "pitfall", {"n": 5})
    executor.step()
    qtbot.waitUntil(lambda: len(finished(executor)) == 1, timeout=TIMEOUT_MS)
    executor.step()
    qtbot.waitUntil(lambda: len(finished(executor)) == 2, timeout=TIMEOUT_MS)
    assert not finished(executor)[-1].kind.compiled  # a cache hit
    submit_and_wait(qtbot, executor, clear, clears_caches=True)
    executor.step()
    qtbot.waitUntil(lambda: len(finished(executor)) == 3, timeout=TIMEOUT_MS)
    events = list(executor.events)
    resets = [i for i, e in enumerate(events) if isinstance(e, RunReady) and e.reason == "reset"]
    started = [i for i, e in enumerate(events) if isinstance(e, CallStarted)]
    assert len(resets) == 1 and started[1] < resets[0] < started[2]  # before the next call
    assert finished(executor)[-1].kind.compiled  # a new segment: its first call compiles


def test_nothing_polls_and_nobody_patches_over_shared_caches() -> None:
    import jitlab.gui as gui

    folder = Path(gui.__file__).parent
    sources = {str(p.relative_to(folder)): p.read_text("utf-8") for p in folder.rglob("*.py")}
    assert not any("_caches_cleared_elsewhere" in text for text in sources.values())
    assert "sleep" not in sources["quiz/runner.py"]
    # It never polls the executor's busy flag (its page's own busy bar is no poll).
    assert not re.search(r"\.(job_)?busy\b", sources["quiz/runner.py"])


def block(ex) -> tuple[threading.Event, threading.Event, int]:
    """A job that holds the executor until released; returns (entered, release, token)."""
    entered, release = threading.Event(), threading.Event()

    def held() -> str:
        entered.set()
        release.wait(TIMEOUT_MS / 1000)
        return "released"

    token = ex.submit(held)
    return entered, release, token


def test_cancel_empties_the_queue(qtbot, executor) -> None:
    from jitlab.gui.executor import CANCELLED

    executor.select(Square, "pitfall", {"n": 2})
    entered, release, held = block(executor)
    qtbot.waitUntil(entered.is_set, timeout=TIMEOUT_MS)
    done: list[tuple[int, Any, str]] = []
    executor.job_done.connect(lambda *args: done.append(args))
    ran: list[str] = []
    queued = [executor.submit(lambda: ran.append("a")), executor.submit(lambda: ran.append("b"))]
    executor.step()
    executor.set_params({"n": 7}, call=True)
    executor.play(True, 0)
    assert executor.pending_jobs() == queued
    assert executor.cancel() == queued
    assert executor.pending_jobs() == [] and not executor.playing
    assert done == [(queued[0], None, CANCELLED), (queued[1], None, CANCELLED)]
    release.set()
    # FIFO: once a job submitted now has run, anything still queued before it would have.
    assert submit_and_wait(qtbot, executor, lambda: "after")[1:] == ("after", "")
    assert ran == [] and finished(executor) == []
    assert (held, "released", "") in done


def test_stop_cancels_the_queue_and_the_thread_ends_after_the_job_in_flight(
    qtbot, executor
) -> None:
    from jitlab.gui.executor import CANCELLED

    entered, release, held = block(executor)
    qtbot.waitUntil(entered.is_set, timeout=TIMEOUT_MS)
    queued = executor.submit(lambda: "never")
    done: list[tuple[int, Any, str]] = []
    executor.job_done.connect(lambda *args: done.append(args))
    executor.stop()
    assert done == [(queued, None, CANCELLED)]
    assert executor.isRunning()  # the job in flight runs to its end
    with pytest.raises(RuntimeError):
        executor.submit(lambda: None)
    with qtbot.waitSignal(executor.job_done, timeout=TIMEOUT_MS):
        release.set()
    assert executor.wait(TIMEOUT_MS) and executor.isFinished()
    assert done[-1] == (held, "released", "")


def test_a_successor_takes_the_queue_and_the_runner_follows(qtbot, executor) -> None:
    from jitlab.gui.executor import ABANDONED, left_behind
    from jitlab.gui.quiz.runner import QuizRunner

    runner = QuizRunner(executor)
    done: list[tuple[int, Any, str]] = []
    runner.finished.connect(lambda *args: done.append(args))
    entered, release = threading.Event(), threading.Event()
    stuck = runner.submit(lambda: (entered.set(), release.wait(TIMEOUT_MS / 1000), "late")[2])
    qtbot.waitUntil(entered.is_set, timeout=TIMEOUT_MS)
    queued = runner.submit(lambda: "answered")
    fresh = executor.successor()
    try:
        fresh.start()
        assert runner.executor is fresh and runner.scenario_worker is fresh
        assert executor in left_behind()
        qtbot.waitUntil(lambda: (queued, "answered", "") in done, timeout=TIMEOUT_MS)
        assert (stuck, None, ABANDONED) in done
        release.set()
        assert executor.wait(TIMEOUT_MS)
        QCoreApplication.processEvents()  # anything the old thread posted is delivered now
        assert [d for d in done if d[0] == stuck] == [(stuck, None, ABANDONED)]  # late: ignored
        assert executor not in left_behind()
    finally:
        release.set()
        assert runner.shutdown()  # a shared executor is its owner's to stop
        assert fresh.shutdown(TIMEOUT_MS)


def test_the_exercises_run_on_the_windows_executor(qtbot, make_window) -> None:
    window = make_window(scenario="dynamic-shapes")
    window.set_mode("execute")
    window.step()
    qtbot.waitUntil(lambda: len(window.state.records) == 1, timeout=TIMEOUT_MS)
    window.show_quiz()
    quiz = window._quiz
    qtbot.waitUntil(lambda: quiz.catalogue is not None, timeout=TIMEOUT_MS)
    assert quiz.runner.executor is window.worker  # no second thread runs JAX
    page = quiz.exercises
    page.select("print-in-jit")
    page.card.set_prediction(2)
    with qtbot.waitSignal(page.verdict_ready, timeout=TIMEOUT_MS) as blocker:
        assert page.run_check()
    assert blocker.args[0].correct
    window.set_mode("execute")  # back to the lab, the same scenario
    window.step()
    qtbot.waitUntil(lambda: len(window.state.records) == 2, timeout=TIMEOUT_MS)
    # The exercise emptied JAX's caches; the executor started the run afresh first.
    assert len(window.state.segments) == 2
    assert window.state.records[-1].kind.compiled


def test_a_job_inside_a_real_compile_reads_as_compiling_and_a_held_one_does_not(
    qtbot, executor
) -> None:
    """What lets the window give a compiling check a longer limit than a stuck one."""
    entered, release, token = block(executor)
    try:
        qtbot.waitUntil(entered.is_set, timeout=TIMEOUT_MS)
        assert executor.job_in_flight == token and not executor.job_compiling()
    finally:
        release.set()
    qtbot.waitUntil(lambda: executor.job_in_flight is None, timeout=TIMEOUT_MS)

    seen: list[bool] = []
    done = threading.Event()

    def compile_for_real() -> None:
        import jax
        import jax.numpy as jnp

        def chain(x):
            for i in range(300):
                x = jnp.sin(x * (i + 1)) + jnp.cos(x) * 0.5
            return x.sum()

        try:
            jax.jit(chain)(jnp.ones(96)).block_until_ready()
        finally:
            done.set()

    executor.submit(compile_for_real)

    def look() -> bool:
        seen.append(executor.job_compiling())
        return done.is_set()

    qtbot.waitUntil(look, timeout=TIMEOUT_MS)
    assert any(seen)  # seen inside JAX's compile path at least once
    qtbot.waitUntil(lambda: executor.job_in_flight is None, timeout=TIMEOUT_MS)
    assert not executor.job_compiling()


def test_a_jax_jitlab_cannot_see_is_one_line_in_the_app_not_a_traceback() -> None:
    # The app's JAX thread meets the contract check at its first Probe: the scenario's call
    # is an error (never a hit) whose message is the one line, and a failure outside a call
    # is worded the same. A JAX below the window is posed for real, in a fresh interpreter.
    import subprocess
    import sys

    code = (
        "import jax; jax.__version__ = '0.5.3'\n"
        "from jitlab.gui import executor\n"
        "from jitlab.lab.engine import Run\n"
        "from jitlab.lab.discovery import scenarios\n"
        "from jitlab.probe.contract import JaxContractError, check\n"
        "record = Run(scenarios()['dynamic-shapes']).step({'batch_size': 4})\n"
        "print(record.kind.value, record.error.type)\n"
        "print(executor.failure_text(JaxContractError(check())))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "error JaxContractError"
    assert len(lines) == 2 and "JAX 0.5.3" in lines[1] and "Traceback" not in done.stdout


def test_the_window_refuses_a_message_kind_it_has_no_case_for(qtbot, make_window) -> None:
    """The window's drain ends its match with assert_never: mypy proves each kind of the
    executor's Message union handled (a kind added to the union and not to the match fails
    the type check); at run time a kind outside the union is refused, never dropped."""
    from dataclasses import dataclass

    from jitlab.gui.executor import Idle

    @dataclass(frozen=True)
    class Stray:
        text: str

    window = make_window(scenario="dynamic-shapes")
    window.worker.events.append(Idle(0))  # a kind of the union: taken, nothing to show
    window.link.drain()
    window.worker.events.append(Stray("not one of the executor's messages"))  # type: ignore[arg-type]
    with pytest.raises(AssertionError):
        window.link.drain()
