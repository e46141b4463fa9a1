"""Deprecated: the exercise model lives in :mod:`jitlab.lab.exercise`; import it from there
(scenarios and plugins: from :mod:`jitlab.lab.scenario`).

Kept only while ``jitlab/gui/executor.py`` and ``jitlab/notebook/lesson.py`` still import it
(changed on other branches); /work/helpers/44-followup.patch moves them and
deletes this file.
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
