"""`jitlab open run.p*.jsonl`: a real 2-process job's recordings in one window, a lane per
process and function, the divergence flagged."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QColor

from jitlab.cli import main
from jitlab.gui.recording.window import DIVERGED_BACKGROUND, RecordingWindow

sys.path.insert(0, str(Path(__file__).parents[1] / "faults"))
import distributed

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("job") / "run.jsonl"
    distributed.run_job(out, processes=2)
    return sorted(out.parent.glob("run.p*.jsonl"))


def test_one_window_shows_each_process_as_its_own_lane(qtbot, job):
    assert [p.name for p in job] == ["run.p0.jsonl", "run.p1.jsonl"]
    window = RecordingWindow(list(reversed(job)), follow=False)  # any order
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    qtbot.waitUntil(lambda: window.picked is not None)
    lanes = {(f, p) for f, _, p in window.lanes()}
    assert {("train_step", 0), ("train_step", 1), ("preprocess", 0), ("preprocess", 1)} <= lanes
    assert not window.picker.isColumnHidden(5)
    # The divergence: a banner, and the preprocess rows highlighted, process 1 marked.
    assert window.banner.isVisible()
    banner = " ".join(window.banner.text().split())
    assert "process 1 compiled preprocess for x: f32[7,8]; process 0 did not" in banner
    rows = {}
    for i in range(window.picker.topLevelItemCount()):
        item = window.picker.topLevelItem(i)
        f, _, p = item.data(0, 0x0100)
        rows[(f, p)] = item
    warn = QColor(DIVERGED_BACKGROUND)
    assert rows[("preprocess", 1)].background(0).color() == warn
    assert rows[("preprocess", 0)].background(0).color() == warn
    assert rows[("train_step", 0)].background(0).color() != warn
    assert rows[("preprocess", 1)].text(5).startswith("⚠")
    assert rows[("preprocess", 0)].text(5) == "p0"
    # Each lane feeds the views its own process's compiles.
    window.pick_name("preprocess", process=1)
    assert window.picked[2] == 1
    assert window.kitchen.values["compiles"].text().startswith("2")
    assert len(window.ledger.rows()) == 2
    assert any("7" in cell for cell in window.ledger.rows()[1])  # x: f32[7,8]
    window.pick_name("preprocess", process=0)
    assert window.kitchen.values["compiles"].text().startswith("1")
    assert len(window.ledger.rows()) == 1
    assert "p0" in window.windowTitle() and "2 processes" in window.windowTitle()
    assert "The program finished" in window.status_text()


def test_open_refuses_a_file_named_twice(job, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["open", str(job[0]), str(job[0]), "--no-follow"])
    assert exit_.value.code == 2
    assert "named twice" in capsys.readouterr().err
