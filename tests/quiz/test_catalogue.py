"""The quiz's catalogue is what discovery finds: each exercise belongs to the scenario that
declares it, under that scenario's chapter and icon.

The expectations come from discovery (each scenario class's own ``exercises``) and from
tables written here, never from the catalogue's own bookkeeping.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from jitlab.lab.discovery import PluginEntry, discover
from jitlab.lab.scenario import Chapter, Lesson, Pitfall, Scenario, Text, Variant, icon_file
from jitlab.quiz import exercises as catalogue
from jitlab.quiz.model import AnswerKind, Exercise, compile_answer
from jitlab.records.paths import builtin_dir

# Written out independently: each built-in scenario's chapter, and the file its exercises are
# written in (recompile-cost keeps them in a sibling module it imports; see its docstring).
CHAPTERS = {
    "side-effects": (1, "side_effects.py"),
    "static-args": (2, "static_args.py"),
    "control-flow": (3, "control_flow.py"),
    "dynamic-shapes": (4, "dynamic_shapes.py"),
    "recompile-cost": (5, "_recompile_cost_exercises.py"),
    "error-debugging": (6, "error_debugging.py"),
    "sharding": (7, "sharding.py"),
}


@pytest.fixture(scope="module")
def found() -> dict[str, type[Scenario]]:
    return {e.name: e.scenario for e in discover(entry_points=False) if e.scenario is not None}


def test_every_builtin_scenario_declares_exercises_in_its_own_files(found):
    assert set(found) == set(CHAPTERS)
    for scenario_id, cls in found.items():
        number, filename = CHAPTERS[scenario_id]
        assert int(cls.chapter) == number and cls.chapter is cls.pitfall
        assert cls.chapter is Pitfall(number)
        assert len(cls.exercises) >= 3, scenario_id
        for exercise in cls.exercises:
            where = Path(inspect.getsourcefile(exercise.snippet))
            assert where == builtin_dir("scenarios") / filename, (exercise.id, where)


def test_the_catalogue_is_every_declared_exercise_in_chapter_order(found):
    expected = [
        (scenario_id, declared.id)
        for scenario_id in sorted(found, key=lambda s: CHAPTERS[s][0])
        for declared in found[scenario_id].exercises
    ]
    built = catalogue.build(discover(entry_points=False))
    assert [(e.scenario, e.id) for e in built.exercises] == expected
    assert built.problems == ()
    assert list(built.scenarios) == sorted(found, key=lambda s: CHAPTERS[s][0])


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
