"""Helpers for the GUI tests: waiting for calls, reading the signature ledger as a person
sees it, writing throwaway scenario plugins."""

from __future__ import annotations

import textwrap
from pathlib import Path

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics

CALL_TIMEOUT_MS = 60_000
CELL_MARGIN = 6  # an item view's text margins, both sides (Fusion: 3 px each)


def wait_calls(qtbot, window, count: int) -> None:
    """Wait until the window has shown ``count`` calls in total."""
    qtbot.waitUntil(lambda: len(window.log.model.records) >= count, timeout=CALL_TIMEOUT_MS)


def slide(window, name: str, value: int) -> None:
    """Drag a parameter's slider to ``value`` (one of its stops), as a learner would."""
    control = window.params.widgets[name]
    control.slider.setValue(control.stops.index(value))


def visible_rows(table) -> int:
    """Rows wholly inside the table's viewport (no scrolling)."""
    view = table.viewport().rect()
    model = table.model()
    return sum(
        view.contains(table.visualRect(model.index(row, 0))) for row in range(model.rowCount())
    )


def changed_cells(ledger) -> list[tuple[int, int]]:
    m = ledger.model
    return [(r, c) for r in range(m.rowCount()) for c in range(m.columnCount()) if m.differs(r, c)]


def whole_or_marked(ledger, row: int, column: int) -> str:
    """'whole' or 'elided' (its tooltip holds it whole); fails where the view cuts it."""
    table, model = ledger.table, ledger.model
    rect = table.visualRect(model.index(row, column))
    view = table.viewport().rect()
    assert view.contains(QRect(QPoint(rect.left(), view.top()), QPoint(rect.right(), view.top())))
    text = model.text(row, column)
    font = QFont(table.font())
    font.setBold(True)  # a changed cell is bold
    if QFontMetrics(font).horizontalAdvance(text) + CELL_MARGIN <= table.columnWidth(column):
        return "whole"
    assert table.textElideMode() == Qt.TextElideMode.ElideMiddle
    assert text in model.tooltip(row, column)
    return "elided"


EIGHT_DEVICES = "device_count=8"


def on_eight_devices(nodeid: str, passed: int) -> None:
    """Run the test ``nodeid`` (a path::name[id]) in a fresh pytest process whose JAX starts
    with 8 simulated CPU devices (the sharding lesson's), and check ``passed`` of it passed."""
    import os
    import subprocess
    import sys

    env = dict(
        os.environ, XLA_FLAGS=f"--xla_force_host_platform_{EIGHT_DEVICES}", JAX_PLATFORMS="cpu"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider", nodeid],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(__file__).parent,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert f"{passed} passed" in done.stdout and "skipped" not in done.stdout, done.stdout[-2000:]


def write_scenarios(folder: Path, **sources: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in sources.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    return folder


HEADER = """
from jitlab.lab.scenario import (
    AutoplayStep, Lab, Lesson, Param, Pitfall, Scenario, Text, Variant,
)
T = Text("en", "zh")
VARIANTS = (Variant("pitfall", Text("Pitfall", "陷阱"), T), Variant("fix", Text("Fix", "修正"), T))
"""

RAISER = (
    HEADER
    + """
import jax.numpy as jnp

def bad_step(x):
    return x @ jnp.ones((3, 3))  # (n,) @ (3, 3) fails unless n == 3

class Raiser(Scenario):
    id = "raiser"
    pitfall = Pitfall.ERROR_DEBUGGING
    title = Text("A call that raises", "会报错的调用")
    question = T
    lesson = Lesson(T, T, T, T)
    params = (Param("n", 4, Text("n", "n"), T, minimum=1, maximum=8),)
    variants = VARIANTS

    def setup(self, lab, variant):
        f = lab.probe(bad_step)
        return lambda values: f(jnp.ones(values["n"]))

    def code_objects(self, variant):
        return (bad_step,)
"""
)

BROKEN = "raise RuntimeError('this plugin is broken on purpose')\n"

SQUARE = (
    HEADER
    + """
import jax.numpy as jnp

def square(x):
    return x * x

class Square(Scenario):
    id = "square"
    pitfall = Pitfall.DYNAMIC_SHAPES
    title = Text("Squares", "平方")
    question = T
    lesson = Lesson(T, T, T, T)
    params = (Param("n", 4, Text("n", "n"), T, minimum=1, maximum=64, log_scale=True),)
    variants = VARIANTS
    autoplay = (AutoplayStep({"n": 2}), AutoplayStep({"n": 2}), AutoplayStep({"n": 3}))

    def setup(self, lab, variant):
        f = lab.probe(square)
        return lambda values: f(jnp.ones(values["n"]))

    def code_objects(self, variant):
        return (square,)
"""
)
