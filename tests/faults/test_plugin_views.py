"""Fault table, plugin code called outside a step: shown as its error, never obeyed.

The GUI asks a scenario for its source (``source``/``code_objects``) and a scenario may
replay a failing call eagerly (``anatomy.rerun_eagerly``); both run plugin code outside
``Run.step``'s guard. The plugin here calls ``sys.exit`` in both, for real, and notes NaN and
infinity among its facts: the window stays up and shows the error, the call's record keeps
the eager replay's exit as data, and every JSON the tool writes (``--json``, the window's
export) stays strict.
"""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_gui_faults import CALL_TIMEOUT_MS, make_window, write_plugins  # noqa: F401

from jitlab.probe import anatomy

JITLAB = Path(sys.executable).with_name("jitlab")
pytestmark = [pytest.mark.slow, pytest.mark.qt_log_ignore("propagateSizeHints")]

# Exits (3) whenever its code is asked for; its step replays a function that exits (4) under
# jax.disable_jit(); its facts hold NaN and ±inf.
EXITS_IN_VIEWS = """
import math
import sys

import jax
import jax.numpy as jnp

from jitlab.probe import anatomy
from jitlab.lab.scenario import Lesson, Param, Pitfall, Scenario, Text, Variant

T = Text("x", "x")


def double(x):
    return x * 2


def leave(x):
    sys.exit(4)


class ExitsInViews(Scenario):
    id = "exits-in-views"
    pitfall = Pitfall.SIDE_EFFECTS
    title = T
    question = T
    lesson = Lesson(T, T, T, T)
    params = (Param("n", 2, T, T, minimum=1, maximum=8),)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))

    def setup(self, lab, variant):
        probe = lab.probe(jax.jit(double))

        def step(values):
            out = probe(jnp.ones(values["n"]))
            self.eager = anatomy.rerun_eagerly(leave, jnp.ones(2))
            return out

        return step

    def facts(self):
        eager = getattr(self, "eager", None)
        return {
            "loss": math.nan,
            "best": -math.inf,
            "losses": [1.0, math.nan, math.inf],
            "eager": eager.to_json() if eager else None,
        }

    def code_objects(self, variant):
        sys.exit(3)
"""


def make_package(site: Path) -> Path:
    """A third-party package registering the plugin under the jitlab.scenarios entry point."""
    package = site / "views_plugin"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(EXITS_IN_VIEWS), encoding="utf-8")
    dist = site / "views_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: views-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[jitlab.scenarios]\nexits-in-views = views_plugin:ExitsInViews\n"
    )
    return site


def strict(text: str) -> object:
    """Parse as strict JSON: a bare NaN, Infinity or -Infinity fails the test."""

    def refuse(constant: str) -> None:
        raise AssertionError(f"bare {constant} in JSON")

    return json.loads(text, parse_constant=refuse)


def leave() -> None:
    sys.exit(4)


def test_rerun_eagerly_keeps_a_sys_exit_as_the_replays_error() -> None:
    eager = anatomy.rerun_eagerly(lambda: leave())
    assert not eager.ok
    assert eager.error_type == "SystemExit"
    assert eager.message == "SystemExit(4) raised by the scenario"
    assert eager.frame is not None and eager.frame.function == "leave"


def test_rerun_eagerly_lets_ctrl_c_through() -> None:
    def interrupt() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        anatomy.rerun_eagerly(interrupt)


def test_the_window_shows_a_plugin_exiting_in_its_code_and_exports_strict_json(
    qtbot,
    make_window,  # noqa: F811 (the fixture imported above)
    tmp_path: Path,
) -> None:
    window = make_window(write_plugins(tmp_path / "p", views=EXITS_IN_VIEWS), "exits-in-views")
    assert window.isVisible()
    for editor in (window.code.code, window.code.diff):
        assert "SystemExit(3) raised by the scenario" in editor.toPlainText()
    window.set_mode("execute")
    window.step()
    qtbot.waitUntil(lambda: len(window.state.records) >= 1, timeout=CALL_TIMEOUT_MS)
    record = window.state.records[0]
    assert record.kind.value == "compile", record.error  # the replay's exit is not the call's
    assert record.notes["eager"]["message"] == "SystemExit(4) raised by the scenario"
    assert math.isnan(record.notes["loss"])  # in memory: the value as noted

    exported = strict(window.export_json(tmp_path / "calls.json").read_text(encoding="utf-8"))
    notes = exported["calls"][0]["notes"]
    assert notes["loss"] is None and notes["best"] is None
    assert notes["losses"] == [1.0, None, None]
    assert notes["eager"]["error_type"] == "SystemExit"
    assert exported["summary"]["calls"] == 1
    with window.export_csv(tmp_path / "calls.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1 and rows[0]["kind"] == "compile"
    strict(rows[0]["params"])


@pytest.mark.usefixtures("installed_plugins")
def test_jitlab_run_json_of_the_plugin_is_strict_and_keeps_the_replays_exit(
    tmp_path: Path,
) -> None:
    site = make_package(tmp_path / "site")
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [str(JITLAB), "run", "exits-in-views", "--json", "--param", "n=2,3"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = [strict(line) for line in done.stdout.splitlines()]
    assert [line.get("kind") for line in lines[:2]] == ["compile", "recompile"]
    for line in lines[:2]:
        assert line["notes"]["loss"] is None
        assert line["notes"]["eager"]["message"] == "SystemExit(4) raised by the scenario"
    assert lines[-1]["summary"]["calls"] == 2 and lines[-1]["summary"]["errors"] == 0
