"""Monitor at 1024×640 (issue 54): the signature ledger shows at least six rows, and every
changed cell ends inside the view: whole where it fits, else elided in the middle (the "…"
shows it) with its whole text in the tooltip. The sharding case, on 8 devices, is in
test_monitor_sharding.py."""

from __future__ import annotations

import pytest
from guihelp import changed_cells, visible_rows, wait_calls, whole_or_marked, write_scenarios
from PySide6.QtWidgets import QApplication

from jitlab.gui import i18n

SMALL = (1024, 640)
ROWS = 6


def small(window) -> None:
    window.resize(*SMALL)
    QApplication.processEvents()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_monitor_shows_six_ledger_rows_at_1024_by_640(qtbot, make_window, lang) -> None:
    i18n.set_language(lang)  # opened in it: the scenario list takes its width (wider in zh)
    window = make_window(scenario="dynamic-shapes")
    small(window)
    slider = window.params.widgets["batch_size"]
    sizes = [s for s in slider.stops if s <= 64][: ROWS + 1]
    for i, size in enumerate(sizes, 1):  # each size compiles again
        slider.slider.setValue(slider.stops.index(size))
        wait_calls(qtbot, window, i)
    window.set_mode("monitor")
    ledger = window.monitor.ledger
    qtbot.waitUntil(lambda: ledger.model.rowCount() == len(sizes))
    QApplication.processEvents()
    table = ledger.table
    table.scrollToTop()
    assert visible_rows(table) >= ROWS, (lang, table.viewport().height(), window.panes.sizes())
    assert table.viewport().height() >= ROWS * table.rowHeight(0)
    for row, column in changed_cells(ledger):
        assert whole_or_marked(ledger, row, column) == "whole", (lang, row, column)


LONG = """
from jitlab.lab.scenario import AutoplayStep, Lesson, Param, Pitfall, Scenario, Text, Variant
import jax, jax.numpy as jnp
T = Text("t", "t")

def long_step(x, mode):
    return x * len(mode)

MODES = ("a mode whose name is long enough to outgrow the view on a small screen",
         "another mode whose name is long enough to outgrow the view on a small screen")

class Long(Scenario):
    id = "long-static"
    pitfall = Pitfall.STATIC_ARGS
    title = Text("A long static value", "长的静态值")
    question = T
    lesson = Lesson(T, T, T, T)
    params = (Param("mode", MODES[0], Text("Mode", "模式"), T, choices=MODES),)
    variants = (Variant("pitfall", Text("Pitfall", "陷阱"), T),
                Variant("fix", Text("Fix", "修正"), T))

    def setup(self, lab, variant):
        f = lab.probe(long_step, static_argnames=("mode",))
        return lambda values: f(jnp.ones(4), mode=values["mode"])

    def code_objects(self, variant):
        return (long_step,)
"""


def test_a_changed_cell_too_wide_for_the_view_keeps_its_end_and_says_so(
    qtbot, make_window, tmp_path
) -> None:
    folder = write_scenarios(tmp_path / "plugins", long_static=LONG)
    window = make_window(scenario="long-static", scenarios_dir=folder)
    small(window)
    modes = window.params.widgets["mode"]
    window.run_controls.step.click()
    wait_calls(qtbot, window, 1)
    modes.setCurrentIndex(1)  # another static value: a recompile
    wait_calls(qtbot, window, 2)
    assert window.state.records[-1].kind.value == "recompile"
    window.set_mode("monitor")
    ledger = window.monitor.ledger
    qtbot.waitUntil(lambda: ledger.model.rowCount() == 2)
    QApplication.processEvents()
    cells = changed_cells(ledger)
    assert cells
    assert [whole_or_marked(ledger, r, c) for r, c in cells] == ["elided"] * len(cells)
