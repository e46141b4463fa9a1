"""The exercises window groups by the chapters discovery reports, a plugin's new one too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from jitlab.lab.discovery import PluginEntry, discover
from jitlab.lab.exercise import AnswerKind, Exercise, compile_answer
from jitlab.lab.scenario import Chapter, Lesson, Scenario, Text, Variant
from jitlab.quiz import exercises as catalogue

T = Text("t", "t")
CHAPTER = Chapter(8, Text("8 · A plugin's chapter", "8 · 插件的章节"))


def _one_compile(lab):
    lab.jit(lambda x: x + 1)(1.0)


class PluginScenario(Scenario):
    id = "plugin-chapter"
    chapter = CHAPTER
    icon = "stations"
    title = T
    question = T
    lesson = Lesson(T, T, T, T)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))
    exercises = (
        Exercise(
            id="plugin-one-compile",
            title=Text("A plugin's exercise", "插件的练习"),
            question=Text("How many compiles?", "编译几次？"),
            explanation=Text("One.", "一次。"),
            kind=AnswerKind.NUMBER,
            snippet=_one_compile,
            settle=compile_answer,
        ),
    )

    def setup(self, lab, variant):
        return lambda values: None


@pytest.fixture
def quiz(qtbot) -> Iterator:
    from jitlab.gui.app import application
    from jitlab.gui.quiz.view import QuizView

    application()
    view = QuizView()
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: view.catalogue is not None, timeout=60_000)
    yield view
    view.shutdown()
    assert view.runner.executor.isFinished()


def test_groups_follow_discovery_and_a_plugin_brings_its_chapter(quiz):
    from jitlab.gui.executor import QuizKit

    entries = [*discover(entry_points=False), PluginEntry("plugin-chapter", "test", PluginScenario)]
    built = catalogue.build(entries)
    page = quiz.exercises
    page.set_catalogue(QuizKit(built.exercises, tuple(e.id for e in built.exercises), 1))
    groups = [page.tree.topLevelItem(i) for i in range(page.tree.topLevelItemCount())]
    # one group per chapter, in discovery's order, titled as each scenario declares
    expected = []
    for entry in entries:
        if entry.scenario is not None and entry.scenario.exercises:
            title = entry.scenario.chapter.title.en
            if title not in expected:
                expected.append(title)
    assert [g.text(0) for g in groups] == expected
    assert expected[-1] == "8 · A plugin's chapter"
    item = page.item_for("plugin-one-compile")
    assert item is not None and item.parent() is groups[-1]
    page.select("plugin-one-compile")
    assert page.card.pitfall.text() == "8 · A plugin's chapter"
    assert Path(built.by_id["plugin-one-compile"].icon).name == "stations.svg"
