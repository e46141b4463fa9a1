"""The one module scenarios and plugins import: the spec, the lab handle, exercises, answer
helpers and the few probe tools a lesson needs. Importing it loads no JAX.

What a scenario declares (texts, parameters, variants, chapter, icon, exercises) lives in
:mod:`jitlab.lab.spec`; the :class:`Lab` its setup receives in :mod:`jitlab.lab.handle`;
exercises and the helpers that read an answer off a run in :mod:`jitlab.lab.exercise`; the
question's graded run in :mod:`jitlab.lab.verdict`; a call's record (``CallRecord``,
``ErrorInfo``) in :mod:`jitlab.records.calls`. None of them imports JAX at module level.
The probe tools that need JAX (``cache_size``, ``Probe``, the anatomy of an error:
``analyze_error``, ``rerun_eagerly``, ``jaxpr_text``) are re-exported lazily: JAX loads when
a scenario first takes one of them, and a scenario file imports JAX itself anyway.
``tests/lab/test_plugin_module.py`` checks, in a fresh interpreter, that ``jax`` stays out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jitlab.lab.exercise import (
    CLAIM,
    NO_ERROR,
    Answer,
    AnswerKind,
    Evidence,
    Exercise,
    Option,
    calls_text,
    claim_verdict,
    compile_answer,
    error_answer,
    error_options,
    kind_text,
    printed_answer,
)
from jitlab.lab.facts import count_equations, first_values
from jitlab.lab.handle import Lab
from jitlab.lab.spec import (
    AutoplayStep,
    CardRef,
    Chapter,
    ChapterLike,
    Comparison,
    Lesson,
    Measure,
    Param,
    ParamValue,
    ParamValues,
    Pitfall,
    Scenario,
    ScriptLesson,
    Step,
    Text,
    Variant,
    icon_file,
)
from jitlab.lab.validation import REQUIRED, validate
from jitlab.lab.verdict import Counted, Fact, QuestionRun, Shown
from jitlab.probe.devices import devices_text, mesh_devices
from jitlab.records.calls import CallRecord, ErrorInfo

if TYPE_CHECKING:
    from jitlab.probe._jax import cache_size
    from jitlab.probe.anatomy import EagerRun, ErrorAnatomy, jaxpr_text, rerun_eagerly
    from jitlab.probe.anatomy import analyze as analyze_error
    from jitlab.probe.probe import Probe

# name -> (module, attribute): loaded on first use, since each of these modules imports JAX.
_LAZY = {
    "cache_size": ("_jax", "cache_size"),
    "Probe": ("probe", "Probe"),
    "analyze_error": ("anatomy", "analyze"),
    "rerun_eagerly": ("anatomy", "rerun_eagerly"),
    "jaxpr_text": ("anatomy", "jaxpr_text"),
    "ErrorAnatomy": ("anatomy", "ErrorAnatomy"),
    "EagerRun": ("anatomy", "EagerRun"),
}

__all__ = [
    "CLAIM",
    "NO_ERROR",
    "REQUIRED",
    "Answer",
    "AnswerKind",
    "AutoplayStep",
    "CallRecord",
    "CardRef",
    "Chapter",
    "ChapterLike",
    "Comparison",
    "Counted",
    "EagerRun",
    "ErrorAnatomy",
    "ErrorInfo",
    "Evidence",
    "Exercise",
    "Fact",
    "Lab",
    "Lesson",
    "Measure",
    "Option",
    "Param",
    "ParamValue",
    "ParamValues",
    "Pitfall",
    "Probe",
    "QuestionRun",
    "Scenario",
    "ScriptLesson",
    "Shown",
    "Step",
    "Text",
    "Variant",
    "analyze_error",
    "cache_size",
    "calls_text",
    "claim_verdict",
    "compile_answer",
    "count_equations",
    "devices_text",
    "error_answer",
    "error_options",
    "first_values",
    "icon_file",
    "jaxpr_text",
    "kind_text",
    "mesh_devices",
    "printed_answer",
    "rerun_eagerly",
    "validate",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        # Real import statements, so import-linter sees these arrows (lab -> probe).
        from jitlab.probe import _jax, anatomy, probe

        module, attribute = _LAZY[name]
        value = getattr({"_jax": _jax, "anatomy": anatomy, "probe": probe}[module], attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
