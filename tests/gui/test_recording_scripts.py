"""`jitlab open` of a `jitlab watch --scripts` recording: a kitchen card opens its script."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from PySide6.QtCore import QPoint, Qt

import jitlab
from jitlab.gui.recording.window import RecordingWindow

# Offscreen, a script window cannot be raised; the test reads what it shows.
offscreen = pytest.mark.qt_log_ignore("does not support raise", "propagateSizeHints")


def _record(path: Path, scripts: bool | str) -> None:
    with jitlab.watch(path, scripts=scripts):

        @jax.jit
        def layer(x, w):
            return jnp.tanh(x @ w)

        w = jnp.ones((8, 4))
        for n in (2, 2, 3, 3, 2):
            layer(jnp.ones((n, 8)), w)


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("scripts")
    paths = {}
    for mode in ("texts", "figures", "none"):
        paths[mode] = folder / f"{mode}.jsonl"
        _record(paths[mode], False if mode == "none" else mode)
    return paths


def _window(qtbot, path: Path) -> RecordingWindow:
    window = RecordingWindow(path, follow=False)
    qtbot.addWidget(window)
    window.resize(1300, 850)
    window.show()
    qtbot.waitUntil(lambda: window.picked is not None)
    return window


def _card_point(qtbot, window: RecordingWindow, number: int) -> QPoint:
    canvas = window.kitchen.canvas
    canvas.repaint()
    qtbot.waitUntil(lambda: bool(canvas._card_rects))
    rect, _ = next(r for r in canvas._card_rects if r[1].number == number)
    return rect.center().toPoint()


def _click(qtbot, window: RecordingWindow, number: int):
    canvas = window.kitchen.canvas
    point = _card_point(qtbot, window, number)
    card = canvas.card_at(point)
    assert card is not None and card.number == number
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(lambda: len(window.scripts.windows) > 0)
    (script_window,) = [w for k, w in window.scripts.windows.items() if k[1] == card.key[1]]
    return script_window


@offscreen
def test_clicking_a_card_opens_its_recorded_script(qtbot, recordings):
    window = _window(qtbot, recordings["texts"])
    counts = (window.kitchen.values["compiles"].text(), window.kitchen.values["calls"].text())
    script_window = _click(qtbot, window, 2)
    view = script_window.view
    script = view.script
    assert script is not None and script.card == 1 and script.created_by == 2
    assert script.signature.leaves[0].shape == (3, 8)
    assert "tanh" in view.jaxpr.text() and "ENTRY" in view.hlo.text()
    assert "stablehlo.tanh" in view.stablehlo.text() and "def layer" in view.source.text()
    assert view.figures.rowCount() > 5
    assert "equations" in view.summary.text()
    # Reading a script changes none of the recording's counts.
    after = (window.kitchen.values["compiles"].text(), window.kitchen.values["calls"].text())
    assert after == counts == ("2 (1)", "5")  # 2 compiles, 1 of them a recompile; 5 calls
    # Compare: the other card's recorded script, diffed here (no JAX needed).
    assert view.compare_with.count() == 1
    view.compare_button.click()
    qtbot.waitUntil(lambda: bool(window.scripts.diffs))
    compared = window.scripts.diffs[-1].compared
    assert compared.diff is not None and "f32[2,8]" in compared.diff.jaxpr_diff


@offscreen
def test_a_figures_only_recording_shows_figures_and_how_to_get_texts(qtbot, recordings):
    window = _window(qtbot, recordings["figures"])
    view = _click(qtbot, window, 1).view
    assert view.script.figures is not None and view.script.figures.hlo_instructions
    assert view.figures.rowCount() > 5
    assert "--script-texts" in view.hlo.text()
    assert "def layer" in view.source.text()


@offscreen
def test_without_recorded_scripts_the_window_says_how_to_get_them(qtbot, recordings):
    window = _window(qtbot, recordings["none"])
    view = _click(qtbot, window, 1).view
    assert view.script is None
    assert "jitlab watch --scripts" in view.summary.text()
    assert not view.compare_button.isEnabled()
