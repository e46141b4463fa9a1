"""The app's scenario list says, in one line, when the built-ins' manifest is out of date
(the early list then leaves the changed files out until discovery has loaded them)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtWidgets import QTreeWidget

from jitlab.gui.lesson.scenario_list import fill
from jitlab.lab import manifest
from jitlab.records.paths import builtin_dir


def _top_texts(tree: QTreeWidget) -> list[str]:
    return [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]


@pytest.mark.parametrize(("lang", "words"), [("en", "out of date"), ("zh", "场景清单已过期")])
def test_the_list_says_the_manifest_is_stale(qapp, tmp_path: Path, monkeypatch, lang, words):
    folder = tmp_path / "scenarios"
    shutil.copytree(builtin_dir("scenarios"), folder)
    monkeypatch.setenv(manifest.SCENARIOS_ENV, str(folder))
    tree = QTreeWidget()
    fill(tree, [], None, lang)
    assert not any(words in text for text in _top_texts(tree))
    edited = folder / "sharding.py"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    fill(tree, [], None, lang)
    first = _top_texts(tree)[0]
    assert words in first and "sharding.py" in first
    assert "\n" not in first
