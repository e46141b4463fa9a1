"""The call log at the size a learner sees it: the reason column is on screen, not off to the
right behind a scroll bar."""

from __future__ import annotations

import pytest
from guihelp import wait_calls

from jitlab.gui.views.log_view import PHASES, REASON, REASON_MIN, LogView
from jitlab.gui.views.reasons import reason_text
from jitlab.records.calls import CallKind


def _reason_on_screen(log: LogView) -> None:
    table = log.table
    header = table.horizontalHeader()
    left = header.sectionViewportPosition(REASON)
    right = left + header.sectionSize(REASON)
    assert left >= 0 and right <= table.viewport().width(), (left, right, table.viewport().width())
    assert table.horizontalScrollBar().maximum() == 0


@pytest.mark.parametrize("language", ["en", "zh"])
def test_reason_column_is_inside_the_viewport_at_1280x800(qtbot, make_window, language) -> None:
    window = make_window(scenario="dynamic-shapes")
    if language != "en":
        window.set_language(language)
    window.resize(1280, 800)
    window.set_mode("execute")
    window.step()
    wait_calls(qtbot, window, 1)
    for n, size in enumerate((40, 100), start=2):
        window.params.set_values({"batch_size": size})
        wait_calls(qtbot, window, n)
    window.link.drain()
    window.panes.bottom.setCurrentWidget(window.log)
    log = window.log
    qtbot.waitUntil(lambda: log.model.rowCount() == 3)
    qtbot.wait(50)
    records = log.visible_rows()
    assert [r.kind for r in records[1:]] == [CallKind.RECOMPILE] * 2
    assert records[-1].reason is not None
    _reason_on_screen(log)
    assert log.table.columnWidth(REASON) >= REASON_MIN  # room to read it, not a sliver
    # The cell elides; its tooltip has the whole reason.
    proxy = log.proxy
    cell = proxy.index(2, REASON)
    full = reason_text(records[-1].reason)
    assert proxy.data(cell) == full
    assert full in proxy.data(cell, 3).replace("&lt;", "<").replace("&gt;", ">")  # ToolTipRole
    # #, kind and the times are narrow: together they leave the reason most of the width.
    narrow = sum(log.table.columnWidth(c) for c in (0, 1, 2))
    assert narrow < log.table.viewport().width() / 3


def _log_with_rows(qtbot, width: int) -> LogView:
    from realrun import drive

    from jitlab.gui.views.model import RunState

    state = RunState()
    log = LogView()
    qtbot.addWidget(log)
    log.bind(state)
    log.resize(width, 200)
    log.show()
    drive(state, [8, 40, 100], frame=3)
    log.flush()
    qtbot.waitUntil(lambda: log.model.rowCount() == 3)
    qtbot.wait(20)
    return log


def test_a_narrow_log_puts_the_phase_columns_aside_and_a_wide_one_shows_them(qtbot) -> None:
    log = _log_with_rows(qtbot, 480)
    assert all(log.table.isColumnHidden(c) for c in PHASES)
    _reason_on_screen(log)
    log.resize(1200, 200)
    qtbot.waitUntil(lambda: not log.table.isColumnHidden(PHASES[0]))
    assert not any(log.table.isColumnHidden(c) for c in PHASES)
    _reason_on_screen(log)
    assert log.table.columnWidth(REASON) >= REASON_MIN
    # Clearing the log (a model reset) keeps the sizing.
    log.clear()
    log.resize(480, 200)
    qtbot.waitUntil(lambda: log.table.isColumnHidden(PHASES[0]))
    _reason_on_screen(log)
