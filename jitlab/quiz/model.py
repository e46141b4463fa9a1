"""The exercise model, as the quiz has always imported it.

The classes and answer helpers live in :mod:`jitlab.lab.exercise`, beside the spec a
scenario declares its exercises in, so that :mod:`jitlab.lab.scenario` (the one module
scenarios and plugins import) can offer them without reaching up into the quiz.
"""

from __future__ import annotations

from jitlab.lab.exercise import (
    CLAIM,
    NO_ERROR,
    Answer,
    AnswerKind,
    Bench,
    Evidence,
    Exercise,
    Option,
    Outcome,
    Settle,
    Snippet,
    Verdict,
    calls_text,
    claim_verdict,
    compile_answer,
    error_answer,
    error_options,
    kind_text,
    printed_answer,
)

__all__ = [
    "CLAIM",
    "NO_ERROR",
    "Answer",
    "AnswerKind",
    "Bench",
    "Evidence",
    "Exercise",
    "Option",
    "Outcome",
    "Settle",
    "Snippet",
    "Verdict",
    "calls_text",
    "claim_verdict",
    "compile_answer",
    "error_answer",
    "error_options",
    "kind_text",
    "printed_answer",
]
