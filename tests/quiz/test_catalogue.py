"""The quiz's catalogue is what discovery finds: each exercise belongs to the scenario that
declares it, under that scenario's chapter and icon.

The expectations come from discovery (the built-ins' folder, each scenario class's own
``exercises`` and chapter), never from the catalogue's own bookkeeping.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from jitlab.lab.discovery import PluginEntry, discover
from jitlab.lab.exercise import AnswerKind, Exercise, compile_answer
from jitlab.lab.manifest import builtin_folder
from jitlab.lab.scenario import (
    Chapter,
    Lesson,
    Pitfall,
    Scenario,
    Text,
    Variant,
    icon_file,
    validate,
)
from jitlab.quiz import exercises as catalogue


@pytest.fixture(scope="module")
def found() -> dict[str, type[Scenario]]:
    """The built-ins, as discovery finds them in the built-ins' folder: no list kept here."""
    return {e.name: e.scenario for e in discover(entry_points=False) if e.scenario is not None}


def _chapter_order(found: dict[str, type[Scenario]]) -> list[str]:
    return sorted(found, key=lambda s: (int(found[s].chapter), s))


def test_every_builtin_scenario_declares_exercises_in_its_own_files(found):
    assert len(found) >= 7
    # Every built-in chapter has its scenario.
    assert {int(p) for p in Pitfall} <= {int(cls.chapter) for cls in found.values()}
    for scenario_id, cls in found.items():
        assert cls.chapter is cls.pitfall and int(cls.chapter) == cls.chapter.number
        assert validate(cls, builtin=True) == [], scenario_id  # at least 3 exercises, …
        own = Path(inspect.getsourcefile(cls))
        assert own.parent == builtin_folder(), (scenario_id, own)
        for exercise in cls.exercises:
            # Its own file, or a sibling helper it imports (recompile-cost keeps its
            # exercises in `_recompile_cost_exercises.py`; discovery skips `_` files).
            where = Path(inspect.getsourcefile(exercise.snippet))
            assert where == own or (where.parent == own.parent and where.name.startswith("_")), (
                exercise.id,
                where,
            )


def test_the_catalogue_is_every_declared_exercise_in_chapter_order(found):
    expected = [
        (scenario_id, declared.id)
        for scenario_id in _chapter_order(found)
        for declared in found[scenario_id].exercises
    ]
    built = catalogue.build(discover(entry_points=False))
    assert [(e.scenario, e.id) for e in built.exercises] == expected
    assert built.problems == ()
    assert list(built.scenarios) == _chapter_order(found)


def test_each_exercise_carries_its_scenarios_chapter_icon_and_a_real_variant(found):
    built = catalogue.build(discover(entry_points=False))
    for exercise in built.exercises:
        cls = found[exercise.scenario]
        declared = {e.id: e for e in cls.exercises}[exercise.id]
        assert exercise.snippet is declared.snippet and exercise.settle is declared.settle
        assert exercise.chapter is cls.chapter and exercise.pitfall is cls.chapter
        assert exercise.icon == str(icon_file(cls)) and Path(exercise.icon).is_file()
        assert Path(exercise.icon).stem == cls.icon  # the built-ins name a kitchen icon
        assert exercise.variant in cls.variant_ids(), (exercise.id, exercise.variant)


T = Text("t", "t")
CUSTOM = Chapter(9, Text("9 · Custom", "9 · 自定义"))


def _count(lab):
    lab.jit(lambda x: x)(1.0)


def _exercise(exercise_id: str, **kwargs) -> Exercise:
    return Exercise(
        id=exercise_id,
        title=T,
        question=T,
        explanation=T,
        kind=AnswerKind.NUMBER,
        snippet=_count,
        settle=compile_answer,
        **kwargs,
    )


def _scenario(scenario_id: str, chapter, exercises) -> type[Scenario]:
    return type(
        f"S_{scenario_id.replace('-', '_')}",
        (Scenario,),
        {
            "id": scenario_id,
            "chapter": chapter,
            "title": T,
            "question": T,
            "lesson": Lesson(T, T, T, T),
            "variants": (Variant("pitfall", T, T), Variant("fix", T, T)),
            "exercises": exercises,
            "setup": lambda self, lab, variant: lambda values: None,
        },
    )


def test_a_taken_id_or_a_foreign_object_is_left_out_with_a_reason():
    first = _scenario("first", Pitfall.STATIC_ARGS, (_exercise("shared"),))
    second = _scenario("second", CUSTOM, (_exercise("shared"), "not an exercise", _exercise("own")))
    entries = [PluginEntry(c.id, "test", scenario=c) for c in (first, second)]
    built = catalogue.build(entries)
    assert [(e.scenario, e.id) for e in built.exercises] == [("first", "shared"), ("second", "own")]
    assert built.by_id["own"].chapter == CUSTOM and built.by_id["own"].pitfall == CUSTOM
    assert built.by_id["shared"].chapter is Pitfall.STATIC_ARGS
    assert len(built.problems) == 2
    assert "'shared' is taken by first" in built.problems[0]
    assert "'not an exercise'" in built.problems[1]


def test_a_run_of_a_catalogued_plugin_exercise_is_checked_by_running_it():
    cls = _scenario("plugin", CUSTOM, (_exercise("one-compile"),))
    (exercise,) = catalogue.build([PluginEntry("plugin", "test", scenario=cls)]).exercises
    verdict = exercise.check("1")
    assert verdict.correct and verdict.answer.value == 1
    assert exercise.check("2").correct is False
