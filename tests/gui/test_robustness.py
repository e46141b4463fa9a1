"""A scenario that raises, a broken plugin, and closing the window in the middle of a compile."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest
from guihelp import BROKEN, HEADER, RAISER, SQUARE, wait_calls, write_scenarios
from PySide6.QtCore import Qt, QTimer

from jitlab.gui.views.model import Phase
from jitlab.records.calls import CallKind

pytestmark = pytest.mark.slow


def test_a_scenario_that_raises_and_a_broken_plugin(qtbot, make_window, tmp_path) -> None:
    folder = write_scenarios(tmp_path / "plugins", raiser=RAISER, broken=BROKEN, square=SQUARE)
    window = make_window(scenarios_dir=folder, scenario="raiser")
    assert window.scenario.id == "raiser"
    # The broken plugin is listed, greyed out, with its error on hover.
    items = window.scenario_list.findItems("broken", Qt.MatchFlag.MatchRecursive)
    assert len(items) == 1
    assert items[0].flags() == Qt.ItemFlag.NoItemFlags
    assert "broken on purpose" in items[0].toolTip(0)
    # The raising call becomes an error row and fills the error view; the app goes on.
    window.step()
    wait_calls(qtbot, window, 1)
    record = window.state.records[0]
    assert record.kind is CallKind.ERROR
    assert window.log.visible_rows()[0].kind is CallKind.ERROR
    assert window.panes.bottom.currentWidget() is window.error_view
    assert record.error.type in window.error_view.toPlainText()
    assert window.kitchen.canvas.status() == "The order failed: see the error"
    window.params.set_values({"n": 3})  # (3,) @ (3, 3) works
    wait_calls(qtbot, window, 2)
    assert window.state.records[-1].kind is CallKind.COMPILE
    # Another scenario still runs.
    window.select_scenario("square")
    window.step()
    wait_calls(qtbot, window, 1)
    qtbot.waitUntil(lambda: window.state.records and window.state.records[0].kind.compiled)


# A compile the test holds: once its trace has ended (the kitchen shows the script being
# written), a jax.monitoring listener, registered after jitlab's own, waits on ``gate``.
HELD = (
    HEADER
    + """
import threading

import jax
import jax.numpy as jnp

def held(x):
    return jnp.sin(x).sum()

class Held(Scenario):
    id = "held"
    pitfall = Pitfall.RECOMPILE_COST
    title = Text("A compile the test holds", "测试控制的编译")
    question = T
    lesson = Lesson(T, T, T, T)
    params = (Param("n", 8, Text("n", "n"), T, minimum=1, maximum=64),)
    variants = VARIANTS
    gate = threading.Event()  # set: the compile goes on
    holding = threading.Event()  # the call is held inside its compile
    armed = []  # the thread whose next trace end is held
    listening = []

    def setup(self, lab, variant):
        f = lab.probe(held)  # installs jitlab's listeners first: its phase is seen first
        if not Held.listening:
            Held.listening.append(True)

            def hold(event, duration, fun_name=None, **kwargs):
                mine = fun_name == "held" and threading.get_ident() in Held.armed
                if mine and event.endswith("jaxpr_trace_duration"):
                    Held.armed.clear()
                    Held.holding.set()
                    Held.gate.wait(60)

            jax.monitoring.register_event_duration_secs_listener(hold)

        def step(values):
            Held.armed[:] = [threading.get_ident()]
            return f(jnp.ones(values["n"]))

        return step
"""
)


def test_close_during_a_compile_waits_for_it(qtbot, make_window, tmp_path) -> None:
    folder = write_scenarios(tmp_path / "plugins", held=HELD)
    window = make_window(scenarios_dir=folder, scenario="held")
    cls = window.scenario
    cls.gate.clear()
    cls.holding.clear()
    released: list[float] = []
    try:
        window.set_mode("execute")
        window.step()
        qtbot.waitUntil(cls.holding.is_set, timeout=60_000)  # held between trace and compile
        # The kitchen shows the script being written while XLA compiles.
        qtbot.waitUntil(lambda: window.state.phase is Phase.WRITING, timeout=60_000)
        assert "compiling" in window.kitchen.canvas.status()
        assert window.kitchen.canvas.lit()["station-writing"]
        assert window.worker.busy
        # Only the close's own event loop can let the compile go on: if close() returns
        # after the release, it waited for the call in flight.
        QTimer.singleShot(300, lambda: (released.append(time.perf_counter()), cls.gate.set()))
        window.close()
        closed = time.perf_counter()
    finally:
        cls.gate.set()
    assert released and released[0] <= closed
    assert window.worker.isFinished() and not window.worker.abandoned
    assert not window.isVisible()


CLOSE_SCRIPT = """
import os
import signal
import sys
from pathlib import Path
from PySide6.QtCore import QSettings, QTimer
from jitlab.gui.app import application, close_on_signals
from jitlab.gui.lesson.window import MainWindow
from jitlab.gui.views.model import Phase

app = application()
window = MainWindow(QSettings(sys.argv[2], QSettings.Format.IniFormat), "held",
                    scenarios_dir=Path(sys.argv[1]), entry_points=False)
close_on_signals(window)
window.show()
window.scenarios_loaded.connect(window.step)

def check():
    if window.state.phase is Phase.WRITING:  # held there until the close lets it go on
        print("closing during compile", file=sys.stderr, flush=True)  # stdout is routed
        QTimer.singleShot(300, window.scenario.gate.set)
        if sys.argv[3] == "signal":
            os.kill(os.getpid(), signal.SIGTERM)
        else:
            window.close()
    else:
        QTimer.singleShot(20, check)

QTimer.singleShot(20, check)
status = app.exec()
print("exited", window.worker.isFinished(), file=sys.stderr, flush=True)
sys.exit(status)
"""


@pytest.mark.parametrize("how", ["close", "signal"])
def test_closing_the_app_during_a_compile_exits_0(tmp_path, how: str) -> None:
    folder = write_scenarios(tmp_path / "plugins", held=HELD)
    script = tmp_path / "close.py"
    script.write_text(textwrap.dedent(CLOSE_SCRIPT), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, str(script), str(folder), str(tmp_path / "s.ini"), how],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    assert "closing during compile" in result.stderr
    assert "exited True" in result.stderr
    assert "QThread: Destroyed" not in result.stderr
