"""Drive the real window on the real worker thread: calls, chart, kitchen, cards and log."""

from __future__ import annotations

import json

import pytest
from guihelp import slide, wait_calls
from PySide6.QtCore import Qt

from jitlab.gui.views.kitchen import ALARM
from jitlab.gui.views.model import Phase
from jitlab.records.calls import CallKind

pytestmark = pytest.mark.slow

K = CallKind


def test_window_appears_before_jax_loads_in_a_fresh_process() -> None:
    import subprocess
    import sys

    code = (
        "import sys, jitlab.gui.lesson.window, jitlab.gui.app, jitlab.cli; "
        "print('jax' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_slider_through_8_16_8_32(qtbot, window) -> None:
    assert window.scenario.id == "dynamic-shapes"
    assert window.mode == "start"
    window.briefing.start.click()
    assert window.mode == "execute"
    qtbot.mouseClick(window.run_controls.step, Qt.MouseButton.LeftButton)  # 8, the default
    wait_calls(qtbot, window, 1)
    for n, value in enumerate((16, 8, 32), start=2):
        slide(window, "batch_size", value)
        wait_calls(qtbot, window, n)

    records = window.state.records
    assert [r.params["batch_size"] for r in records] == [8, 16, 8, 32]
    assert [r.kind for r in records] == [K.COMPILE, K.RECOMPILE, K.CACHE_HIT, K.RECOMPILE]
    # The chart has one point per call, coloured by kind, in call order.
    qtbot.waitUntil(lambda: window.chart.point_count() == 4)
    assert window.chart.kinds_shown() == [K.COMPILE, K.RECOMPILE, K.CACHE_HIT, K.RECOMPILE]
    compiles = window.chart.points[(K.RECOMPILE, False)].getData()
    assert list(compiles[0]) == [1, 3]
    # Kitchen: three cards (8, 16, 32); the last call pulled the new card for 32; alarm lit.
    assert len(window.state.cards) == 3
    assert window.state.pulled == ("mlp_loss", 2)
    assert "32" in window.state.cards[("mlp_loss", 2)].signature
    assert window.state.phase is Phase.SERVED
    assert window.kitchen.canvas.lit()["station-alarm"] == ALARM
    assert "#3" in window.kitchen.canvas.status()
    values = {k: v.text() for k, v in window.kitchen.values.items()}
    assert values == {
        "calls": "4",
        "compiles": "3 (2)",
        "hit_rate": "25%",
        "time_lost": values["time_lost"],
    }
    assert values["time_lost"].endswith("ms") or values["time_lost"].endswith(" s")
    assert "32" in window.kitchen.reason.text() and "16" in window.kitchen.reason.text()
    # JAX agrees: three executables in the jitted function's cache.
    probe = window.worker.current_run.last_probe
    assert probe.function._cache_size() == 3
    # The log: one row per call; filter out the recompiles.
    assert [r.index for r in window.log.visible_rows()] == [0, 1, 2, 3]
    window.log.checks[K.RECOMPILE].setChecked(False)
    assert [r.kind for r in window.log.visible_rows()] == [K.COMPILE, K.CACHE_HIT]
    window.log.checks[K.RECOMPILE].setChecked(True)
    assert len(window.log.visible_rows()) == 4
    # Hovering a point finds its call.
    x, log_y = compiles[0][0], compiles[1][0]  # getData() gives the log10 shown
    vb = window.chart.plot.getPlotItem().vb
    from PySide6.QtCore import QPointF

    scene = vb.mapViewToScene(QPointF(float(x), float(log_y)))
    assert window.chart.nearest(scene).index == 1


def test_variant_switch_reset_and_overlay(qtbot, window) -> None:
    for n, value in enumerate((8, 16), start=1):
        window.params.set_values({"batch_size": value})
        wait_calls(qtbot, window, n)
    window.run_controls.choose_variant("fix")
    qtbot.waitUntil(lambda: window.state.variant == "fix")
    assert window.state.cards == {}
    assert "pad_to_bucket" in window.code.code.toPlainText()
    assert "+" in window.code.diff.toPlainText()
    for n, value in enumerate((5, 6, 8, 3), start=3):
        window.params.set_values({"batch_size": value})
        wait_calls(qtbot, window, n)
    fix = window.state.segments[-1].records
    assert [r.kind for r in fix] == [K.COMPILE, K.CACHE_HIT, K.CACHE_HIT, K.RECOMPILE]
    assert {r.variant for r in fix} == {"fix"}
    assert len(window.state.cards) == 2  # buckets 8 and 4
    # Overlay: the pitfall run and the fix run both start at call 0.
    window.run_controls.overlay.setChecked(True)
    xs = sorted(window.chart._shown_x.tolist())
    assert xs == [0, 0, 1, 1, 2, 3]
    window.run_controls.overlay.setChecked(False)
    # Reset empties the card holder; the next call compiles again.
    qtbot.keyClick(window.run_controls.reset, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    window.reset()
    qtbot.waitUntil(lambda: window.state.segments[-1].records == [] and not window.state.cards)
    window.params.set_values({"batch_size": 8})
    wait_calls(qtbot, window, 7)
    assert window.state.records[-1].kind is K.COMPILE
    assert len(window.state.cards) == 1
    # Complete mode compares the latest run of each variant (set directly: its button would
    # first run the lesson's comparison sequence on both).
    window.set_mode("complete")
    assert window.summary.cells[("fix", "calls")].text() == "1"
    assert window.summary.cells[("pitfall", "compiles")].text() == "2"


def test_run_pause_streams_cache_hits_and_slider_coalesces(qtbot, window) -> None:
    window.run_controls.rate.setValue(0)  # as fast as possible
    window.run_controls.play.click()
    wait_calls(qtbot, window, 40)
    window.run_controls.play.click()
    assert not window.worker.playing
    qtbot.waitUntil(lambda: not window.worker.busy and not window.worker.events)
    window.link.drain()
    settled = len(window.state.records)
    kinds = [r.kind for r in window.state.records]
    assert kinds[0] is K.COMPILE and set(kinds[1:]) == {K.CACHE_HIT}
    # A drag through many values while nothing else runs: the newest value wins.
    window.worker.set_params({"batch_size": 2, "depth": 31}, call=True)  # a fresh compile
    for value in range(3, 60):
        slide_value = {"batch_size": value, "depth": 4}
        window.worker.set_params(slide_value, call=True)
    qtbot.waitUntil(
        lambda: (
            window.state.records
            and window.state.records[-1].params["batch_size"] == 59
            and not window.worker.busy
        ),
        timeout=60_000,
    )
    assert len(window.state.records) - settled <= 3  # not 58 stale calls


def test_exports_match_the_cli_json(qtbot, window, tmp_path) -> None:
    for n, value in enumerate((8, 16), start=1):
        window.params.set_values({"batch_size": value})
        wait_calls(qtbot, window, n)
    data = json.loads(window.export_json(tmp_path / "calls.json").read_text(encoding="utf-8"))
    assert [c["kind"] for c in data["calls"]] == ["compile", "recompile"]
    from jitlab.records.change_words import call_json

    assert data["calls"][0] == call_json(window.state.records[0])  # as `jitlab run --json`
    assert data["summary"]["calls"] == 2
    text = window.export_csv(tmp_path / "calls.csv").read_text(encoding="utf-8")
    assert text.splitlines()[0].startswith("index,kind,latency_ms")
    assert len(text.splitlines()) == 3
    png = window.export_png(tmp_path / "chart.png")
    assert png.stat().st_size > 1000


def test_autoplay_plays_both_variants_then_summarises(qtbot, make_window, tmp_path) -> None:
    from guihelp import SQUARE, write_scenarios

    folder = write_scenarios(tmp_path / "plugins", square=SQUARE)
    window = make_window(scenarios_dir=folder, autoplay=True)
    qtbot.waitUntil(lambda: window.mode == "complete", timeout=60_000)
    pitfall = window.state.latest("pitfall").records
    fix = window.state.latest("fix").records
    assert [r.params["n"] for r in pitfall] == [2, 2, 3]
    assert [r.kind for r in pitfall] == [K.COMPILE, K.CACHE_HIT, K.RECOMPILE]
    assert [r.params["n"] for r in fix] == [2, 2, 3]
    assert window.summary.cells[("pitfall", "calls")].text() == "3"


def test_settings_persist(qtbot, window, settings) -> None:
    window.set_language("zh")
    window.close()
    settings.sync()
    assert settings.value("last_scenario") == "dynamic-shapes"
    assert settings.value("language") == "zh"
    assert not settings.value("geometry").isEmpty()


def test_screenshot_is_not_blank(qtbot, window) -> None:
    window.resize(1280, 800)
    window.set_mode("execute")
    window.params.set_values({"batch_size": 8})
    wait_calls(qtbot, window, 1)
    image = window.grab().toImage()
    assert image.width() >= 1200
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)
    }
    assert len(colours) > 50
    kitchen = window.kitchen.canvas.grab().toImage()
    colours = {
        kitchen.pixel(x, y)
        for x in range(0, kitchen.width(), 5)
        for y in range(0, kitchen.height(), 5)
    }
    assert len(colours) > 30


def test_every_control_has_a_tooltip(window) -> None:
    from PySide6.QtWidgets import (
        QAbstractButton,
        QAbstractSlider,
        QAbstractSpinBox,
        QScrollBar,
        QWidget,
    )

    kinds = (QAbstractButton, QAbstractSlider, QAbstractSpinBox)
    for mode in ("start", "execute", "complete"):
        window.set_mode(mode)
        missing = [
            w.objectName() or getattr(w, "text", lambda: "")() or type(w).__name__
            for w in window.findChildren(QWidget)
            if isinstance(w, kinds)
            and not isinstance(w, QScrollBar)
            and w.isVisible()
            and not w.toolTip()
        ]
        assert missing == [], mode


def test_autoplay_ends_on_a_like_with_like_complete_page(qtbot, make_window) -> None:
    # side-effects' demo gives the pitfall 6 calls and the fix 5: before Complete shows a
    # verdict, the demo plays the lesson's comparison sequence on both (as the button does).
    window = make_window(scenario="side-effects", autoplay=True)
    qtbot.waitUntil(
        lambda: window.mode == "complete" and not window.autoplay.beats, timeout=120_000
    )
    comparison = window.scenario.comparison()
    pitfall = window.state.latest("pitfall").records
    fix = window.state.latest("fix").records
    assert len(pitfall) == len(fix) == len(comparison.calls)
    assert [r.params for r in pitfall] == [r.params for r in fix]
    assert window.summary.missing() == ()
