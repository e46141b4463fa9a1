"""Everything a scenario imports, in one place: its spec and the lab handle (this needs JAX).

What a scenario declares (texts, parameters, variants, chapter, icon, exercises) lives in
:mod:`jitlab.lab.spec`, which imports no JAX; the :class:`Lab` its setup receives lives in
:mod:`jitlab.lab.handle`. Both are re-exported here, so scenarios and plugins keep importing
everything from ``jitlab.lab.scenario``.
"""

from __future__ import annotations

from jitlab.lab.handle import Lab
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
from jitlab.probe.devices import devices_text, mesh_devices

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
    "devices_text",
    "icon_file",
    "mesh_devices",
    "validate",
]
