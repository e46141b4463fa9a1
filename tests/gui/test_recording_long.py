"""A long recording in the recording window: read a piece per turn of the event loop, the
first view at once, and in the end the same views as a window that read it all at once."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QToolTip, QTreeWidgetItem

from jitlab.gui.recording import picker as rp
from jitlab.gui.recording import window as rw
from jitlab.recordings import follower as fl
from jitlab.recordings import processes
from jitlab.recordings.reader import read_recording
from jitlab.recordings.summary import summarize
from jitlab.records.calls import (
    CallKind,
    CallRecord,
    Change,
    LeafSpec,
    Reason,
    Signature,
    dumps_strict,
)
from jitlab.records.changes import ChangeKind
from jitlab.records.lines import RecordedCall, RecordedHits, RecordingStart


def _write(path: Path, lines: int = 3000, functions: int = 6, odd: bool = False) -> None:
    """A recording as `jitlab watch` writes it: a third of the lines compiles (shapes
    changing), the rest cache-hit counts."""
    reason = Reason((Change(ChangeKind.SHAPE, path="x", before="f32[8,4]", after="f32[9,4]"),))
    compiles: dict[int, int] = {}
    out = [RecordingStart(("train.py",), "0.10.2", "0.1", 1.0, "host").to_json()]
    for i in range(lines):
        fn = i % functions
        name, where = f"step_{fn}", f"/job/train.py:{10 + fn}"
        if i % 3 == 0:
            n = compiles[fn] = compiles.get(fn, -1) + 1
            rows = 8 + n % (7 + fn) + (100 if odd and fn == 0 and n == 2 else 0)
            signature = Signature((LeafSpec("x", (rows, 4), "float32", False),), (), "")
            record = CallRecord(
                n,
                name,
                CallKind.RECOMPILE if n else CallKind.COMPILE,
                3.0,
                1.0,
                0.5,
                1.0 + fn,
                signature,
                n,
                reason if n else Reason((Change(ChangeKind.FIRST_CALL),)),
            )
            out.append(RecordedCall(record, where, "/job/train.py:99", t=i / 1e3).to_json())
        else:
            out.append(RecordedHits(name, where, i, i / 1e3).to_json())
    out.append({"type": "end", "t": lines / 1e3})
    path.write_text("".join(dumps_strict(line) + "\n" for line in out), encoding="utf-8")


def _views(window: rw.RecordingWindow) -> dict[str, object]:
    return {
        "rows": [s for _, s in window.rows],
        "order": window.function_order(),
        "picked": window.picked,
        "ledger": window.ledger.rows(),
        "histogram": window.histogram.observed(),
        "log": len(window.log.visible_rows()),
        "compiles": window.kitchen.values["compiles"].text(),
        "status": window.status_text(),
    }


@pytest.fixture
def long_recording(tmp_path: Path) -> Path:
    path = tmp_path / "run.jsonl"
    _write(path)
    return path


def test_a_long_file_is_read_a_piece_per_turn(
    qtbot, monkeypatch: pytest.MonkeyPatch, long_recording: Path
) -> None:
    monkeypatch.setattr(fl, "READ_BYTES", 1 << 30)
    whole = rw.RecordingWindow(long_recording, follow=False)
    qtbot.addWidget(whole)
    assert not whole.loading  # one piece: read and shown at once
    qtbot.waitUntil(lambda: len(whole.log.visible_rows()) == 500)  # flushed later
    expected = _views(whole)
    assert expected["rows"] == summarize(read_recording(long_recording)[0])
    assert expected["ledger"] and expected["histogram"]

    monkeypatch.setattr(fl, "READ_BYTES", 4096)
    monkeypatch.setattr(fl, "SLICE_MS", 0.0)  # one piece per turn of the event loop
    monkeypatch.setattr(rw, "REFRESH_MS", 5.0)
    moves: list[int] = []  # how far each turn read
    poll = rw.RecordingWindow.poll

    def one_turn(self: rw.RecordingWindow) -> bool:
        before = self.offset
        changed = poll(self)
        moves.append(self.offset - before)
        return changed

    monkeypatch.setattr(rw.RecordingWindow, "poll", one_turn)
    window = rw.RecordingWindow(long_recording, follow=False)
    qtbot.addWidget(window)
    # The first view: the first piece only, a function shown, the rest still to read.
    assert window.loading and window.picked is not None
    assert 4096 <= window.offset < 4096 + 1000
    assert "Reading the file" in window.status_text()
    refreshed = []
    window.updated.connect(lambda: refreshed.append(window.offset))
    qtbot.waitUntil(lambda: not window.loading, timeout=20_000)
    assert window.offset == long_recording.stat().st_size
    assert max(moves) < 4096 + 1000  # never more than a piece in a turn
    assert sum(1 for m in moves if m) >= long_recording.stat().st_size // (4096 + 1000)
    assert len(refreshed) >= 2  # the views refreshed while it loaded, and at the end
    assert refreshed[0] < window.offset
    qtbot.waitUntil(lambda: len(window.log.visible_rows()) == expected["log"])  # flushed later
    assert _views(window) == expected


def test_the_garbage_collector_is_kept_out_of_a_long_load(
    qtbot, monkeypatch: pytest.MonkeyPatch, long_recording: Path
) -> None:
    monkeypatch.setattr(fl, "READ_BYTES", 4096)
    monkeypatch.setattr(fl, "FREEZE_EVERY", 200)
    frozen = gc.get_freeze_count()
    try:
        window = rw.RecordingWindow(long_recording, follow=False)
        qtbot.addWidget(window)
        qtbot.waitUntil(lambda: not window.loading, timeout=10_000)
        assert gc.get_freeze_count() > frozen
    finally:
        gc.unfreeze()


def test_picker_rows_are_rewritten_in_place(qtbot, long_recording: Path, tmp_path: Path) -> None:
    short = tmp_path / "short.jsonl"
    short.write_bytes(b"".join(long_recording.read_bytes().splitlines(keepends=True)[:40]))
    window = rw.RecordingWindow(short, follow=True)
    qtbot.addWidget(window)
    first = [window.picker.topLevelItem(i) for i in range(window.picker.topLevelItemCount())]
    assert len(first) == 6
    short.write_bytes(long_recording.read_bytes())  # the program went on
    window.poll()
    qtbot.waitUntil(lambda: not window.loading and window.offset == short.stat().st_size)
    items = [window.picker.topLevelItem(i) for i in range(window.picker.topLevelItemCount())]
    assert items == first  # the same items, showing the new figures
    for item, (lane, s) in zip(items, window.rows, strict=True):
        assert tuple(item.data(0, 0x0100)) == lane
        assert [item.text(c) for c in range(5)] == [
            s.function,
            f"{s.ms_text} ms",
            str(s.executables),
            str(s.recompiles),
            "?" if s.hits is None else str(s.hits),
        ]
    assert window.picker.currentItem().data(0, 0x0100) == window.picked


def test_a_restyled_row_forgets_its_last_style(qtbot) -> None:
    item = QTreeWidgetItem()
    rp.style_row(item, recompiles=True, diverged=True, marked=True)
    assert item.background(0).color().name() == rp.DIVERGED_BACKGROUND
    assert item.font(0).bold() and item.font(5).bold()
    rp.style_row(item, recompiles=True, diverged=False, marked=False)
    assert item.data(0, 8) is None  # BackgroundRole: the default again
    assert not item.font(0).bold() and not item.font(5).bold()
    assert item.foreground(3).color().name() != "#3a2600"  # recompiles in their colour


@pytest.mark.qt_log_ignore("does not support raise", "propagateSizeHints")  # offscreen Qt
def test_a_picker_row_tip_is_made_on_hover(qtbot, long_recording: Path) -> None:
    window = rw.RecordingWindow(long_recording, follow=False)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    picker = window.picker
    rect = picker.visualItemRect(picker.topLevelItem(1))
    position = QPoint(rect.left() + 5, rect.center().y())
    event = QHelpEvent(QEvent.Type.ToolTip, position, picker.viewport().mapToGlobal(position))
    assert picker.viewportEvent(event)
    function = window.rows[1][1].function
    assert f"<b>{function}</b>" in QToolTip.text()
    assert QToolTip.text() == window.row_tip(1)


def test_several_long_files_load_together(
    qtbot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    paths = [tmp_path / "run.p0.jsonl", tmp_path / "run.p1.jsonl"]
    _write(paths[0])
    _write(paths[1], odd=True)  # process 1 compiles a shape process 0 never does
    monkeypatch.setattr(fl, "READ_BYTES", 1 << 30)
    whole = rw.RecordingWindow(paths, follow=False)
    qtbot.addWidget(whole)
    assert not whole.loading and len(whole.divergences) == 1
    qtbot.waitUntil(lambda: len(whole.log.visible_rows()) == 500)
    expected = {**_views(whole), "divergences": whole.divergences, "lanes": whole.lanes()}

    monkeypatch.setattr(fl, "READ_BYTES", 4096)
    monkeypatch.setattr(fl, "SLICE_MS", 0.0)
    monkeypatch.setattr(rw, "REFRESH_MS", 5.0)
    window = rw.RecordingWindow(paths, follow=False)
    qtbot.addWidget(window)
    assert window.loading
    # A piece of each file in turn: both grow together.
    qtbot.waitUntil(lambda: min(s.offset for s in window.sources) > 40_000, timeout=10_000)
    assert window.loading and window.divergences == ()  # looked for once both are read
    assert abs(window.sources[0].offset - window.sources[1].offset) < 10_000
    qtbot.waitUntil(lambda: not window.loading, timeout=20_000)
    qtbot.waitUntil(lambda: len(window.log.visible_rows()) == 500)
    views = {**_views(window), "divergences": window.divergences, "lanes": window.lanes()}
    assert views == expected
    assert window.banner.isVisibleTo(window)


def test_a_long_jobs_divergences_are_looked_for_a_slice_per_turn(
    qtbot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    paths = [tmp_path / "run.p0.jsonl", tmp_path / "run.p1.jsonl"]
    _write(paths[0])
    _write(paths[1], odd=True)
    monkeypatch.setattr(fl, "READ_BYTES", 1 << 30)  # each file read at once
    whole = rw.RecordingWindow(paths, follow=False)  # few calls: looked for at once
    qtbot.addWidget(whole)
    assert not whole.loading and len(whole.divergences) == 1
    expected = {"divergences": whole.divergences, "lanes": whole.lanes()}

    # As for a long job: the merge that looks for them runs in slices, a turn each.
    monkeypatch.setattr(fl, "MERGE_AT_ONCE", 0)
    monkeypatch.setattr(fl, "SLICE_MS", 0.0)
    monkeypatch.setattr(processes, "STEP_CALLS", 50)
    slices: list[bool] = []  # per slice of the merge: was the window still loading?
    stepped = fl.merge_in_steps

    def counted(*args, **kwargs):
        steps = stepped(*args, **kwargs)
        while True:
            try:
                next(steps)
            except StopIteration as done:
                return done.value
            slices.append(window.loading)
            yield

    monkeypatch.setattr(fl, "merge_in_steps", counted)
    window = rw.RecordingWindow(paths, follow=False)
    qtbot.addWidget(window)
    assert window.loading and window.divergences == ()  # not at once: the turns come
    qtbot.waitUntil(lambda: not window.loading, timeout=20_000)
    assert {"divergences": window.divergences, "lanes": window.lanes()} == expected
    assert window.banner.isVisibleTo(window)
    assert len(slices) > 10 and all(slices)  # many turns, the window answering between
    window.poll()  # nothing new: not looked for again
    assert not window.loading and window.divergences == expected["divergences"]
