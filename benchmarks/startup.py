"""How soon is a lesson usable after launch, against a bare PySide6 + pyqtgraph window?

    python benchmarks/startup.py [--rounds 5] [--scenario ID] [--compare OTHER_CHECKOUT]

Each round starts fresh interpreters (interleaved, so load on a shared machine hits all):

* **bare**: a QMainWindow holding one pyqtgraph PlotWidget, shown: the floor any Qt +
  pyqtgraph app pays before it can draw anything;
* **jitlab**: the real main window (``jitlab.gui.app`` as ``jitlab`` builds it), timed at
  ``shown`` (the window is on screen), ``listed`` (the scenario list is filled),
  ``question`` (the scenario's question and the prediction box are shown: the Start
  screen a learner reads first, from the manifest, before JAX), ``lesson`` (its sliders
  and Step are there and enabled: built from the manifest's spec, before JAX), ``jax``
  (discovery, which imports JAX on the worker, has landed) and ``first_call`` (a Step
  pressed at ``lesson`` has finished a real jitted call: queued until JAX and the contract
  check were ready, then traced, compiled);
* **other** (``--compare PATH``): the same window from another checkout (say, the commit
  before a change), interleaved in the same rounds: before/after under the same load.

Times are from process start (the parent's clock before it spawns): medians over rounds,
with the spread (min–max) and each mark's ratio to the bare window. A built-in whose file
changed since ``resources/scenarios.json`` was written has no early question (the manifest
leaves it out until discovery): then ``question`` is ``lesson``.
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
window = MainWindow(make_settings(), os.environ.get("STARTUP_SCENARIO") or None)
window.resize(1280, 800)
window.show()
app.processEvents()
print("shown", flush=True)
said = set()
def say(what):  # to the real stdout: a call in flight routes sys.stdout to its record
    if what not in said:
        said.add(what)
        os.write(1, (what + "\\n").encode())
lesson = window.briefing
def poll():
    if window.scenario_list.topLevelItemCount() > 1:
        say("listed")
    if lesson.question.text() and lesson.prediction.isVisible():
        say("question")
    controls = window.run_controls
    if not controls.isHidden() and controls.step.isEnabled() and "lesson" not in said:
        say("lesson")
        window.step()
    if window.catalogue.entries:
        say("jax")
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


MARKS = ("shown", "listed", "question", "lesson", "jax", "first_call")


HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # this checkout
NOWHERE = tempfile.mkdtemp()  # the children's working folder: "-c" puts it first on sys.path


def run(code: str, env: dict[str, str]) -> dict[str, float]:
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env, cwd=NOWHERE
    )
    marks: dict[str, float] = {}
    assert proc.stdout is not None
    for line in proc.stdout:
        marks[line.strip()] = time.perf_counter() - start
    proc.wait(timeout=120)
    return marks


def report(name: str, marks: dict[str, list[float]], base: float) -> None:
    for mark in MARKS:
        times = marks.get(mark)
        if not times:
            continue
        t = statistics.median(times)
        print(
            f"{name} {mark:<10} {t:5.2f} s  (+{t - base:.2f} s after bare, x{t / base:.2f};"
            f" spread {min(times):.2f}-{max(times):.2f} s)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--scenario", default="", help="the scenario the window opens")
    parser.add_argument("--compare", default="", help="another checkout, timed alongside")
    args = parser.parse_args()
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env["JITLAB_SETTINGS"] = os.path.join(tempfile.mkdtemp(), "startup.ini")
    env["STARTUP_SCENARIO"] = args.scenario
    env["PYTHONPATH"] = HERE  # this checkout's jitlab, whatever the venv installed
    faces = {"jitlab": env}
    if args.compare:
        other = dict(env, PYTHONPATH=os.path.abspath(args.compare))
        other["JITLAB_SETTINGS"] = os.path.join(tempfile.mkdtemp(), "startup.ini")
        faces = {"other ": other, "jitlab": env}
    bare: list[float] = []
    lab: dict[str, dict[str, list[float]]] = {name: {} for name in faces}
    run(BARE, env)  # warm the OS file cache once
    for face_env in faces.values():
        run(JITLAB, face_env)
    for _ in range(args.rounds):
        bare.append(run(BARE, env)["shown"])
        for name, face_env in faces.items():
            for mark, t in run(JITLAB, face_env).items():
                lab[name].setdefault(mark, []).append(t)
    base = statistics.median(bare)
    print(
        f"bare PySide6+pyqtgraph window shown: {base:.2f} s (median of {args.rounds};"
        f" spread {min(bare):.2f}-{max(bare):.2f} s)"
    )
    for name, marks in lab.items():
        report(name, marks, base)
    for name, marks in lab.items():
        for mark in ("question", "lesson"):
            if marks.get(mark):
                late = statistics.median(marks[mark]) - base
                print(f"{name.strip()}: {mark} {late:.2f} s after the bare window (goal <= 1.00 s)")


if __name__ == "__main__":
    main()
