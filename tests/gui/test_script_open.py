"""A compile opens its card's script from the call log and the chart; the chart's legend
wraps between entries, never inside one; diff headers number cards as the app does."""

from __future__ import annotations

import re

import pytest
from guihelp import wait_calls
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QTextDocument

from jitlab.gui import i18n
from jitlab.gui.scripts.window import ScriptWindow, renumber_diff
from jitlab.gui.views.chart import WORD_JOINER
from jitlab.gui.views.model import CardView
from jitlab.records.calls import CallKind

SCRIPT_TIMEOUT_MS = 60_000
offscreen = pytest.mark.qt_log_ignore(
    "does not support raise", "propagateSizeHints", "grabbing the keyboard"
)


def two_compiles_and_a_hit(qtbot, window) -> None:
    window.set_variant("unrolled-loop")
    qtbot.waitUntil(lambda: window.state.variant == "unrolled-loop")
    for n, steps in enumerate((4, 8, 8), start=1):
        window.params.set_values({"steps": steps})
        wait_calls(qtbot, window, n)
    window.log.flush()


def opened(qtbot, window, record) -> ScriptWindow:
    key = (record.function, record.card, record.index)
    qtbot.waitUntil(lambda: key in window.scripts.windows)
    script_window = window.scripts.windows[key]
    qtbot.waitUntil(lambda: script_window.view.script is not None, timeout=SCRIPT_TIMEOUT_MS)
    return script_window


@offscreen
def test_a_compile_row_of_the_log_opens_its_script(qtbot, make_window) -> None:
    window = make_window(scenario="control-flow")
    two_compiles_and_a_hit(qtbot, window)
    log = window.log
    kinds = [log.record_at(r).kind for r in range(log.proxy.rowCount())]
    assert kinds == [CallKind.COMPILE, CallKind.RECOMPILE, CallKind.CACHE_HIT]
    # The context menu: "Read its script" on a compile, greyed out on a hit.
    table = log.table
    table.resizeRowsToContents()
    hit_at = table.visualRect(log.proxy.index(2, 1)).center()
    menu = log.row_menu(hit_at)
    (read,) = menu.actions()
    assert read.text() == "Read its script" and not read.isEnabled()
    menu.close()
    recompile_at = table.visualRect(log.proxy.index(1, 1)).center()
    menu = log.row_menu(recompile_at)
    (read,) = menu.actions()
    assert read.isEnabled()
    read.trigger()
    menu.close()
    record = log.record_at(1)
    view = opened(qtbot, window, record).view
    assert view.script.function == "rnn_unrolled"
    assert view.script.signature == record.signature
    assert view.title.text().startswith("rnn_unrolled · card #2")  # the kitchen's number
    # A double-click on the first compile opens card #1.
    first_at = table.visualRect(log.proxy.index(0, 1)).center()
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=first_at)  # as a hand would
    qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=first_at)
    first = opened(qtbot, window, log.record_at(0)).view
    assert first.title.text().startswith("rnn_unrolled · card #1")
    assert first.script.figures.equations == 3 * 4


@offscreen
def test_a_compile_point_on_the_chart_opens_its_script(qtbot, make_window) -> None:
    window = make_window(scenario="control-flow")
    two_compiles_and_a_hit(qtbot, window)
    chart = window.chart
    chart.refresh()
    vb = chart.plot.getPlotItem().vb
    hits = []
    chart.script_requested.connect(hits.append)
    # The hit (call 2) asks for nothing; the recompile (call 1) opens card #2's script.
    for index in (2, 1):
        x, y = chart._shown_x[index], chart._shown_y[index]
        chart.click_at(vb.mapViewToScene(QPointF(x, y)))
    assert [r.index for r in hits] == [1]
    view = opened(qtbot, window, hits[0]).view
    assert view.script.figures.equations == 3 * 8


def entries_on_one_line(html: str, entries: list[str], width: int) -> bool:
    """Lay the legend out ``width`` px wide: does every entry sit on one line?"""
    doc = QTextDocument()
    doc.setHtml(html)
    doc.setTextWidth(width)
    doc.size()  # lays it out
    text = doc.toPlainText()
    layout = doc.firstBlock().layout()
    at = 0
    for entry in entries:
        plain = QTextDocument()
        plain.setHtml(entry)
        words = plain.toPlainText()
        start = text.index(words, at)
        end = start + len(words) - 1
        if layout.lineForTextPosition(start).lineNumber() != (
            layout.lineForTextPosition(end).lineNumber()
        ):
            return False
        at = end
    return doc.firstBlock().layout().lineCount() > 1  # it did wrap somewhere


@offscreen
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_legend_wraps_between_entries_never_inside_one(qtbot, window, lang) -> None:
    i18n.set_language(lang)
    chart = window.chart
    entries = chart.legend_entries()
    assert len(entries) >= 6
    for entry in entries:
        shown = re.sub(r"<[^>]+>", "", entry)  # the words, without the colour span
        assert " " not in shown, entry  # a plain space would be a place to break
    html = chart.legend.text()
    assert html.count("&nbsp;&nbsp; ") == len(entries) - 1  # plain spaces between entries
    for width in (260, 330, 420):  # each entry fits; the row does not
        assert entries_on_one_line(html, entries, width), (lang, width)
    assert WORD_JOINER in html


def test_diff_headers_name_cards_by_the_app_numbers() -> None:
    a = CardView(("loop", 0), "f32[4]", 3, 1.0, number=2)
    b = CardView(("loop", 1), "f32[8]", 5, 1.0, number=3)
    text = "--- loop card 0\n+++ loop card 1\n@@ -1 +1 @@\n-a\n+b\n"
    out = renumber_diff(text, a, b)
    assert out.splitlines()[:2] == ["--- loop #2 (call #3)", "+++ loop #3 (call #5)"]
    assert out.splitlines()[2:] == text.splitlines()[2:]
    assert renumber_diff("", a, b) == ""
