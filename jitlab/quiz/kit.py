"""The quiz as its views need it, loaded in one go on the app's JAX thread: the exercises,
those this machine's devices can run, and the classes the views drive (an interview round,
an outcome), so that the views themselves import nothing that reaches JAX.

No Qt here: the GUI queues :func:`load_kit` on its executor (``tests/quiz/test_kit.py``
loads it without a window).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jitlab.lab.exercise import Exercise, Outcome
    from jitlab.quiz.interview import Interview

__all__ = ["QuizKit", "load_kit"]


@dataclass(frozen=True)
class QuizKit:
    """The exercise catalogue (``jitlab.quiz.exercises``) and what the views need with it."""

    exercises: tuple[Exercise, ...]  # in catalogue order
    available: tuple[str, ...]  # ids of those that can run on this machine's devices
    devices: int
    interview: type[Interview] | None = None
    outcome: type[Outcome] | None = None
    # (scenario id, variant id) -> the variant's title (a Text): what the views call a variant
    variants: Mapping[tuple[str, str], Any] = field(default_factory=dict)


def load_kit() -> QuizKit:
    """Import the exercises (and so JAX) and count the devices."""
    from jitlab.lab.discovery import scenarios
    from jitlab.lab.exercise import Outcome
    from jitlab.probe.devices import mesh_device_count
    from jitlab.quiz import exercises
    from jitlab.quiz.interview import Interview

    return QuizKit(
        tuple(exercises.EXERCISES),
        tuple(e.id for e in exercises.available()),
        mesh_device_count(),
        Interview,
        Outcome,
        {(sid, v.id): v.title for sid, cls in scenarios().items() for v in cls.variants},
    )
