"""What a scenario plugin declares, and the lab handle it uses to make probed calls.

A scenario is a subclass of :class:`Scenario` with class attributes for its texts,
parameters, variants and autoplay script, and one method, :meth:`Scenario.setup`, which
builds the step for a variant: a callable that makes exactly one probed call.
"""

from __future__ import annotations

import enum
import inspect
import math
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from jitlab.core.probe import PhaseCallback, Probe


@dataclass(frozen=True)
class Text:
    """A piece of user-facing text in both languages."""

    en: str
    zh: str

    def get(self, language: str) -> str:
        return self.zh if language.startswith("zh") else self.en


class Pitfall(enum.IntEnum):
    """The seed's six pitfalls, plus the sharding chapter that goes beyond it."""

    SIDE_EFFECTS = 1
    STATIC_ARGS = 2
    CONTROL_FLOW = 3
    DYNAMIC_SHAPES = 4
    RECOMPILE_COST = 5
    ERROR_DEBUGGING = 6
    SHARDING = 7

    @property
    def title(self) -> Text:
        return _PITFALL_TITLES[self]


_PITFALL_TITLES = {
    Pitfall.SIDE_EFFECTS: Text("1 · Side effects happen at trace time", "1 · 副作用只在追踪时发生"),
    Pitfall.STATIC_ARGS: Text("2 · Static vs traced arguments", "2 · 静态参数与追踪参数"),
    Pitfall.CONTROL_FLOW: Text(
        "3 · Python control flow on traced values", "3 · 追踪值上的 Python 控制流"
    ),
    Pitfall.DYNAMIC_SHAPES: Text("4 · Dynamic shapes trigger recompiles", "4 · 动态形状触发重编译"),
    Pitfall.RECOMPILE_COST: Text("5 · The cost of recompiling", "5 · 重编译的代价"),
    Pitfall.ERROR_DEBUGGING: Text("6 · Debugging compile errors", "6 · 调试编译错误"),
    Pitfall.SHARDING: Text("7 · Sharding (beyond the guide)", "7 · 分片（指南之外）"),
}


@dataclass(frozen=True)
class Param:
    """A typed scenario parameter; the GUI builds a control from it, the CLI validates with it."""

    name: str
    default: int | float | str | bool
    label: Text
    help: Text
    minimum: int | float | None = None
    maximum: int | float | None = None
    choices: tuple[str, ...] = ()
    log_scale: bool = False  # the GUI slider moves in powers (batch sizes, steps)
    variants: tuple[str, ...] = ()  # the variants that read it (empty: every variant)

    def applies_to(self, variant: str) -> bool:
        return not self.variants or variant in self.variants

    @property
    def type(self) -> type:
        return type(self.default)

    def parse(self, text: str) -> int | float | str | bool:
        """Turn CLI text into a valid value, or raise ValueError naming what is allowed."""
        if self.type is bool:
            lowered = text.strip().lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError(f"{self.name} must be true or false, not {text!r}")
        if self.type is str:
            return self.check(text.strip())
        try:
            value = self.type(text.strip())
        except ValueError:
            raise ValueError(f"{self.name} must be {self.describe()}, not {text!r}") from None
        return self.check(value)

    def check(self, value: Any) -> Any:
        # NaN compares False with any bound, so it would pass the range checks below.
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{self.name} must be {self.describe()}, not {value!r}")
        if self.choices and value not in self.choices:
            raise ValueError(f"{self.name} must be one of {', '.join(self.choices)}, not {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise ValueError(f"{self.name} must be {self.describe()}, not {value!r}")
        if self.maximum is not None and value > self.maximum:
            raise ValueError(f"{self.name} must be {self.describe()}, not {value!r}")
        return value

    def describe(self) -> str:
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.type is bool:
            return "true or false"
        kind = "an integer" if self.type is int else "a number"
        if self.minimum is not None and self.maximum is not None:
            return f"{kind} in {self.minimum}…{self.maximum}"
        return "a finite number" if self.type is float else kind


@dataclass(frozen=True)
class Variant:
    id: str  # "pitfall", "fix", or another face of the pitfall
    title: Text
    summary: Text


@dataclass(frozen=True)
class Lesson:
    """The lesson in four parts: what goes wrong, why, the fix, and the kitchen story."""

    what: Text
    why: Text
    fix: Text
    kitchen: Text


@dataclass(frozen=True)
class AutoplayStep:
    """One beat of a hands-free demo: change some parameters (and maybe the variant), call."""

    params: Mapping[str, Any] = field(default_factory=dict)
    variant: str | None = None
    note: Text | None = None  # what a presenter would say at this beat


Step = Callable[[Mapping[str, Any]], Any]


class Lab:
    """What a scenario's setup receives: it makes probes wired to the running engine."""

    def __init__(self, on_phase: PhaseCallback | None = None) -> None:
        self.on_phase = on_phase
        self.probes: list[Probe] = []

    def probe(self, fn: Callable[..., Any], **kwargs: Any) -> Probe:
        probe = Probe(fn, on_phase=self.on_phase, **kwargs)
        self.probes.append(probe)
        return probe


class Scenario:
    """Base class of scenario plugins. Subclasses fill in the class attributes."""

    id: ClassVar[str]
    pitfall: ClassVar[Pitfall]
    title: ClassVar[Text]
    lesson: ClassVar[Lesson]
    question: ClassVar[Text]  # asked before the run: predict what will happen
    params: ClassVar[tuple[Param, ...]] = ()
    variants: ClassVar[tuple[Variant, ...]]
    autoplay: ClassVar[tuple[AutoplayStep, ...]] = ()
    icon: ClassVar[str] = "pot"  # name of a kitchen icon in resources/icons

    def setup(self, lab: Lab, variant: str) -> Step:
        """Build the step for ``variant``: a callable making one probed call per invocation."""
        raise NotImplementedError

    def facts(self) -> dict[str, Any]:
        """What the last step observed that JAX's records cannot show (a global counter,
        a list holding a tracer, time saved…). The engine copies it into ``record.notes``."""
        return {}

    def source(self, variant: str) -> str:
        """The code that runs for ``variant`` (shown in the GUI's code view)."""
        return "\n\n".join(
            textwrap.dedent(inspect.getsource(obj)) for obj in self.code_objects(variant)
        )

    def code_objects(self, variant: str) -> tuple[Any, ...]:
        """The functions whose source is the code that runs for ``variant``."""
        return ()

    # -- helpers shared by the CLI, engine and GUI ----------------------------------------
    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {p.name: p.default for p in cls.params}

    @classmethod
    def param(cls, name: str) -> Param:
        for p in cls.params:
            if p.name == name:
                return p
        raise KeyError(name)

    @classmethod
    def variant_ids(cls) -> tuple[str, ...]:
        return tuple(v.id for v in cls.variants)


REQUIRED = ("id", "pitfall", "title", "lesson", "question", "variants")


def validate(cls: Any) -> list[str]:
    """Problems with a plugin class, in words (empty when it is well-formed)."""
    problems = []
    if not (isinstance(cls, type) and issubclass(cls, Scenario)):
        return [f"{cls!r} is not a Scenario subclass"]
    for name in REQUIRED:
        if not hasattr(cls, name):
            problems.append(f"missing {name}")
    if problems:
        return problems
    # Discovery sorts by pitfall and indexes by id: a wrong type there would break the list.
    if not (isinstance(cls.id, str) and cls.id):
        problems.append(f"id must be a non-empty string, not {cls.id!r}")
    if not isinstance(cls.pitfall, Pitfall):
        problems.append(f"pitfall must be a Pitfall, not {cls.pitfall!r}")
    ids = cls.variant_ids()
    if "pitfall" not in ids or "fix" not in ids:
        problems.append("variants must include 'pitfall' and 'fix'")
    for p in cls.params:
        try:
            p.check(p.default)
        except ValueError as exc:
            problems.append(f"default out of range: {exc}")
        unknown = set(p.variants) - set(ids)
        if unknown:
            problems.append(f"parameter {p.name} names unknown variants {sorted(unknown)}")
    if cls.setup is Scenario.setup:
        problems.append("setup() is not implemented")
    return problems
