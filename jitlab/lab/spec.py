"""What a scenario declares: texts, parameters, variants, lesson, chapter, icon, exercises.

(Over 500 lines on purpose: this is the whole contract a plugin author reads, the spec and the
checks :func:`validate` makes of it, in one file; ``from jitlab.lab.spec import ...`` is how
scenarios, plugins and tests name it.)

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
import re
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from jitlab.records.paths import resource
from jitlab.records.text import Text

if TYPE_CHECKING:  # the lab makes probes, and so imports JAX
    from jitlab.lab.handle import Lab

__all__ = [
    "REQUIRED",
    "AutoplayStep",
    "CardRef",
    "Chapter",
    "ChapterLike",
    "Comparison",
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
    params: Mapping[str, Any] = field(default_factory=dict)
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

    params: Mapping[str, Any] = field(default_factory=dict)
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
    calls: tuple[Mapping[str, Any], ...]
    pitfall: str = "pitfall"
    fix: str = "fix"
    note: Text | None = None
    facts: tuple[str, str] | tuple[()] = ()

    @property
    def variants(self) -> tuple[str, str]:
        return (self.pitfall, self.fix)


Step = Callable[[Mapping[str, Any]], Any]


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


REQUIRED = ("id", "chapter", "title", "lesson", "question", "variants")


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


def validate(cls: Any, builtin: bool = False) -> list[str]:
    """Problems with a plugin class, in words (empty when it is well-formed).

    ``builtin=True`` adds what a scenario shipped in ``scenarios/`` owes on top (see
    :data:`BUILTIN_MIN_EXERCISES` and :func:`_builtin_problems`); the tests hold every
    built-in to it, so adding one is the one file."""
    problems = validate_plugin(cls)
    if builtin and not problems:
        problems += _builtin_problems(cls)
    return problems


# What a built-in owes beyond a plugin: a quiz chapter of its own, a lesson on the chef's
# scripts that reads as a paragraph in each language, and the code view filled.
BUILTIN_MIN_EXERCISES = 3
BUILTIN_SCRIPTS_EN_CHARS = 80  # English characters of ``scripts.text.en``, more than this
BUILTIN_SCRIPTS_ZH_HAN = 30  # Chinese characters of ``scripts.text.zh``, more than this
_HAN = re.compile(r"[\u4e00-\u9fff]")


def _builtin_problems(cls: type[Scenario]) -> list[str]:
    problems = []
    count = len(cls.exercises)
    if count < BUILTIN_MIN_EXERCISES:
        problems.append(
            f"a built-in declares at least {BUILTIN_MIN_EXERCISES} exercises; it has {count}"
        )
    for text in (cls.title, cls.question, *vars(cls.lesson).values()):
        if not (isinstance(text, Text) and text.en.strip() and text.zh.strip()):
            problems.append(
                f"a built-in's title, question and lesson say it in both languages: {text!r}"
            )
            break
    lesson = cls.scripts
    if lesson is None:
        problems.append("a built-in declares scripts = ScriptLesson(Text(en, zh), (CardRef, ...))")
    else:
        if len(lesson.text.en) <= BUILTIN_SCRIPTS_EN_CHARS or _HAN.search(lesson.text.en):
            problems.append(
                f"scripts.text.en must be English, over {BUILTIN_SCRIPTS_EN_CHARS} characters"
            )
        if len(_HAN.findall(lesson.text.zh)) <= BUILTIN_SCRIPTS_ZH_HAN:
            problems.append(
                f"scripts.text.zh must hold more than {BUILTIN_SCRIPTS_ZH_HAN} Chinese characters"
            )
        if not lesson.compare:
            problems.append("scripts.compare must name one or two cards (CardRef)")
    problems += _untranslated_exercise_comments(cls)
    if cls.code_objects is Scenario.code_objects:
        problems.append("code_objects(variant) is not implemented: the code view would be empty")
    else:
        for variant in cls.variant_ids():
            try:
                source = cls().source(variant)
            except Exception as exc:
                problems.append(f"code_objects({variant!r}) has no source: {exc}")
                continue
            if "def " not in source:
                problems.append(
                    f"code_objects({variant!r}) shows no function of the code that runs"
                )
    return problems


def validate_plugin(cls: Any) -> list[str]:
    """The checks every plugin passes (:func:`validate` without ``builtin``)."""
    problems = []
    if not (isinstance(cls, type) and issubclass(cls, Scenario)):
        return [f"{cls!r} is not a Scenario subclass"]
    for name in REQUIRED:
        if not hasattr(cls, name):
            problems.append(f"missing {name}")
    if problems:
        return problems
    # Discovery sorts by chapter and indexes by id: a wrong type there would break the list.
    if not (isinstance(cls.id, str) and cls.id):
        problems.append(f"id must be a non-empty string, not {cls.id!r}")
    problems += _chapter_problems(cls)
    problems += _exercise_problems(cls)
    if not all(isinstance(c, Text) for c in cls.code_comments):
        problems.append("code_comments must be a tuple of Text(en, zh)")
    ids = cls.variant_ids()
    if "pitfall" not in ids or "fix" not in ids:
        problems.append("variants must include 'pitfall' and 'fix'")
    problems += _script_lesson_problems(cls, ids)
    problems += _comparison_problems(cls, ids)
    for p in cls.params:
        try:
            p.check(p.default)
        except ValueError as exc:
            problems.append(f"default out of range: {exc}")
        unknown = set(p.variants) - set(ids)
        if unknown:
            problems.append(f"parameter {p.name} names unknown variants {sorted(unknown)}")
        if p.choice_labels and (
            len(p.choice_labels) != len(p.choices)
            or not all(isinstance(t, Text) for t in p.choice_labels)
        ):
            problems.append(f"parameter {p.name}: choice_labels needs one Text per choice")
    if cls.setup is Scenario.setup:
        problems.append("setup() is not implemented")
    return problems


def _chapter_problems(cls: type[Scenario]) -> list[str]:
    chapter, pitfall = cls.chapter, cls.pitfall
    name = cls._chapter_named
    if chapter is not pitfall:
        return ["chapter and pitfall are two names of one attribute: declare one of them"]
    if isinstance(chapter, Pitfall):
        return []
    if not isinstance(chapter, Chapter):
        return [f"{name} must be a Pitfall or a Chapter, not {chapter!r}"]
    problems = []
    if not (isinstance(chapter.number, int) and not isinstance(chapter.number, bool)):
        problems.append(f"chapter number must be an integer, not {chapter.number!r}")
    elif chapter.number in {int(p) for p in Pitfall}:
        problems.append(
            f"chapter {chapter.number} is the built-in {Pitfall(chapter.number).name}: "
            f"use Pitfall.{Pitfall(chapter.number).name}, or number the new chapter after "
            f"{max(Pitfall)}"
        )
    if not isinstance(chapter.title, Text):
        problems.append(f"chapter title must be a Text, not {chapter.title!r}")
    return problems


def _script_lesson_problems(cls: type[Scenario], ids: tuple[str, ...]) -> list[str]:
    lesson = getattr(cls, "scripts", None)
    if lesson is None:
        return []
    if not isinstance(lesson, ScriptLesson):
        return [f"scripts must be a ScriptLesson, not {lesson!r}"]
    problems: list[str] = []
    if not isinstance(lesson.text, Text):
        problems.append("scripts.text must be a Text(en, zh)")
    refs = lesson.compare
    if not isinstance(refs, tuple) or len(refs) > 2:
        return [*problems, "scripts.compare must be a tuple of at most two CardRef"]
    for ref in refs:
        if not isinstance(ref, CardRef):
            problems.append(f"scripts.compare holds {ref!r}, not a CardRef")
            continue
        if ref.variant not in ids:
            problems.append(f"scripts.compare names unknown variant {ref.variant!r}")
        if ref.number is not None and not (isinstance(ref.number, int) and ref.number >= 1):
            problems.append(f"scripts.compare card number must be 1 or more, not {ref.number!r}")
        for name, value in dict(ref.params).items():
            try:
                cls.param(name).check(value)
            except KeyError:
                problems.append(f"scripts.compare names unknown parameter {name!r}")
            except ValueError as exc:
                problems.append(f"scripts.compare: {exc}")
    return problems


def _comparison_problems(cls: type[Scenario], ids: tuple[str, ...]) -> list[str]:
    comparisons = getattr(cls, "comparisons", ())
    if not isinstance(comparisons, tuple):
        return ["comparisons must be a tuple of Comparison"]
    problems = []
    for c in comparisons:
        if not isinstance(c, Comparison):
            problems.append(f"comparisons holds {c!r}, not a Comparison")
            continue
        if not isinstance(c.measure, Measure):
            problems.append(f"comparison measure must be a Measure, not {c.measure!r}")
        unknown = [v for v in c.variants if v not in ids]
        if unknown:
            problems.append(f"comparison names unknown variants {unknown}")
        if not c.calls:
            problems.append("a comparison needs at least one call")
        for call in c.calls:
            for name, value in dict(call).items():
                try:
                    cls.param(name).check(value)
                except KeyError:
                    problems.append(f"comparison names unknown parameter {name!r}")
                except ValueError as exc:
                    problems.append(f"comparison: {exc}")
    return problems


def _exercise_problems(cls: type[Scenario]) -> list[str]:
    """The quiz runs exercises; here only their shape is checked (the core knows no quiz)."""
    exercises = cls.exercises
    if not isinstance(exercises, tuple | list):
        return [f"exercises must be a tuple, not {type(exercises).__name__}"]
    problems = []
    seen: set[str] = set()
    for position, exercise in enumerate(exercises):
        exercise_id = getattr(exercise, "id", None)
        if not (isinstance(exercise_id, str) and exercise_id):
            problems.append(f"exercise {position + 1} has no id: {exercise!r}")
            continue
        if exercise_id in seen:
            problems.append(f"exercise id {exercise_id!r} is declared twice")
        seen.add(exercise_id)
        if not (
            callable(getattr(exercise, "snippet", None))
            and callable(getattr(exercise, "settle", None))
        ):
            problems.append(f"exercise {exercise_id!r} needs a snippet and a settle function")
        if not all(isinstance(c, Text) for c in getattr(exercise, "code_comments", ())):
            problems.append(f"exercise {exercise_id!r}: code_comments must be Text(en, zh)")
        declared = getattr(exercise, "scenario", "")
        if declared and declared != cls.id:
            problems.append(
                f"exercise {exercise_id!r} names scenario {declared!r}, but {cls.id!r} declares it"
            )
    return problems


def _untranslated_exercise_comments(cls: type[Scenario]) -> list[str]:
    """A built-in exercise's snippet is shown in Chinese too: each comment needs its zh in
    the exercise's ``code_comments``, and each entry there a comment it translates."""
    problems = []
    for exercise in cls.exercises:
        try:
            shown = set(comment_texts(exercise.source))
        except (OSError, TypeError):  # no source to show: the quiz says so itself
            continue
        table = {c.en: c.zh for c in getattr(exercise, "code_comments", ())}
        problems += [
            f"exercise {exercise.id!r}: comment {text!r} has no Chinese in its code_comments"
            for text in sorted(shown)
            if not table.get(text, "").strip()
        ]
        problems += [
            f"exercise {exercise.id!r}: code_comments names {text!r}, not a comment of its code"
            for text in sorted(set(table) - shown)
        ]
    return problems
