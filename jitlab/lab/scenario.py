"""The lab handle a scenario's setup uses to make probed calls (this part needs JAX).

What a scenario declares (texts, parameters, variants, chapter, icon, exercises) lives in
:mod:`jitlab.lab.spec`, which imports no JAX; it is re-exported here, so scenarios and
plugins keep importing everything from ``jitlab.lab.scenario``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jitlab.lab.spec import (
    REQUIRED,
    AutoplayStep,
    CardRef,
    Chapter,
    ChapterLike,
    Comparison,
    Lesson,
    Measure,
    Param,
    Pitfall,
    Scenario,
    ScriptLesson,
    Step,
    Text,
    Variant,
    icon_file,
    validate,
)
from jitlab.probe.probe import PhaseCallback, Probe

__all__ = [
    "REQUIRED",
    "AutoplayStep",
    "CardRef",
    "Chapter",
    "ChapterLike",
    "Comparison",
    "Lab",
    "Lesson",
    "Measure",
    "Param",
    "Pitfall",
    "Scenario",
    "ScriptLesson",
    "Step",
    "Text",
    "Variant",
    "icon_file",
    "validate",
]


class Lab:
    """What a scenario's setup receives: it makes probes wired to the running engine."""

    def __init__(self, on_phase: PhaseCallback | None = None) -> None:
        self.on_phase = on_phase
        self.probes: list[Probe] = []

    def probe(self, fn: Callable[..., Any], **kwargs: Any) -> Probe:
        probe = Probe(fn, on_phase=self.on_phase, **kwargs)
        self.probes.append(probe)
        return probe
