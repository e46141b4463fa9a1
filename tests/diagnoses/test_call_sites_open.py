"""`jitlab open` on a real recording (:mod:`sites_run`): the Call sites tab ranks the lines
whose calls compiled (a click picks the site's costliest function); the Live executables tab
plots the picked function's executables alive after each compile, and their memory, over the
recording's time, the last count being what JAX compiled (its own log, same run); the picked
function's diagnoses include call-site-cost. Names are shown as written, never as markup."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("PySide6", reason="a Qt window: PySide6 is not installed")
from diagnosed_run import HOSTILE, jax_compiles
from PySide6.QtCore import QSettings
from sites_run import Sited, watch_sites

from jitlab.gui import i18n
from jitlab.gui.app import application
from jitlab.gui.recording.window import RecordingWindow, open_recording_window
from jitlab.recordings.reader import read_recording
from jitlab.records.diagnoses import CALL_SITE_COST, sentence
from jitlab.records.site_costs import site_costs


@pytest.fixture(scope="module")
def sited(tmp_path_factory: pytest.TempPathFactory) -> Sited:
    return watch_sites(tmp_path_factory.mktemp("sited"))


@pytest.fixture
def window(qtbot, sited: Sited, tmp_path: Path, monkeypatch) -> Iterator[RecordingWindow]:
    # The floor has its own tests (test_call_site_cost.py); here: how a stated one is shown
    # (this small program's lines compile in well under a second).
    monkeypatch.setenv("JITLAB_SITE_COST_FLOOR_MS", "0")
    application()
    settings = QSettings(str(tmp_path / "jitlab.ini"), QSettings.Format.IniFormat)
    shown = open_recording_window(sited.path, False, settings=settings)
    qtbot.addWidget(shown)
    qtbot.waitUntil(lambda: len(shown.function_order()) == 2, timeout=10_000)
    yield shown
    if i18n.language() != "en":
        i18n.set_language("en")


def _cells(window: RecordingWindow, row: int) -> list[str]:
    table = window.sites.table
    return [table.item(row, c).text() for c in range(table.columnCount())]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_call_sites_tab_ranks_them_and_a_click_picks(
    window: RecordingWindow, sited: Sited, lang: str
) -> None:
    i18n.set_language(lang)
    ranked = site_costs(read_recording(sited.path)[0].calls)
    table = window.sites.table
    assert table.rowCount() == len(ranked) == 3  # GROW, DIRECT, HELPER
    for row, cost in enumerate(ranked):
        cells = _cells(window, row)
        assert cells[1] == cost.called_from and cells[2] == str(cost.compiles)
        assert cells[4] == f"{cost.share:.0%}" and cells[5] == cost.function
    heads = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert heads[1] == ("调用点" if lang == "zh" else "call site")
    assert window.tabs.tabText(window.tabs.indexOf(window.sites)) == (
        "调用点" if lang == "zh" else "Call sites"
    )
    # the name as written (a table item is plain text: never markup)
    (grow_row,) = [r for r, cost in enumerate(ranked) if cost.function == HOSTILE]
    assert _cells(window, grow_row)[1] == sited.line("GROW")
    window.pick_name("step")
    table.cellClicked.emit(grow_row, 1)  # what a click on the row does
    assert window.picked is not None and window.picked[0] == HOSTILE
    # its diagnoses, call-site-cost among them (the line that compiled it five times)
    shown = window.diagnoses.text()
    (stated,) = [
        d
        for d in read_recording(sited.path)[0].every_diagnosis()
        if d.id == CALL_SITE_COST and d.function == HOSTILE
    ]
    assert "call-site-cost" in shown and HOSTILE not in shown
    assert stated.figures["called_from"] == sited.line("GROW")
    assert sentence(stated, lang).split("(")[0].strip()[:20] in _plain(shown)


def _plain(rich: str) -> str:
    from PySide6.QtGui import QTextDocument

    document = QTextDocument()
    document.setHtml(rich)
    return document.toPlainText()


def test_the_live_executables_tab_plots_them_over_time(
    window: RecordingWindow, sited: Sited
) -> None:
    window.pick_name(HOSTILE)
    view = window.executables
    compiles = [
        c
        for c in read_recording(sited.path)[0].calls
        if c.record.function == HOSTILE and c.record.kind.compiled
    ]
    live = [c.record.executables.live for c in compiles if c.record.executables]
    assert live == [1, 2, 3, 4, 5]  # every executable kept alive (kept holds the results)
    assert live[-1] == jax_compiles(sited.stderr, HOSTILE)  # as many as JAX compiled
    xs, ys = view.count_line.getData()
    assert list(ys) == [1, 1, 2, 2, 3, 3, 4, 4, 5]  # held until the next compile
    assert list(xs)[::2] == [c.t for c in compiles]
    _, memory = view.memory_line.getData()
    assert list(memory) == sorted(memory) and memory[-1] > 0  # it grows with them
    assert "now 5 (at most 5)" in view.note.text()
    window.pick_name("step")  # another function: its own counts
    _, ys = view.count_line.getData()
    assert ys[-1] == 7 == jax_compiles(sited.stderr, "step")


def test_a_recording_without_counts_says_so(qtbot, sited: Sited, tmp_path: Path) -> None:
    older = tmp_path / "older.jsonl"  # as an older jitlab wrote it: no "executables"
    import json

    lines = []
    for text in sited.path.read_text().splitlines():
        line = json.loads(text)
        line.pop("executables", None)
        lines.append(json.dumps(line))
    older.write_text("\n".join(lines) + "\n")
    application()
    settings = QSettings(str(tmp_path / "jitlab.ini"), QSettings.Format.IniFormat)
    shown = open_recording_window(older, False, settings=settings)
    qtbot.addWidget(shown)
    qtbot.waitUntil(lambda: len(shown.function_order()) == 2, timeout=10_000)
    shown.pick_name(HOSTILE)
    assert len(shown.executables.count_line.getData()[1] or []) == 0
    assert "No count of live executables" in shown.executables.note.text()
