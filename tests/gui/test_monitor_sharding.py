"""Sharding's Monitor at 1024×640 (issue 54): the changed cell `f32[256,64] @ P(...)` shows
whole, layout and all (it was cut to `f32[256,64] @ P(`): the one thing that lesson's
Monitor exists to show. Run on 8 simulated devices, in a fresh process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from guihelp import (
    EIGHT_DEVICES,
    changed_cells,
    on_eight_devices,
    visible_rows,
    wait_calls,
    whole_or_marked,
)
from PySide6.QtWidgets import QApplication
from test_monitor_room import ROWS, SMALL

from jitlab.gui import i18n

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_changed_layout_is_whole_at_1024(qtbot, make_window, lang) -> None:
    import jax  # the test's own check: the GUI never imports it

    if jax.device_count() < 2:
        pytest.skip("one device in this process: the test below runs this on 8")
    i18n.set_language(lang)  # opened in it: the scenario list takes its width (wider in zh)
    window = make_window(scenario="sharding")
    window.resize(*SMALL)
    QApplication.processEvents()
    layouts = window.params.widgets["layout"]
    window.run_controls.step.click()  # rows
    wait_calls(qtbot, window, 1)
    for i, layout in enumerate(("features", "replicated"), 2):  # each: a silent recompile
        layouts.setCurrentIndex(layouts.findData(layout))
        wait_calls(qtbot, window, i)
    window.set_mode("monitor")
    ledger = window.monitor.ledger
    qtbot.waitUntil(lambda: ledger.model.rowCount() == 3)
    QApplication.processEvents()
    cells = changed_cells(ledger)
    texts = [ledger.model.text(r, c) for r, c in cells]
    assert any(" @ P(" in t and t.endswith(")") for t in texts), texts
    assert [whole_or_marked(ledger, r, c) for r, c in cells] == ["whole"] * len(cells), texts
    # the rows there are (up to six) come before the ledger's note: here, all three
    rows = min(ROWS, ledger.model.rowCount())
    assert ledger.table.viewport().height() >= rows * ledger.table.rowHeight(0)
    assert visible_rows(ledger.table) == 3


def test_the_changed_layout_is_whole_on_eight_devices() -> None:
    if EIGHT_DEVICES in os.environ.get("XLA_FLAGS", ""):
        pytest.skip("this is the child process")
    on_eight_devices(f"{Path(__file__)}::test_the_changed_layout_is_whole_at_1024", passed=2)
