"""Predict-then-run exercises and interview rounds, checked against real JAX (no Qt here).

A scenario declares its exercises (``exercises = (Exercise(...), ...)``, built with the
helpers here); :data:`EXERCISES` collects them from discovery, in chapter order.
The GUI and the CLI use the same objects: pick an :class:`Exercise` from :data:`EXERCISES`
(or :func:`get` one by id), show ``title``/``question``/``options``/``source`` in a
language with ``Text.get(lang)``, call ``exercise.check(prediction)`` on a worker thread —
a blocking call that runs the snippet and returns a frozen :class:`Verdict` — and show
``verdict.answer.detail``, ``exercise.explanation`` and a link to ``exercise.scenario``.
"""

__all__ = [
    "BY_ID",
    "CLAIM",
    "EXERCISES",
    "NO_ERROR",
    "SCENARIOS",
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
    "claim_verdict",
    "compile_answer",
    "error_answer",
    "error_options",
    "get",
    "printed_answer",
]


_HOMES = {
    **dict.fromkeys(
        ("BY_ID", "EXERCISES", "SCENARIOS", "available", "get"), "jitlab.quiz.exercises"
    ),
    **dict.fromkeys(("Interview", "Result"), "jitlab.quiz.interview"),
}


def __getattr__(name: str):
    # Lazy: `jitlab quiz` is parsed by the same parser that opens the desktop app, and the app
    # must not import JAX before its window shows.
    import importlib

    if name in __all__:
        value = getattr(importlib.import_module(_HOMES.get(name, "jitlab.lab.exercise")), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'jitlab.quiz' has no attribute {name!r}")
