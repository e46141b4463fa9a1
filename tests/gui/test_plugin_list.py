"""Installed plugins in the app, as `jitlab` opens it (entry points loaded): they join the
scenario list the moment discovery ends, without a pick, and a broken one is listed as broken
with its file and line while every other scenario stays in the list (issue 55)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from jitlab.lab import discovery

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("installed_plugins")]

LOAD_TIMEOUT_MS = 120_000

PLAIN = """
from jitlab.lab.scenario import Lesson, Pitfall, Scenario, Text, Variant

T = Text("x", "x")


class PlainTitle(Scenario):
    id = "plain-title"
    pitfall = Pitfall.SIDE_EFFECTS
    title = "A title in one language"
    question = T
    lesson = Lesson(T, T, T, T)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))

    def setup(self, lab, variant):
        probe = lab.probe(lambda x: x + 1)
        return lambda values: probe(1.0)
"""


def broken_site(folder: Path) -> Path:
    """A package whose one plugin writes its title as a plain str, installed by its dist-info."""
    (folder / "plain_title_plugin.py").write_text(PLAIN, encoding="utf-8")
    dist = folder / "plain_title_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: plain-title\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[jitlab.scenarios]\nplain = plain_title_plugin\n")
    return folder


def rows(window) -> dict[str, tuple[str, str]]:
    """Every scenario row of the list: its text -> (its id, its tooltip)."""
    tree = window.scenario_list
    out = {}
    for i in range(tree.topLevelItemCount()):
        group = tree.topLevelItem(i)
        for j in range(group.childCount()):
            item = group.child(j)
            out[item.text(0)] = (item.data(0, Qt.ItemDataRole.UserRole), item.toolTip(0))
    return out


def test_installed_plugins_join_the_list_when_discovery_ends(
    qtbot, settings, example_plugin: Path, tmp_path: Path, monkeypatch
) -> None:
    from jitlab.gui.app import application
    from jitlab.gui.lesson.window import MainWindow

    monkeypatch.syspath_prepend(
        str(example_plugin)
    )  # pip-installed: on the path, dist-info and all
    monkeypatch.syspath_prepend(str(broken_site(tmp_path)))
    application()
    window = MainWindow(settings)  # entry points loaded, as `jitlab` opens the app
    qtbot.addWidget(window)
    try:
        window.show()
        qtbot.waitUntil(lambda: bool(window.catalogue.entries), timeout=LOAD_TIMEOUT_MS)
        listed = rows(window)
        # No pick was made: the list is discovery's, the plugins in it.
        assert listed["A learning rate that changes its type"][0] == "weak-types"
        assert "8 · Weak types" in _groups(window)
        builtins = [e.scenario for e in discovery.discover(entry_points=False) if e.scenario]
        assert all(cls.title.en in listed for cls in builtins)
        # The broken one is listed as broken, its tooltip naming its file, line and attribute.
        _sid, tip = listed["plain-title"]
        assert "plain_title_plugin.py:10" in tip and "PlainTitle.title" in tip
        # Picking a lesson keeps the whole list (it was cut to 4 rows, issue 55).
        window.select_scenario("weak-types")
        assert window.scenario is not None and window.scenario.id == "weak-types"
        assert rows(window).keys() == listed.keys()
        window.select_scenario("static-args")
        assert rows(window).keys() == listed.keys()
    finally:
        window.close()
        window.shutdown()
        assert window.worker.isFinished()


def _groups(window) -> list[str]:
    tree = window.scenario_list
    return [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
