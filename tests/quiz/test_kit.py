"""The quiz as the app's views get it (jitlab.quiz.kit.load_kit, a job on the executor),
loaded without Qt: the built-ins' exercises in catalogue order, the ones this machine can run,
the variants' titles, and the classes the views drive."""

from __future__ import annotations

import pytest

from jitlab.lab.discovery import discover
from jitlab.lab.scenario import Scenario
from jitlab.quiz import exercises as catalogue
from jitlab.quiz.kit import QuizKit, load_kit


@pytest.fixture(scope="module")
def kit() -> QuizKit:
    return load_kit()


@pytest.fixture(scope="module")
def found() -> dict[str, type[Scenario]]:
    return {e.name: e.scenario for e in discover(entry_points=False) if e.scenario is not None}


def test_the_kit_holds_the_built_ins_exercises_in_catalogue_order(kit, found) -> None:
    built = catalogue.build(discover(entry_points=False))
    assert built.exercises, "the built-ins declare no exercise"
    ours = [e.id for e in kit.exercises if e.scenario in found]
    assert ours == [e.id for e in built.exercises]


def test_what_the_kit_calls_available_is_what_the_quiz_would_run_here(kit) -> None:
    assert kit.devices >= 1
    for exercise in kit.exercises:
        assert (exercise.id in kit.available) == (exercise.min_devices <= kit.devices)
        if exercise.id not in kit.available:
            # The quiz's own run refuses it for too few devices (no snippet runs).
            assert exercise.run().skipped is not None, exercise.id


def test_the_kit_names_every_variant_and_drives_a_round(kit, found) -> None:
    for sid, cls in found.items():
        for variant in cls.variants:
            assert kit.variants[(sid, variant.id)] is variant.title
    assert kit.interview is not None and kit.outcome is not None
    pool = [e for e in kit.exercises if e.id in kit.available]
    round_ = kit.interview(len(pool), seed=7, pool=pool)
    assert sorted(e.id for e in round_.questions) == sorted(kit.available)
