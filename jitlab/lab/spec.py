"""What a scenario declares: texts, parameters, variants, lesson, chapter, icon, exercises.

This is the contract a plugin author reads (``docs/plugins.md`` walks through it); the checks
:func:`~jitlab.lab.validation.validate` makes of it, each problem with its file and line,
live in :mod:`jitlab.lab.validation`. ``from jitlab.lab.scenario import ...`` is how
scenarios and plugins name both.

A scenario is a subclass of :class:`Scenario` with class attributes for its texts,
parameters, variants and autoplay script, and one method, :meth:`Scenario.setup`, which
builds the step for a variant: a callable that makes exactly one probed call.

Nothing here imports JAX: the GUI and the CLI read a scenario's spec without the probe.
The :class:`~jitlab.lab.handle.Lab` that ``setup`` receives lives next to the probe, in
:mod:`jitlab.lab.handle`; :mod:`jitlab.lab.scenario` re-exports both.
"""

from __future__ import annotations

import contextlib
import enum
import inspect
import math
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from jitlab.records.calls import ParamValue
from jitlab.records.paths import resource
from jitlab.records.text import Text

if TYPE_CHECKING:  # the lab makes probes, and so imports JAX
    from jitlab.lab.handle import Lab

__all__ = [
    "AutoplayStep",
    "CardRef",
    "Chapter",
    "ChapterLike",
    "Comparison",
    "Lesson",
    "Measure",
    "Param",
    "ParamValue",
    "ParamValues",
    "Pitfall",
    "Scenario",
    "ScriptLesson",
    "Step",
    "Text",
    "Variant",
    "icon_file",
]


@dataclass(frozen=True)
class Chapter:
    """A chapter of the lab: where a scenario's pitfall sits in the list and the quiz.

    The built-in chapters are the :class:`Pitfall` members; a plugin that teaches something
    else declares its own, numbered after them (``Chapter(8, Text("8 · …", "8 · …"))``).
    Scenarios with equal chapters are listed together, in chapter-number order.
    """

    number: int
    title: Text

    def __int__(self) -> int:
        return self.number


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

    @property
    def number(self) -> int:
        return int(self)


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

# What a scenario may give as its chapter: a built-in pitfall, or a chapter of its own.
ChapterLike = Pitfall | Chapter


# Parameter values by name: what a step receives and a record keeps.
ParamValues = Mapping[str, ParamValue]


@dataclass(frozen=True)
class Param:
    """A typed scenario parameter; the GUI builds a control from it, the CLI validates with it."""

    name: str
    default: ParamValue
    label: Text
    help: Text
    minimum: int | float | None = None
    maximum: int | float | None = None
    choices: tuple[str, ...] = ()
    # How each choice reads in the GUI, in both languages (default: the choice as written).
    choice_labels: tuple[Text, ...] = ()
    log_scale: bool = False  # the GUI slider moves in powers (batch sizes, steps)
    variants: tuple[str, ...] = ()  # the variants that read it (empty: every variant)

    def applies_to(self, variant: str) -> bool:
        return not self.variants or variant in self.variants

    def choice_label(self, choice: str, language: str) -> str:
        """A choice in the interface language (its label, or the choice itself)."""
        if choice in self.choices and len(self.choice_labels) == len(self.choices):
            return self.choice_labels[self.choices.index(choice)].get(language)
        return choice

    @property
    def type(self) -> type:
        return type(self.default)

    def parse(self, text: str) -> ParamValue:
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

    def check(self, value: ParamValue) -> ParamValue:
        # NaN compares False with any bound, so it would pass the range checks below.
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{self.name} must be {self.describe()}, not {value!r}")
        if self.choices and value not in self.choices:
            raise ValueError(f"{self.name} must be one of {', '.join(self.choices)}, not {value!r}")
        low, high = self.minimum, self.maximum
        if isinstance(value, str):  # a string has no place in a range
            out = low is not None or high is not None
        else:
            out = (low is not None and value < low) or (high is not None and value > high)
        if out:
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


def value_words(
    params: Iterable[Param], values: Mapping[str, Any], language: str
) -> list[tuple[str, str]]:
    """Each value as the lesson's controls show it: its parameter's label and the value's
    label, in ``language`` (never the ids). A name no parameter declares keeps its name."""
    declared = {p.name: p for p in params}
    words = []
    for name, value in values.items():
        p = declared.get(name)
        if p is None:
            words.append((name, str(value)))
        else:
            words.append((p.label.get(language), p.choice_label(str(value), language)))
    return words


def values_text(params: Iterable[Param], values: Mapping[str, Any], language: str) -> str:
    """``Input layout: features (columns); Batch rows: 256`` (in Chinese with ``：`` and
    ``；``): one call's values, as every face says them."""
    colon, sep = ("：", "；") if language.startswith("zh") else (": ", "; ")
    return sep.join(
        f"{label}{colon}{value}" for label, value in value_words(params, values, language)
    )


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
class CardRef:
    """A card of the run, named by a :class:`ScriptLesson`: the newest card compiled by a
    call of ``variant`` whose parameters include ``params``; with ``number``, only the
    variant's card of that number (1, 2, … as the kitchen numbers them in a segment)."""

    variant: str
    params: ParamValues = field(default_factory=dict)
    number: int | None = None


@dataclass(frozen=True)
class ScriptLesson:
    """What the chef's scripts show about the pitfall, and which cards to read.

    ``compare`` names two cards whose scripts differ in the way that teaches the pitfall (the
    GUI opens their diff), or one card whose script is worth reading on its own.
    """

    text: Text
    compare: tuple[CardRef, ...] = ()


@dataclass(frozen=True)
class AutoplayStep:
    """One beat of a hands-free demo: change some parameters (and maybe the variant), call."""

    params: ParamValues = field(default_factory=dict)
    variant: str | None = None
    note: Text | None = None  # what a presenter would say at this beat


class Measure(enum.StrEnum):
    """What a lesson's fix changes, and so what its verdict counts."""

    COMPILES = "compiles"  # calls that compiled (fewer is better)
    ERRORS = "errors"  # calls that raised (fewer is better)
    OUTPUT = "output"  # calls whose side effect happened (printed, counted): more is better
    PROGRAM_SIZE = "program_size"  # equations in the traced program (fewer is better)
    LATENCY = "latency"  # time of a cached call, only where the lesson is about latency


@dataclass(frozen=True)
class Comparison:
    """The lesson's verdict as data: two variants, one call sequence, one measure.

    ``calls`` are the parameter overrides of each call, the same for both variants, chosen
    so the pitfall visibly hurts. ``facts`` names what the measure reads from each variant's
    ``facts()`` (pitfall's key, fix's key): for ``OUTPUT`` the counter whose final value
    shows whether the side effect happened on every call; for ``PROGRAM_SIZE`` the size of
    the traced program. ``note`` is said after the verdict: what the sequence shows.
    """

    measure: Measure
    calls: tuple[ParamValues, ...]
    pitfall: str = "pitfall"
    fix: str = "fix"
    note: Text | None = None
    facts: tuple[str, str] | tuple[()] = ()

    @property
    def variants(self) -> tuple[str, str]:
        return (self.pitfall, self.fix)


Step = Callable[[ParamValues], object]


class Scenario:
    """Base class of scenario plugins. Subclasses fill in the class attributes.

    ``chapter`` places the scenario: a :class:`Pitfall` for the built-in chapters, or a
    plugin's own :class:`Chapter`. ``pitfall`` is the older name of the same attribute: a
    scenario declares either, and both read the same value. ``exercises`` are the
    predict-then-run questions (``jitlab.quiz.Exercise``) about this scenario's point; the
    quiz collects them from discovery and ties each to the scenario that declares it.
    """

    id: ClassVar[str]
    chapter: ClassVar[ChapterLike]
    pitfall: ClassVar[ChapterLike]  # the same as ``chapter``
    title: ClassVar[Text]
    lesson: ClassVar[Lesson]
    question: ClassVar[Text]  # asked before the run: predict what will happen
    params: ClassVar[tuple[Param, ...]] = ()
    variants: ClassVar[tuple[Variant, ...]]
    autoplay: ClassVar[tuple[AutoplayStep, ...]] = ()
    # A kitchen icon of resources/icons by name, or an image file: absolute, or relative to
    # the file that defines the scenario (so a plugin can bring its own).
    icon: ClassVar[str] = "pot"
    exercises: ClassVar[tuple[Any, ...]] = ()
    # The comments (and one-line docstrings) of the shown code in both languages: each
    # Text's ``en`` is the comment as written in the source, without the ``#``. The code view
    # shows ``zh`` instead in Chinese (:func:`translate_comments`); the code itself is unchanged.
    code_comments: ClassVar[tuple[Text, ...]] = ()
    # What reading the compiled scripts teaches here, and which cards to compare (optional).
    scripts: ClassVar[ScriptLesson | None] = None
    # What each lesson's fix changes, measured on one call sequence (the first: pitfall and
    # fix; more for the other faces of the pitfall). None declared: compiles, on the demo.
    comparisons: ClassVar[tuple[Comparison, ...]] = ()
    # How the question is settled (a ``jitlab.lab.verdict.QuestionRun``: its own calls on
    # one variant, and what it counts); None where the answer is not a count.
    question_run: ClassVar[Any] = None
    # Comparisons besides the pitfall and the fix's that the question asks about: Complete
    # runs and judges each on its own calls (control-flow: the loop, unrolled or scanned).
    also_judged: ClassVar[tuple[Comparison, ...]] = ()
    _chapter_named: ClassVar[str] = "chapter"  # which of the two names the scenario used

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = vars(cls)
        if "chapter" in own and "pitfall" not in own:
            cls.pitfall = cls.chapter
            cls._chapter_named = "chapter"
        elif "pitfall" in own and "chapter" not in own:
            cls.chapter = cls.pitfall
            cls._chapter_named = "pitfall"

    def setup(self, lab: Lab, variant: str) -> Step:
        """Build the step for ``variant``: a callable making one probed call per invocation."""
        raise NotImplementedError

    def facts(self) -> dict[str, Any]:
        """What the last step observed that JAX's records cannot show (a global counter,
        a list holding a tracer, time saved…). The engine copies it into ``record.notes``."""
        return {}

    def source(self, variant: str, language: str = "en") -> str:
        """The code that runs for ``variant`` (shown in the GUI's code view), its comments
        in ``language`` where :attr:`code_comments` translates them."""
        text = "\n\n".join(
            textwrap.dedent(inspect.getsource(obj)) for obj in self.code_objects(variant)
        )
        return in_language(text, self.code_comments, language)

    def code_objects(self, variant: str) -> tuple[Any, ...]:
        """The functions whose source is the code that runs for ``variant``."""
        return ()

    # -- helpers shared by the CLI, engine and GUI ----------------------------------------
    @classmethod
    def defaults(cls) -> dict[str, ParamValue]:
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

    @classmethod
    def comparison(cls, variant: str | None = None) -> Comparison:
        """The comparison that holds ``variant`` (default: the pitfall and the fix's)."""
        for c in cls.comparisons:
            if (variant is None and c.variants == ("pitfall", "fix")) or variant in c.variants:
                return c
        if variant is None and cls.comparisons:
            return cls.comparisons[0]
        pitfall, fix = ("pitfall", "fix")
        if variant not in (None, "pitfall", "fix"):
            pitfall, fix = variant, "fix"  # an undeclared face: measured against the fix
        calls = tuple(dict(b.params) for b in cls.autoplay if b.variant in (None, "pitfall", "fix"))
        return Comparison(Measure.COMPILES, calls or ({},), pitfall, fix)


def icon_file(cls: type[Scenario]) -> Path:
    """The image of a scenario's icon (the plain pot when the named one does not exist)."""
    name = str(getattr(cls, "icon", "") or "pot")
    named = resource("icons", f"{name}.svg")
    if named.is_file():
        return named
    path = Path(name)
    if not path.is_absolute():
        with contextlib.suppress(TypeError, OSError):  # a class made in memory has no file
            path = Path(inspect.getfile(cls)).parent / path
    return path if path.is_file() else resource("icons", "pot.svg")


def in_language(source: str, comments: Iterable[Text], language: str) -> str:
    """``source`` with its comments in ``language`` where ``comments`` translates them (a
    scenario's code and an exercise's snippet alike: their ``code_comments``)."""
    table = {c.en: c.zh for c in comments} if language.startswith("zh") else {}
    return translate_comments(source, table) if table else source


def _comments(source: str) -> list[tuple[int, int, int, str, str]]:
    """Each comment and one-line docstring of ``source``: (row, start column, end column,
    text, the quote around it, "#" for a comment); none when it does not tokenize."""
    import io
    import tokenize

    found: list[tuple[int, int, int, str, str]] = []
    previous = tokenize.INDENT
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            kind, text, (row, col), (end_row, end_col), _ = token
            if kind == tokenize.COMMENT:
                found.append((row, col, end_col, text[1:].strip(), "#"))
            elif kind == tokenize.STRING and row == end_row and previous == tokenize.INDENT:
                quote = text[:3]  # a docstring is the first statement of a body
                if quote in ('"""', "'''") and text.endswith(quote):
                    found.append((row, col, end_col, text[3:-3].strip(), quote))
            if kind not in (tokenize.NL, tokenize.COMMENT):
                previous = kind
    except (tokenize.TokenError, SyntaxError):
        return []
    return found


def comment_texts(source: str) -> list[str]:
    """The text of each comment and one-line docstring of ``source``, in order."""
    return [text for _row, _start, _end, text, _quote in _comments(source) if text]


def translate_comments(source: str, table: Mapping[str, str]) -> str:
    """``source`` with each comment, and each one-line docstring, whose text is a key of
    ``table`` replaced by its value. Only comments and docstrings change, never code or other
    strings; a source that does not tokenize comes back as it was."""
    edits = [
        (row, start, end, f"# {table[key]}" if quote == "#" else f"{quote}{table[key]}{quote}")
        for row, start, end, key, quote in _comments(source)
        if key in table
    ]
    lines = source.splitlines(keepends=True)
    for row, start, end, new in reversed(edits):  # right to left keeps the columns valid
        line = lines[row - 1]
        lines[row - 1] = line[:start] + new + line[end:]
    return "".join(lines)
