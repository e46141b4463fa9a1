"""The recording window at 1024×640 (issue 54): the chart keeps a readable width (it was
~150 px beside the kitchen) and its legend whole; a function's "What changed" list groups
equal changes with a count, ranks them by how many compiles each explains and says how many
more there are (it kept 8 silently: a rebuilt lambda's paragraph 8 times, the bfloat16
switch dropped)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication

import jitlab
from jitlab.gui import i18n
from jitlab.gui.recording.texts import CHANGES_LISTED
from jitlab.gui.recording.window import open_recording_window

SMALL = (1024, 640)
CHART_MIN_W = 300
TAGS = re.compile(r"<[^>]+>")


def _program(path: Path) -> None:
    """Batches of 32 then a last partial batch; eval sizes that keep changing; a metric
    rebuilt as a new lambda every time, the last time on bfloat16 data."""
    data = np.random.default_rng(0).normal(size=(100, 8)).astype(np.float32)
    with jitlab.watch(path):

        @jax.jit
        def train_step(w, x):
            return w - 0.1 * (x @ w).mean() * w

        w = jnp.ones(8)
        for start in range(0, 100, 32):  # 32, 32, 32, 4
            w = train_step(w, data[start : start + 32])
        for n in (5, 7, 12, 13, 16, 21, 30, 31, 33, 40, 50):
            w = train_step(w, data[:n])
        for i in range(10):
            metric = jax.jit(lambda w, x: (x @ w).sum())  # a new function object each time
            x = data[:16] if i < 9 else data[:16].astype(jnp.bfloat16)
            metric(w, x).block_until_ready()


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("watch") / "run.jsonl"
    _program(path)
    return path


@pytest.fixture
def window(qtbot, settings, recording):
    from jitlab.gui.app import application

    application()
    made = open_recording_window(recording, False, settings=settings)
    qtbot.addWidget(made)
    yield made
    if i18n.language() != "en":
        i18n.set_language("en")


def details(window) -> list[str]:
    text = window.details.text().replace("<br>", "\n")
    return [html.unescape(TAGS.sub("", line)) for line in text.splitlines()]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_chart_keeps_its_width_and_its_legend_whole_at_1024(window, lang) -> None:
    i18n.set_language(lang)
    window.resize(*SMALL)
    for name in window.function_order():
        window.pick_name(name)
        QApplication.processEvents()
        QApplication.processEvents()
        chart, legend = window.chart, window.chart.legend
        assert chart.width() >= CHART_MIN_W, (lang, name, chart.width(), window.top_split.sizes())
        right = chart.mapTo(window, QPoint(chart.width(), 0)).x()
        assert right <= window.width(), (lang, name, right)
        assert window.minimumSizeHint().width() <= SMALL[0]
        assert legend.heightForWidth(legend.width()) <= legend.height(), (lang, name)
        assert legend.width() <= chart.width()
        assert window.kitchen.canvas.isVisible() and window.kitchen.canvas.width() >= 300


def test_what_changed_groups_equal_changes_ranks_them_and_says_how_many_more(window) -> None:
    window.pick_name("<lambda>")
    lines = details(window)
    rebuilt = [line for line in lines if "new function object" in line]
    assert len(rebuilt) == 1, lines  # once, with its count (it was listed 8 times)
    assert rebuilt[0].endswith("×9"), rebuilt
    assert any(line.startswith("• x: bf16[16,8] ← f32[16,8]") for line in lines), lines
    # Ranked: the change behind most compiles first.
    listed = [line for line in lines if line.startswith("• ")]
    counts = [int(line.rsplit("×", 1)[1]) for line in listed]
    assert counts == sorted(counts, reverse=True) and listed[0] == rebuilt[0]

    window.pick_name("train_step")
    lines = details(window)
    listed = [line for line in lines if line.startswith("• ")]
    summary = next(s for _, s in window.rows if s.function == "train_step")
    kinds = len(summary.change_words("en"))
    assert kinds > CHANGES_LISTED and len(listed) == CHANGES_LISTED
    # How many there are, said first: in view however short the column.
    head = [line for line in lines if line.startswith("What changed between its compiles")]
    assert head == [
        f"What changed between its compiles: the {CHANGES_LISTED} that explain the most "
        f"compiles, of {kinds} (the ledger lists every compile):"
    ], lines
    # The column's end stays in reach: the details scroll where the window is short.
    window.resize(*SMALL)
    QApplication.processEvents()
    below = window.column.below
    assert below.widget().minimumSizeHint().height() <= below.widget().height()
