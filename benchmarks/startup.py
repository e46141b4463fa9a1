"""How soon is a lesson usable after launch, against a bare PySide6 + pyqtgraph window?

    python benchmarks/startup.py [--rounds 5]

Each round starts fresh interpreters (interleaved, so load on a shared machine hits both):

* **bare**: a QMainWindow holding one pyqtgraph PlotWidget, shown: the floor any Qt +
  pyqtgraph app pays before it can draw anything;
* **jitlab**: the real main window (``jitlab.gui.app`` as ``jitlab`` builds it), timed at
  ``shown`` (the window is on screen), ``listed`` (the scenario list is filled),
  ``lesson`` (the default scenario's question and controls are shown) and ``first call``
  (a Step pressed at once has finished a real jitted call: JAX imported, traced, compiled).

Times are from process start (the parent's clock before it spawns), medians over rounds.
Goal (issue 12): the lesson usable within 1.0 s of the bare window.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

BARE = """
import sys
from PySide6.QtWidgets import QApplication, QMainWindow
import pyqtgraph as pg
app = QApplication(sys.argv)
window = QMainWindow()
window.setCentralWidget(pg.PlotWidget())
window.resize(1280, 800)
window.show()
app.processEvents()
print("shown", flush=True)
"""

JITLAB = """
import sys, os
from PySide6.QtCore import QTimer
from jitlab.gui.app import application
from jitlab.gui.settings import make_settings
from jitlab.gui import i18n
app = application()
i18n.set_language("en")
from jitlab.gui.lesson.window import MainWindow
window = MainWindow(make_settings())
window.resize(1280, 800)
window.show()
app.processEvents()
print("shown", flush=True)
said = set()
def say(what):
    if what not in said:
        said.add(what)
        print(what, flush=True)
def poll():
    if window.scenario_list.topLevelItemCount() > 1:
        say("listed")
    if window.scenario is not None and "lesson" not in said:
        say("lesson")
        window.step()
    if window.state.records:
        say("first_call")
        window.shutdown()
        app.quit()
timer = QTimer()
timer.timeout.connect(poll)
timer.start(2)
app.exec()
os._exit(0)
"""


def run(code: str, env: dict[str, str]) -> dict[str, float]:
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env
    )
    marks: dict[str, float] = {}
    assert proc.stdout is not None
    for line in proc.stdout:
        marks[line.strip()] = time.perf_counter() - start
    proc.wait(timeout=120)
    return marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env["JITLAB_SETTINGS"] = os.path.join(tempfile.mkdtemp(), "startup.ini")
    bare: list[float] = []
    lab: dict[str, list[float]] = {}
    run(BARE, env), run(JITLAB, env)  # warm the OS file cache once
    for _ in range(args.rounds):
        bare.append(run(BARE, env)["shown"])
        for mark, t in run(JITLAB, env).items():
            lab.setdefault(mark, []).append(t)
    base = statistics.median(bare)
    print(f"bare PySide6+pyqtgraph window shown: {base:.2f} s (median of {args.rounds})")
    for mark in ("shown", "listed", "lesson", "first_call"):
        t = statistics.median(lab[mark])
        print(f"jitlab {mark:<10} {t:5.2f} s   (+{t - base:.2f} s after the bare window)")
    lesson = statistics.median(lab["lesson"]) - base
    print(f"lesson usable {lesson:.2f} s after the bare window (goal <= 1.00 s)")


if __name__ == "__main__":
    main()
