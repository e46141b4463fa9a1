"""Fault table, GUI: a call that never returns leaves the app in the user's hands.

Faults are injected for real: a scenario plugin whose call hangs (on a lock, or in an endless
Python loop), loaded from a folder or from a third-party package registered under the
`jitlab.scenarios` entry point; signals sent with ``os.kill`` to the real ``jitlab`` process.
In-process tests release the stuck thread at the end (a ``threading.Event``), so none leaks.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("PySide6", reason="a Qt window: PySide6 is not installed")
from PySide6.QtCore import QCoreApplication, QSettings, Qt

JITLAB = Path(sys.executable).with_name("jitlab")
# The offscreen platform cannot pass size hints to a window manager; that is not our bug.
pytestmark = [pytest.mark.slow, pytest.mark.qt_log_ignore("propagateSizeHints")]
LOAD_TIMEOUT_MS = 90_000
CALL_TIMEOUT_MS = 60_000

# The call hangs when n == 2 (the default): on a lock, or in a Python loop holding the GIL in
# slices. Other values of n make an ordinary probed call, so a fresh worker can prove itself.
HANG = """
import os
import threading

import jax.numpy as jnp

from jitlab.lab.scenario import Lesson, Param, Pitfall, Scenario, Text, Variant

T = Text("x", "x")


def double(x):
    return x * 2


class Hang(Scenario):
    id = "hang"
    pitfall = Pitfall.SIDE_EFFECTS
    title = Text("A call that never returns", "永不返回的调用")
    question = T
    lesson = Lesson(T, T, T, T)
    params = (Param("n", 2, Text("n", "n"), T, minimum=1, maximum=8),)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))
    release = threading.Event()  # in-process tests set it at the end
    entered = threading.Event()

    def setup(self, lab, variant):
        f = lab.probe(double)

        def step(values):
            if values["n"] == 2:
                Hang.entered.set()
                os.write(2, b"hang: the call is stuck\\n")
                if os.environ.get("JITLAB_TEST_HANG") == "loop":
                    while not Hang.release.is_set():
                        pass
                else:
                    Hang.release.wait()
            return f(jnp.ones(values["n"]))

        return step
"""

NO_PARAMS = """
import jax.numpy as jnp

from jitlab.lab.scenario import Lesson, Pitfall, Scenario, Text, Variant

T = Text("x", "x")


def plus_one(x):
    return x + 1


class NoParams(Scenario):
    id = "no-params"
    pitfall = Pitfall.CONTROL_FLOW
    title = Text("No parameters", "没有参数")
    question = T
    lesson = Lesson(T, T, T, T)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))

    def setup(self, lab, variant):
        f = lab.probe(plus_one)
        return lambda values: f(jnp.ones(3))
"""

SQUARE = """
import jax.numpy as jnp

from jitlab.lab.scenario import Lesson, Param, Pitfall, Scenario, Text, Variant

T = Text("x", "x")


def square(x):
    return x * x


class Square(Scenario):
    id = "square"
    pitfall = Pitfall.DYNAMIC_SHAPES
    title = Text("Squares", "平方")
    question = T
    lesson = Lesson(T, T, T, T)
    params = (Param("n", 4, Text("n", "n"), T, minimum=1, maximum=64),)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))

    def setup(self, lab, variant):
        f = lab.probe(square)
        return lambda values: f(jnp.ones(values["n"]))
"""


def write_plugins(folder: Path, **sources: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in sources.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    return folder


def make_package(site: Path) -> Path:
    """A third-party package whose scenario hangs, registered by its own dist-info."""
    package = site / "hanging_plugin"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(HANG), encoding="utf-8")
    dist = site / "hanging_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: hanging-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[jitlab.scenarios]\nhang = hanging_plugin:Hang\n")
    return site


# -- in process: Pause, Reset and a switch act while a call is stuck ------------------------
@pytest.fixture
def make_window(qtbot, tmp_path: Path) -> Iterator:
    """Real windows on real workers; afterwards every stuck call is released and every
    thread, the abandoned ones included, must have ended."""
    from jitlab.gui import executor as worker
    from jitlab.gui import i18n
    from jitlab.gui.app import application
    from jitlab.gui.lesson.window import MainWindow

    application()
    windows: list[MainWindow] = []
    releases: list[threading.Event] = []

    def make(folder: Path, scenario: str) -> MainWindow:
        settings = QSettings(str(tmp_path / "jitlab.ini"), QSettings.Format.IniFormat)
        window = MainWindow(settings, scenario, scenarios_dir=folder, entry_points=False)
        window.autoplay_delay_ms = 0
        windows.append(window)
        window.show()
        qtbot.waitUntil(lambda: bool(window.catalogue.entries), timeout=LOAD_TIMEOUT_MS)
        for entry in window.catalogue.entries:
            if entry.scenario is not None and hasattr(entry.scenario, "release"):
                entry.scenario.release.clear()  # the module may be shared with a past test
                entry.scenario.entered.clear()
                releases.append(entry.scenario.release)
        return window

    yield make
    for event in releases:
        event.set()
    for thread in list(getattr(worker, "_LEFT_BEHIND", ())):
        assert thread.wait(30_000), "an abandoned thread did not end once released"
    for window in windows:
        window.close()
        window.shutdown()
        assert window.worker.isFinished(), "the worker thread is still running"
        window.deleteLater()
    assert worker.left_behind() == []
    if i18n.language() != "en":
        i18n.set_language("en")


def stuck(qtbot, window) -> None:
    """Make the call that hangs and wait until it is in flight."""
    window.set_mode("execute")
    window.step()
    hang = window.catalogue.class_of("hang")
    assert hang is not None
    qtbot.waitUntil(hang.entered.is_set, timeout=CALL_TIMEOUT_MS)
    qtbot.waitUntil(lambda: window.state.in_flight is not None, timeout=CALL_TIMEOUT_MS)
    assert window.worker.busy


def wait_records(qtbot, window, count: int) -> None:
    qtbot.waitUntil(lambda: len(window.state.records) >= count, timeout=CALL_TIMEOUT_MS)


def abandoned(window) -> bool:
    return "abandoned" in window.kitchen.canvas.status()


def test_pause_abandons_a_stuck_call_and_a_fresh_worker_takes_over(
    qtbot, make_window, tmp_path
) -> None:
    window = make_window(write_plugins(tmp_path / "p", hang=HANG), "hang")
    window.set_mode("execute")
    window.run_controls.play.click()  # Run: the first call hangs
    stuck(qtbot, window)
    old = window.worker
    clicked = time.perf_counter()
    window.run_controls.play.click()  # Pause
    qtbot.waitUntil(lambda: abandoned(window), timeout=5_000)
    assert time.perf_counter() - clicked < 3.0
    assert window.worker is not old and old.abandoned and old.isRunning()
    assert not window.worker.playing
    assert window.kitchen.canvas.status().startswith("Still running after")
    assert "abandoned" in window.status_label.text()
    # The fresh worker runs the same scenario on a new run: the next call compiles anew.
    window.params.set_values({"n": 3})
    wait_records(qtbot, window, 1)
    record = window.state.records[-1]
    assert record.error is None and record.params == {"n": 3} and record.kind.compiled
    assert window.worker.current_run.scenario_cls.id == "hang"
    # Released, the stale thread ends, and its late result is ignored.
    old_run = old.current_run
    old_run.scenario_cls.release.set()
    assert old.wait(30_000)
    assert len(old_run.records) == 1  # it did finish its call…
    QCoreApplication.sendPostedEvents()  # whatever the ended thread said has arrived,
    window.link.drain()  # and the frame loop has taken in every event there is
    assert [r.params["n"] for r in window.state.records] == [3]  # …which nobody shows


def test_reset_and_a_switch_act_while_a_call_is_stuck(qtbot, make_window, tmp_path) -> None:
    window = make_window(write_plugins(tmp_path / "p", hang=HANG, square=SQUARE), "hang")
    stuck(qtbot, window)
    window.run_controls.reset.click()
    qtbot.waitUntil(lambda: abandoned(window), timeout=5_000)
    qtbot.waitUntil(lambda: len(window.state.segments) == 2)  # the fresh worker's new run
    window.params.set_values({"n": 5})  # the fresh worker answers at once
    wait_records(qtbot, window, 1)
    assert window.state.records[-1].params == {"n": 5}
    assert len(window.state.segments) == 2
    # Stuck again, then switch scenario with a click in the list.
    window.params.set_values({"n": 2})
    qtbot.waitUntil(lambda: window.worker.busy and window.state.in_flight is not None)
    item = window.scenario_list.findItems("Squares", Qt.MatchFlag.MatchRecursive)[0]
    rect = window.scenario_list.visualItemRect(item)
    qtbot.mouseClick(window.scenario_list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.scenario.id == "square"
    switched = time.perf_counter()
    qtbot.waitUntil(lambda: not window.worker.busy, timeout=5_000)
    assert time.perf_counter() - switched < 2.5  # the call gets a moment (1 s) to return
    window.step()
    wait_records(qtbot, window, 1)
    assert window.worker.current_run.scenario_cls.id == "square"
    assert window.state.records[-1].function == "square"


def test_the_exercises_do_not_wait_behind_a_stuck_call(qtbot, make_window, tmp_path) -> None:
    window = make_window(write_plugins(tmp_path / "p", hang=HANG), "hang")
    stuck(qtbot, window)
    window.show_quiz()  # its first job (loading the exercises) waits for an idle worker
    qtbot.waitUntil(lambda: abandoned(window), timeout=5_000)
    assert window._quiz.runner.scenario_worker is window.worker
    qtbot.waitUntil(lambda: window._quiz.catalogue is not None, timeout=LOAD_TIMEOUT_MS)


def hanging_check(qtbot, window) -> tuple[threading.Event, int, list]:
    """The exercises open, then a check that never returns (until released) is in flight;
    returns (release, token, what the quiz was told)."""
    window.show_quiz()
    qtbot.waitUntil(lambda: window._quiz.catalogue is not None, timeout=LOAD_TIMEOUT_MS)
    release, entered = threading.Event(), threading.Event()

    def check() -> str:
        entered.set()
        release.wait()
        return "late"

    told: list = []
    runner = window._quiz.runner
    runner.finished.connect(lambda token, result, error: told.append((token, result, error)))
    token = runner.submit(check)
    qtbot.waitUntil(entered.is_set, timeout=CALL_TIMEOUT_MS)
    assert window.worker.job_in_flight == token
    return release, token, told


def test_a_stuck_check_is_abandoned_and_a_fresh_worker_takes_over(
    qtbot, make_window, tmp_path
) -> None:
    from jitlab.gui.executor import ABANDONED
    from jitlab.gui.lesson.worker_link import JOB_STUCK_S

    window = make_window(write_plugins(tmp_path / "p", square=SQUARE), "square")
    release, token, told = hanging_check(qtbot, window)
    try:
        old = window.worker
        left = time.perf_counter()
        window.set_mode("execute")  # back to the lab: leaving the exercises…
        window.step()  # …and a Step that would wait behind the check
        qtbot.waitUntil(lambda: bool(told), timeout=JOB_STUCK_S * 1000 + 5_000)
        waited = time.perf_counter() - left
        assert told == [(token, None, ABANDONED)]
        assert JOB_STUCK_S - 0.1 < waited < JOB_STUCK_S + 3.0
        assert window.worker is not old and old.abandoned and old.isRunning()
        assert window._quiz.runner.executor is window.worker
        wait_records(qtbot, window, 1)  # the Step runs on the fresh worker
        assert window.worker.current_run.scenario_cls.id == "square"
        assert not window._quiz.exercises.busy.isVisible()  # the check is no longer "running"
    finally:
        release.set()
    assert old.wait(30_000)  # released, the stale thread returns its late result and ends…
    QCoreApplication.sendPostedEvents()  # …and whatever it said has reached the GUI now
    assert told == [(token, None, ABANDONED)]  # …which nobody is told


def test_a_check_inside_a_compile_gets_the_longer_limit(
    qtbot, make_window, tmp_path, monkeypatch
) -> None:
    from jitlab.gui.executor import ABANDONED
    from jitlab.gui.lesson import worker_link

    monkeypatch.setattr(worker_link, "JOB_STUCK_S", 0.2)
    monkeypatch.setattr(worker_link, "JOB_COMPILE_S", 2.0)
    window = make_window(write_plugins(tmp_path / "p", square=SQUARE), "square")
    release, token, told = hanging_check(qtbot, window)
    try:
        old = window.worker
        compiling = [True]  # what the executor reads from the thread's stack, held for the test
        monkeypatch.setattr(old, "job_compiling", lambda: compiling[0])
        window.run_controls.reset.click()
        started = old.job_started
        qtbot.waitUntil(lambda: bool(told), timeout=10_000)
        assert told == [(token, None, ABANDONED)]
        assert time.perf_counter() - started >= 2.0  # not after JOB_STUCK_S: it compiles
        assert window.worker is not old
    finally:
        release.set()
    assert old.wait(30_000)


def test_closing_with_a_stuck_call_waits_a_grace_period_then_leaves_it(
    qtbot, make_window, tmp_path
) -> None:
    from jitlab.gui import executor as worker

    window = make_window(write_plugins(tmp_path / "p", hang=HANG), "hang")
    stuck(qtbot, window)
    window.link.close_grace_s = 1.0
    start = time.perf_counter()
    window.close()
    waited = time.perf_counter() - start
    assert 0.9 < waited < 3.0
    assert not window.isVisible()
    assert window.worker.abandoned and window.worker in worker.left_behind()
    settings = QSettings(str(tmp_path / "jitlab.ini"), QSettings.Format.IniFormat)
    assert settings.value("last_scenario") == "hang"


# -- item 8: a scenario without parameters, then one with --------------------------------
def test_switching_from_no_parameters_to_parameters(qtbot, make_window, tmp_path) -> None:
    window = make_window(write_plugins(tmp_path / "p", none=NO_PARAMS, square=SQUARE), "square")
    window.set_mode("execute")
    params = window.params

    def click(title: str) -> None:
        item = window.scenario_list.findItems(title, Qt.MatchFlag.MatchRecursive)[0]
        rect = window.scenario_list.visualItemRect(item)
        qtbot.mouseClick(
            window.scenario_list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center()
        )

    click("No parameters")
    assert window.scenario.id == "no-params"
    qtbot.waitUntil(lambda: params.empty.isVisibleTo(params), timeout=2_000)
    assert params.widgets == {}
    click("Squares")  # raised "Internal C++ object already deleted" here
    assert window.scenario.id == "square"
    assert not params.empty.isVisibleTo(params)
    assert params.widgets["n"].isVisibleTo(params)
    window.step()
    wait_records(qtbot, window, 1)
    assert window.worker.current_run.scenario_cls.id == "square"
    assert window.state.records[-1].function == "square"
    click("No parameters")  # and back
    assert params.empty.isVisibleTo(params)
    window.menus.lang_actions["zh"].trigger()
    assert params.empty.text() != "This scenario has no parameters."


# -- item 9: a malformed JITLAB_GEOMETRY -----------------------------------------------
@pytest.mark.parametrize("value", ["axb", "1280x", "x800", "0x0", "12x-3"])
def test_a_malformed_geometry_is_a_one_line_warning(
    qtbot, make_window, tmp_path, monkeypatch, capsys, value
) -> None:
    monkeypatch.setenv("JITLAB_GEOMETRY", value)
    window = make_window(write_plugins(tmp_path / "p", square=SQUARE), "square")
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "JITLAB_GEOMETRY" in line]
    assert len(lines) == 1 and "warning" in lines[0] and "Traceback" not in err
    assert window.width() > 100 and window.height() > 100


def test_a_good_geometry_is_used(qtbot, make_window, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("JITLAB_GEOMETRY", "1500x950")
    window = make_window(write_plugins(tmp_path / "p", square=SQUARE), "square")
    assert (window.width(), window.height()) == (1500, 950)


# -- real processes, real signals -------------------------------------------------------
class Process:
    """A real subprocess whose stderr is read as it comes (to know when to send a signal)."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)

    def wait_for(self, text: str, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while not any(text in line for line in self.lines):
            assert self.proc.poll() is None, "".join(self.lines)
            assert time.monotonic() < deadline, f"no {text!r}:\n" + "".join(self.lines)
            time.sleep(0.05)

    def signal_and_time(self, signum: int, timeout: float = 30.0) -> float:
        """Send ``signum``; seconds until the process has exited."""
        start = time.monotonic()
        os.kill(self.proc.pid, signum)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            pytest.fail(f"still running {timeout} s after the signal:\n" + "".join(self.lines))
        self._reader.join(5)
        assert self.proc.stderr is not None
        self.proc.stderr.close()  # else a ResourceWarning (an error in this suite)
        return time.monotonic() - start

    @property
    def stderr(self) -> str:
        return "".join(self.lines)


def gui_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        JITLAB_SETTINGS=str(tmp_path / "settings.ini"),
        JITLAB_GEOMETRY="1200x800",
        **extra,
    )
    return env


@pytest.mark.usefixtures("installed_plugins")
@pytest.mark.parametrize(
    ("how", "signum"), [("loop", signal.SIGINT), ("lock", signal.SIGTERM)], ids=["int", "term"]
)
def test_a_signal_ends_the_app_with_a_call_stuck_forever(tmp_path, how, signum) -> None:
    site = make_package(tmp_path / "site")
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    env = gui_env(tmp_path, PYTHONPATH=path, JITLAB_TEST_HANG=how)
    app = Process([str(JITLAB), "--scenario", "hang", "--autoplay", "--lang", "zh"], env)
    app.wait_for("hang: the call is stuck")
    seconds = app.signal_and_time(signum)
    print(f"{signal.Signals(signum).name} with a call stuck ({how}): exit after {seconds:.1f} s")
    assert seconds < 8.0, app.stderr
    assert app.proc.returncode == 0, app.stderr
    assert "abandoned" in app.stderr
    assert "Traceback" not in app.stderr and "QThread: Destroyed" not in app.stderr
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    assert settings.value("last_scenario") == "hang"
    assert settings.value("language") == "zh"
    assert settings.value("geometry") is not None


READY = """
import sys
from PySide6.QtCore import QTimer
from jitlab.gui.app import application

application()
QTimer.singleShot(300, lambda: print("ready", file=sys.stderr, flush=True))
from jitlab.cli import main

sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize(
    "command",
    [["open", "{rec}"], ["open", "{rec}", "--no-follow"], ["quiz", "--gui"]],
    ids=["open", "open-no-follow", "quiz-gui"],
)
def test_ctrl_c_ends_jitlab_open_and_the_quiz_window(tmp_path, command) -> None:
    recording = tmp_path / "rec.jsonl"
    recording.write_text("")
    script = tmp_path / "ready.py"
    script.write_text(READY)
    args = [a.replace("{rec}", str(recording)) for a in command]
    app = Process([sys.executable, str(script), *args], gui_env(tmp_path))
    app.wait_for("ready")
    seconds = app.signal_and_time(signal.SIGINT)
    print(f"SIGINT to jitlab {' '.join(command)}: exit after {seconds:.1f} s")
    assert seconds < 8.0, app.stderr
    assert app.proc.returncode == 0, app.stderr
    assert "Traceback" not in app.stderr and "QThread: Destroyed" not in app.stderr
