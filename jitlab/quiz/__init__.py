"""Predict-then-run exercises and interview rounds, checked against real JAX (no Qt here).

The GUI and the CLI use the same objects: pick an :class:`Exercise` from :data:`EXERCISES`
(or :func:`get` one by id), show ``title``/``question``/``options``/``source`` in a
language with ``Text.get(lang)``, call ``exercise.check(prediction)`` on a worker thread —
a blocking call that runs the snippet and returns a frozen :class:`Verdict` — and show
``verdict.answer.detail``, ``exercise.explanation`` and a link to ``exercise.scenario``.
"""

from jitlab.quiz.exercises import BY_ID, EXERCISES, available, get
from jitlab.quiz.interview import Interview, Result
from jitlab.quiz.model import (
    NO_ERROR,
    Answer,
    AnswerKind,
    Evidence,
    Exercise,
    Option,
    Outcome,
    Verdict,
)

__all__ = [
    "BY_ID",
    "EXERCISES",
    "NO_ERROR",
    "Answer",
    "AnswerKind",
    "Evidence",
    "Exercise",
    "Interview",
    "Option",
    "Outcome",
    "Result",
    "Verdict",
    "available",
    "get",
]
