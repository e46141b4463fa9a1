"""The first screen comes before JAX (issue 42): the whole lesson of the scenario about to
open (question, prediction box, sliders, Step, code) is built from the built-ins' manifest
while the worker imports JAX; a prediction typed then is kept, and a slider moved then is
made as a call once JAX has loaded, after the JAX contract check; the check's known compile
is made on the worker after discovery, before any call is asked for, not inside the first."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from guihelp import wait_calls

from jitlab.gui.i18n import language
from jitlab.lab import manifest

pytestmark = pytest.mark.slow

SCENARIO = "static-args"


def _listed(sid: str) -> str:
    # A built-in the manifest lists (a file edited since it was written is left out until
    # discovery; tests/lab/test_manifest.py keeps the shipped one fresh).
    listed = {listing.id: listing for listing in manifest.listed()}
    assert listed, "the manifest lists no built-in"
    return sid if sid in listed else next(iter(listed))


def test_the_lesson_shows_before_jax_and_the_prediction_is_kept(qtbot, settings) -> None:
    from jitlab.gui.app import application
    from jitlab.gui.lesson.window import MainWindow

    sid = _listed(SCENARIO)
    listing = next(x for x in manifest.listed() if x.id == sid)
    application()
    window = MainWindow(settings, sid, entry_points=False)
    qtbot.addWidget(window)
    try:
        # Built, not yet drained: the worker's discovery (JAX) cannot have landed.
        assert window.catalogue.entries == [] and manifest.is_stand_in(window.scenario)
        lesson = window.briefing
        assert lesson.question.text() == listing.question.get(language())
        assert not lesson.prediction.isHidden() and not lesson.start.isHidden()
        assert not window.params.isHidden() and not window.run_controls.isHidden()
        lesson.prediction.setText("one compile per n")
        window.show()
        qtbot.waitUntil(lambda: bool(window.catalogue.entries), timeout=60_000)
        assert window.scenario.id == sid and not manifest.is_stand_in(window.scenario)
        assert lesson.prediction.text() == "one compile per n"
        assert window.params.isVisible() and window.run_controls.isVisible()
    finally:
        window.close()
        window.shutdown()
    assert window.worker.isFinished()


def test_a_variant_chosen_before_jax_is_the_one_that_runs(qtbot, settings) -> None:
    from jitlab.gui.app import application
    from jitlab.gui.lesson.window import MainWindow

    sid = _listed(SCENARIO)
    application()
    window = MainWindow(settings, sid, entry_points=False)
    qtbot.addWidget(window)
    try:
        assert window.catalogue.entries == [] and manifest.is_stand_in(window.scenario)
        window.set_variant("fix")  # before the worker has started: queued in its slot
        window.step()
        window.show()
        wait_calls(qtbot, window, 1)
        record = window.state.records[0]
        assert record.variant == "fix" and not manifest.is_stand_in(window.scenario)
        # The window's run is the fix's too: its call is not counted as the pitfall's.
        assert window.state.variant == "fix" and window.run_controls.current_variant() == "fix"
        assert [s.variant for s in window.state.segments if s.records] == ["fix"]
    finally:
        window.close()
        window.shutdown()


# A fresh interpreter (this one has JAX loaded): the window is built, its controls checked
# and a slider moved before the event loop runs, so before the worker could start at all.
EARLY_DRAG = """
import json, os, sys
from PySide6.QtCore import QTimer
from jitlab.gui.app import application
from jitlab.gui.settings import make_settings
from jitlab.gui.lesson.window import MainWindow

def jax_modules():
    return sorted(m for m in sys.modules if m.split(".")[0] in ("jax", "jaxlib"))

app = application()
window = MainWindow(make_settings(), sys.argv[1], entry_points=False)
params = window.params
seen = {
    "jax_at_build": jax_modules(),
    "worker_running": window.worker.isRunning(),
    "controls": sorted(params.widgets),
    "shown": not params.isHidden() and not window.run_controls.isHidden(),
    "enabled": all(w.isEnabled() for w in params.widgets.values())
    and window.run_controls.step.isEnabled(),
    "code": window.code.code.toPlainText(),
}
name = sys.argv[2]
params.set_value(name, int(sys.argv[3]))  # the early drag
seen["jax_after_drag"] = jax_modules()
seen["status"] = window.status_label.text()

def poll():
    if window.catalogue.entries and window.state.records:
        from jitlab.probe import contract
        record = window.state.records[0]
        seen.update(
            calls=len(window.state.records),
            function=record.function,
            params=record.params,
            contract_checked=True in contract._reports,
        )
        print(json.dumps(seen), flush=True)
        window.shutdown()
        app.quit()

timer = QTimer()
timer.timeout.connect(poll)
timer.start(10)
app.exec()
os._exit(0)
"""


def test_the_controls_are_built_before_jax_and_an_early_drag_runs_after_it(
    tmp_path: Path,
) -> None:
    sid = _listed(SCENARIO)
    cls = next(x for x in manifest.listed() if x.id == sid).lesson()
    assert cls is not None
    param = next(p for p in cls.params if p.type is int and p.applies_to("pitfall"))
    value = int(param.maximum if param.maximum is not None else param.default + 1)
    assert value != param.default
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        JITLAB_SETTINGS=str(tmp_path / "jitlab.ini"),
    )
    out = subprocess.run(
        [sys.executable, "-c", EARLY_DRAG, sid, param.name, str(value)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,  # a hang fails the test instead of holding the suite
    )
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    # Built before JAX: every slider and Step there and usable, the code shown.
    assert seen["jax_at_build"] == [] and not seen["worker_running"]
    assert seen["controls"] == sorted(p.name for p in cls.params)
    assert seen["shown"] and seen["enabled"] and "def " in seen["code"]
    assert seen["jax_after_drag"] == []  # the drag is queued, nothing imported for it
    assert seen["status"].startswith("Preparing JAX")
    # …and made once JAX has loaded, with the dragged value, after the contract check.
    assert seen["contract_checked"] and seen["calls"] >= 1
    assert seen["params"][param.name] == value


def test_the_contract_check_runs_on_the_worker_before_the_first_call(qtbot, make_window) -> None:
    from jitlab.probe import contract

    with contract._lock:  # as a fresh process: nothing checked yet
        contract._reports.clear()
    window = make_window(scenario=SCENARIO)
    # No call asked for: the worker makes the check's known compile on its own.
    qtbot.waitUntil(lambda: True in contract._reports, timeout=60_000)
    assert contract._reports[True].compiled and len(window.state.records) == 0
    window.run_controls.step.click()
    wait_calls(qtbot, window, 1)  # the first call reads that report (Probe requires it)
    record = window.state.records[-1]
    assert record.function == "repeat_scaled"  # the scenario's own call ran (its lesson's
    assert record.error is None or record.error.type == "ConcretizationTypeError"  # error)
