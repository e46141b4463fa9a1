"""The scenario list is there the moment the window is: read from the built-ins' manifest,
while the executor is still importing JAX and the scenarios."""

from __future__ import annotations

from PySide6.QtCore import Qt

from jitlab.lab import discovery, manifest


def _items(window) -> dict[str, object]:
    tree = window.scenario_list
    out = {}
    for i in range(tree.topLevelItemCount()):
        group = tree.topLevelItem(i)
        for j in range(group.childCount()):
            item = group.child(j)
            out[item.data(0, Qt.ItemDataRole.UserRole)] = item
    return out


def test_listed_before_discovery_and_a_pick_then_opens_when_it_ends(qtbot, settings) -> None:
    from jitlab.gui.app import application
    from jitlab.gui.lesson.window import MainWindow

    application()
    window = MainWindow(settings, entry_points=False)
    qtbot.addWidget(window)
    try:
        # No event was processed: discovery cannot have landed.
        assert window.catalogue.entries == []
        early = _items(window)
        # Every built-in whose file is as the manifest knows it (test_manifest: all of them).
        assert list(early) == [x.id for x in manifest.listed()] and "control-flow" in early
        # The learner picks before JAX is ready: its lesson shows from the manifest's spec,
        # and its class takes the stand-in's place when discovery ends.
        window._picked(early["control-flow"])
        assert manifest.is_stand_in(window.scenario) and window.scenario.id == "control-flow"
        qtbot.waitUntil(lambda: bool(window.catalogue.entries), timeout=60_000)
        assert window.scenario is not None and window.scenario.id == "control-flow"
        assert not manifest.is_stand_in(window.scenario)
        builtins = [e.name for e in discovery.discover(entry_points=False) if e.ok]
        assert list(_items(window)) == builtins  # the real list replaced the early one
    finally:
        window.close()
        window.shutdown()
        assert window.worker.isFinished()
