"""The exercise catalogue: every scenario's declared ``exercises``, read from discovery.

Exercises live with the scenario that teaches their point (``scenarios/<id>.py``, or a
plugin's own module), so a plugin brings its questions and its chapter with it. The
catalogue ties each exercise to its scenario (id, chapter, icon) and keeps discovery's
chapter order; within a scenario the declared order is kept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any

from jitlab.lab.discovery import PluginEntry, discover
from jitlab.lab.exercise import Exercise
from jitlab.lab.scenario import icon_file

__all__ = ["Catalogue", "available", "build", "catalogue", "get"]  # and EXERCISES, BY_ID, SCENARIOS


@dataclass(frozen=True)
class Catalogue:
    exercises: tuple[Exercise, ...]  # in chapter order, then as each scenario declares them
    by_id: Mapping[str, Exercise]
    scenarios: tuple[str, ...]  # the scenarios that have exercises, in chapter order
    problems: tuple[str, ...] = ()  # exercises left out (a broken plugin's too), and why


def build(entries: Sequence[PluginEntry] | None = None) -> Catalogue:
    """The catalogue of these discovery entries (default: discover now)."""
    exercises: list[Exercise] = []
    by_id: dict[str, Exercise] = {}
    scenarios: list[str] = []
    problems: list[str] = []
    for entry in discover() if entries is None else entries:
        cls = entry.scenario
        if cls is None:  # a broken plugin: its exercises are left out, and said why
            problems.append(f"{entry.name}: {entry.error}")
            continue
        for declared in cls.exercises:
            if not isinstance(declared, Exercise):
                problems.append(f"{cls.id}: {declared!r} is not a jitlab.quiz.Exercise")
                continue
            if declared.id in by_id:
                other = by_id[declared.id].scenario
                problems.append(f"{cls.id}: exercise id {declared.id!r} is taken by {other}")
                continue
            exercise = dataclasses.replace(
                declared, scenario=cls.id, chapter=cls.chapter, icon=str(icon_file(cls))
            )
            exercises.append(exercise)
            by_id[exercise.id] = exercise
            if cls.id not in scenarios:
                scenarios.append(cls.id)
    return Catalogue(tuple(exercises), MappingProxyType(by_id), tuple(scenarios), tuple(problems))


@cache
def catalogue() -> Catalogue:
    """The catalogue of the installed scenarios (discovered once per process)."""
    return build()


def get(exercise_id: str) -> Exercise:
    """The exercise with this id (KeyError if there is none)."""
    return catalogue().by_id[exercise_id]


def available(devices: int | None = None) -> tuple[Exercise, ...]:
    """The exercises that can run with this many devices (default: what JAX sees)."""
    if devices is None:
        from jitlab.probe.devices import mesh_device_count

        devices = mesh_device_count()
    return tuple(e for e in catalogue().exercises if e.min_devices <= devices)


def __getattr__(name: str) -> Any:
    # EXERCISES, BY_ID and SCENARIOS: discovery runs on first use, not at import.
    if name == "EXERCISES":
        return catalogue().exercises
    if name == "BY_ID":
        return catalogue().by_id
    if name == "SCENARIOS":
        return catalogue().scenarios
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
