"""The recording window: a real program's recording, per function, and a file still growing."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jitlab
from jitlab.gui import i18n
from jitlab.gui.recording.window import RecordingWindow, open_recording_window
from jitlab.recordings.buckets import suggest_buckets
from jitlab.records.calls import CallKind

pytestmark = pytest.mark.slow

EVAL_SIZES = (5, 7, 12, 13, 16, 21, 30, 31, 32, 7, 12)  # two sizes come back: cache hits


def _train(path: Path) -> None:
    """A small training loop, recorded: a last partial batch, a dtype drift, ragged eval sizes."""
    with jitlab.watch(path):

        @jax.jit
        def train_step(w, x, y):
            def loss(w):
                return jnp.mean((x @ w - y) ** 2)

            value, grad = jax.value_and_grad(loss)(w)
            return w - 0.1 * grad, value

        @jax.jit
        def evaluate(w, x):
            return (x @ w).sum()

        data = np.random.default_rng(0).normal(size=(100, 8)).astype(np.float32)
        target = data.sum(axis=1)
        w = jnp.zeros(8)
        for _epoch in range(3):
            for start in range(0, 100, 32):  # 32, 32, 32, then a last partial batch of 4
                w, _ = train_step(w, data[start : start + 32], target[start : start + 32])
        w, _ = train_step(w, data[:32].astype(np.float16), target[:32])  # a dtype drift
        for n in EVAL_SIZES:
            evaluate(w, data[:n]).block_until_ready()


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("watch") / "run.jsonl"
    _train(path)
    return path


@pytest.fixture
def open_window(qtbot, settings):
    from jitlab.gui.app import application

    application()

    def make(path: Path, follow: bool = False) -> RecordingWindow:
        window = open_recording_window(path, follow, settings=settings)
        qtbot.addWidget(window)
        return window

    yield make
    if i18n.language() != "en":
        i18n.set_language("en")


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def test_opens_a_recording_per_function(qtbot, open_window, recording: Path) -> None:
    window = open_window(recording)
    # The picker: sorted by time lost to compiling, as the file itself says.
    lost: dict[str, float] = defaultdict(float)
    for line in _lines(recording):
        obj = json.loads(line)
        if obj["type"] == "call":
            lost[obj["function"]] += obj["trace_ms"] + obj["lower_ms"] + obj["compile_ms"]
    assert window.function_order() == sorted(lost, key=lost.get, reverse=True)
    assert set(window.function_order()) == {"train_step", "evaluate"}
    assert window.picked is not None and window.picked[0] == window.function_order()[0]

    window.pick_name("train_step")
    assert window.windowTitle().endswith("train_step")
    # The signature ledger: three signatures, the changed fields highlighted.
    ledger = window.ledger
    headers = ledger.headers()
    x, y = headers.index("x"), headers.index("y")
    rows = ledger.rows()
    assert [row[x] for row in rows] == ["f32[32,8]", "f32[4,8]", "f16[32,8]"]
    assert [row[y] for row in rows] == ["f32[32]", "f32[4]", "f32[32]"]
    assert [row[1] for row in rows] == ["first compile", "recompile", "recompile"]
    assert ledger.highlighted() == [[], ["x", "y"], ["x", "y"]]  # against the row above
    assert "x: f16[32,8] ← f32[32,8]" in rows[2][-1]  # the reason: against the closest
    # Chart, log and kitchen show this function only; hits come from the aggregated counts.
    # The chart and the log follow the run model and paint at their own pace.
    compiles = [CallKind.COMPILE, CallKind.RECOMPILE, CallKind.RECOMPILE]
    qtbot.waitUntil(lambda: window.chart.kinds_shown() == compiles, timeout=3000)
    qtbot.waitUntil(lambda: [r.index for r in window.log.visible_rows()] == [0, 3, 12])
    assert window.kitchen.values["calls"].text() == "13"  # 3 compiles + 10 cache hits
    assert window.chart.next_button.isHidden()  # a recording is not a lesson: no fix to try
    assert window.kitchen.values["compiles"].text() == "3 (2)"
    assert len(window.state.cards) == 3
    # The histogram: the batch dimension of x and y together, sizes 4 and 32.
    histogram = window.histogram
    assert histogram.current_dimension().axes == (("x", 0), ("y", 0))
    assert histogram.observed() == {4: 1, 32: 2}
    assert histogram.buckets == [32]  # one compile: pad the partial batch

    window.pick_name("evaluate")
    assert len(window.ledger.rows()) == 9
    assert all(h == ["x"] for h in window.ledger.highlighted()[1:])
    assert window.kitchen.values["calls"].text() == "11"
    assert histogram.observed() == {n: 1 for n in sorted(set(EVAL_SIZES))}
    assert histogram.compiles.value() == 3
    assert histogram.buckets == [7, 16, 32] == suggest_buckets(sorted(set(EVAL_SIZES)), 3)
    histogram.compiles.setValue(2)
    assert histogram.buckets == suggest_buckets(sorted(set(EVAL_SIZES)), 2)
    code = histogram.code.toPlainText()
    assert f"BUCKETS = {tuple(histogram.buckets)}" in code
    # The code runs as shown: a batch of 13 is padded up to its bucket, with a mask.
    namespace = {"jnp": jnp, "x": np.ones((13, 8), np.float32), "evaluate": lambda *a: None}
    exec(compile(code, "<bucket code>", "exec"), namespace)
    assert namespace["x"].shape == (min(b for b in histogram.buckets if b >= 13), 8)
    assert int(namespace["mask"].sum()) == 13
    assert "complete" in window.status_text()


def test_follows_a_growing_recording(qtbot, open_window, recording: Path, tmp_path: Path) -> None:
    lines = _lines(recording)
    # Call lines only: the watch also writes a `hits` line for the function before a compile.
    train_lines = [
        i
        for i, line in enumerate(lines)
        if '"train_step"' in line and json.loads(line).get("type") == "call"
    ]
    live = tmp_path / "live.jsonl"
    first_recompile = train_lines[1]
    live.write_text("".join(lines[:first_recompile]), encoding="utf-8")
    window = open_window(live, follow=True)
    assert window.following
    window.pick_name("train_step")
    assert len(window.ledger.rows()) == 1
    assert "Following" in window.status_text()

    # Half a line: nothing new yet, and the window says the last line is incomplete.
    line = lines[first_recompile]
    with live.open("a", encoding="utf-8") as f:
        f.write(line[:40])
    qtbot.waitUntil(lambda: "incomplete" in window.status_text(), timeout=5000)
    assert len(window.ledger.rows()) == 1
    # Its end arrives: the recompile shows in every view of the picked function.
    with live.open("a", encoding="utf-8") as f:
        f.write(line[40:])
    qtbot.waitUntil(lambda: len(window.ledger.rows()) == 2, timeout=5000)
    assert window.ledger.highlighted()[1] == ["x", "y"]
    qtbot.waitUntil(lambda: window.chart.kinds_shown()[-1:] == [CallKind.RECOMPILE])
    qtbot.waitUntil(lambda: len(window.log.visible_rows()) == 2)
    assert "incomplete" not in window.status_text()
    # The rest of the program, including a function not seen before, then the end line.
    with live.open("a", encoding="utf-8") as f:
        f.write("".join(lines[first_recompile + 1 :]))
    qtbot.waitUntil(lambda: "complete" in window.status_text(), timeout=5000)
    assert len(window.ledger.rows()) == 3
    assert set(window.function_order()) == {"train_step", "evaluate"}
    assert window.picked[0] == "train_step"  # following keeps the user's pick
    assert window.kitchen.values["calls"].text() == "13"
    # The program runs again and rewrites the file: the window starts over.
    live.write_text("".join(lines[: train_lines[0] + 1]), encoding="utf-8")
    qtbot.waitUntil(lambda: len(window.ledger.rows()) == 1, timeout=5000)
    assert window.function_order() == ["train_step"]
    qtbot.waitUntil(lambda: len(window.log.visible_rows()) == 1)


def test_waits_for_a_file_not_written_yet(qtbot, open_window, recording: Path, tmp_path: Path):
    later = tmp_path / "later.jsonl"
    window = open_window(later, follow=True)
    assert "does not exist" in window.status_text()
    later.write_text("".join(_lines(recording)), encoding="utf-8")
    qtbot.waitUntil(lambda: len(window.function_order()) == 2, timeout=5000)
    assert window.ledger.rows()
    assert window.picked[0] == window.function_order()[0]  # the costliest, until one is picked


def test_a_function_jitted_before_the_watch(open_window, tmp_path: Path) -> None:
    @jax.jit
    def early(x):
        return x * 2

    early(jnp.ones(2))  # compiled before the recording: only JAX's events will be seen
    path = tmp_path / "early.jsonl"
    with jitlab.watch(path):
        for n in (3, 4, 5):
            early(jnp.ones(n)).block_until_ready()
    window = open_window(path)
    assert window.function_order() == ["early"]
    rows = window.ledger.rows()
    assert [row[0] for row in rows] == ["?", "?", "?"]  # no call count, no signature
    assert [row[-1] for row in rows] == [f"x: f32[{n}] ← f32[2]" for n in (3, 4, 5)]
    assert window.kitchen.values["hit_rate"].text() == "?"  # hits were not counted
    assert [r.index for r in window.log.visible_rows()] == [0, 1, 2]
    assert len(window.state.cards) == 3
    assert window.histogram.observed() == {3: 1, 4: 1, 5: 1}  # read from JAX's reasons


def test_a_truncated_recording_opens(open_window, recording: Path, tmp_path: Path) -> None:
    data = recording.read_bytes()
    cut = tmp_path / "killed.jsonl"
    first_call_end = data.index(b"\n", data.index(b'"type": "call"')) + 1
    cut.write_bytes(data[: first_call_end + 20])  # killed mid-line, no end line
    window = open_window(cut)
    assert not window.following
    assert len(window.function_order()) == 1
    assert len(window.ledger.rows()) == 1
    assert "incomplete" in window.status_text()
    assert "complete;" not in window.status_text()


def test_the_window_speaks_chinese(open_window, recording: Path) -> None:
    window = open_window(recording)
    english = [window.tabs.tabText(i) for i in range(3)]
    i18n.set_language("zh")
    chinese = [window.tabs.tabText(i) for i in range(3)]
    assert all(c != e for c, e in zip(chinese, english, strict=True))
    assert window.ledger.headers()[1] == "类型"
    assert "程序" in window.status_text() or "记录" in window.status_text()
    assert window.histogram.copy.text() != "Copy code"


def test_opening_a_recording_does_not_import_jax() -> None:
    code = (
        "import sys, jitlab.gui.recording.window; "
        "print(sorted(m for m in ('jax', 'jaxlib') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"  # `jitlab open` starts fast, without JAX


def test_open_recording_runs_its_own_window(qtbot, recording: Path, tmp_path, monkeypatch):
    """What `jitlab open FILE` calls: a window on the file, in the saved language."""
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from jitlab.gui.app import application, open_recording

    ini = tmp_path / "jitlab.ini"
    QSettings(str(ini), QSettings.Format.IniFormat).setValue("language", "zh")
    monkeypatch.setenv("JITLAB_SETTINGS", str(ini))
    app = application()
    seen = []

    def look_and_quit() -> None:
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, RecordingWindow)]
        seen.extend((w.isVisible(), w.function_order(), w.tabs.tabText(0)) for w in windows)
        for w in windows:
            w.close()
        app.quit()

    QTimer.singleShot(0, look_and_quit)
    try:
        assert open_recording(str(recording), follow=True) == 0
    finally:
        i18n.set_language("en")
    assert len(seen) == 1
    visible, order, tab = seen[0]
    assert visible and set(order) == {"train_step", "evaluate"}
    assert tab == "签名账本"


def test_the_window_is_fed_only_through_its_run_model(qtbot, open_window, recording: Path):
    """Chart and log are subscribers of the window's RunState, as in the main window: a
    record filed in the model reaches them without the window touching them."""
    window = open_window(recording)
    window.pick_name("evaluate")
    qtbot.waitUntil(lambda: len(window.log.visible_rows()) == 9)
    record = window.state.records[-1]._replace(index=99, kind=CallKind.RECOMPILE)
    window.state.call_finished(record)
    window.state.notify()
    qtbot.waitUntil(lambda: len(window.log.visible_rows()) == 10)
    qtbot.waitUntil(lambda: window.chart.point_count() == 10)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_fits_a_1366x768_screen_and_honours_jitlab_geometry(
    qtbot, open_window, recording: Path, monkeypatch, lang: str
):
    window = open_window(recording)
    window.set_language(lang)
    hint = window.minimumSizeHint()
    assert hint.width() <= 1366 and hint.height() <= 768, (hint.width(), hint.height())
    monkeypatch.setenv("JITLAB_GEOMETRY", "1366x768")
    sized = open_window(recording)
    assert (sized.width(), sized.height()) == (1366, 768)


def test_reopens_at_the_size_it_was_closed_at(
    qtbot, open_window, settings, recording: Path, monkeypatch
):
    monkeypatch.delenv("JITLAB_GEOMETRY", raising=False)
    first = open_recording_window(recording, False, settings=settings)  # deletes itself on close
    first.resize(1300, 500)
    first.close()
    assert settings.value("recordingGeometry")
    again = open_window(recording)
    # Qt fits a restored window to the screen: the offscreen test screen is 800x600.
    assert again.height() == 500


def test_events_during_destruction_do_not_raise(qtbot, settings, recording: Path) -> None:
    """While a window is destroyed its children still send events to their filters; a
    half-deleted filter must not raise (the window's did, from a finalizer, in a later test:
    now it filters nothing, its picker making its own tips)."""
    import shiboken6
    from PySide6.QtCore import QEvent

    window = RecordingWindow(recording, follow=False, settings=settings)  # deleted below
    viewport = window.picker.viewport()
    log = window.log
    shiboken6.delete(window)
    assert not shiboken6.isValid(window)
    assert "eventFilter" not in RecordingWindow.__dict__
    assert log.eventFilter(viewport, QEvent(QEvent.Type.Hide)) is False


def test_a_recording_of_a_newer_format_is_named_in_the_status_line(
    open_window, recording: Path, tmp_path: Path
) -> None:
    lines = _lines(recording)
    start = json.loads(lines[0])
    assert start["type"] == "start"
    start["format"] = "2.0"  # as a newer jitlab would write it
    newer = tmp_path / "newer.jsonl"
    newer.write_text(json.dumps(start) + "\n" + "".join(lines[1:]), encoding="utf-8")
    window = open_window(newer)
    status = window.status_label.text()
    assert str(newer) in status and "2.0" in status and "newer jitlab" in status
    assert window.function_order() == []  # nothing read as something else
    i18n.set_language("zh")
    assert "2.0" in window.status_label.text() and "jitlab" in window.status_label.text()
    assert "newer jitlab" not in window.status_label.text()


def test_a_watched_calls_height_is_said_to_be_until_it_returned(open_window, recording: Path):
    # JAX dispatches asynchronously: a watched call returns before a GPU has finished, so a
    # recording's chart says what its heights are (the lab's probe waits; a watch does not).
    window = open_window(recording)
    chart = window.chart
    axis = chart.plot.getPlotItem().getAxis("left")
    assert "returned after" in axis.labelText
    assert "asynchronously" in chart.plot.toolTip() and "GPU" in chart.plot.toolTip()
    i18n.set_language("zh")
    assert "返回用时" in chart.plot.getPlotItem().getAxis("left").labelText
    assert "异步" in chart.plot.toolTip()
