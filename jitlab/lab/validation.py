"""Every check a scenario's spec passes, each problem told where the author wrote it.

:func:`validate` walks the spec systematically: first every attribute against its declared
type (:data:`SPEC_TYPES`, down through each dataclass's own fields: a ``Variant``'s title, a
``Param``'s bounds, an ``Exercise``'s options), then what the types cannot say (a variant
named by a comparison exists, a default sits in its range, the app's slider can show it).
A check that cannot be made because its part has the wrong type is skipped, so validation
never raises, whatever a plugin holds: a property that raises, an object whose ``==``
raises, a list where a tuple belongs.

Each problem names the plugin's file and line, its class and the attribute, down to the
element (``weak_types.py:41: WeakTypes.variants[1].title: …``): the types are walked by
:mod:`jitlab.lab.spec_types`, the lines found by :mod:`jitlab.lab.spec_lines`. Imports no JAX.
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from jitlab.lab.exercise import AnswerKind, Exercise, Option
from jitlab.lab.spec import (
    AutoplayStep,
    ChapterLike,
    Comparison,
    Lesson,
    Measure,
    Param,
    Pitfall,
    Scenario,
    ScriptLesson,
    Text,
    Variant,
    comment_texts,
    icon_file,
)
from jitlab.lab.spec_lines import SpecSource, descend
from jitlab.lab.spec_types import Key, PathStep, describe, shown, type_problems
from jitlab.lab.verdict import QuestionRun
from jitlab.records.paths import resource

__all__ = [
    "BUILTIN_MIN_EXERCISES",
    "BUILTIN_SCRIPTS_EN_CHARS",
    "BUILTIN_SCRIPTS_ZH_HAN",
    "REQUIRED",
    "SPEC_TYPES",
    "Problem",
    "problems",
    "validate",
]

REQUIRED = ("id", "chapter", "title", "lesson", "question", "variants")

# What each attribute of a scenario holds (the Scenario class declares them; this table adds
# the types the spec module cannot name without importing the quiz's and the verdict's).
# tests/lab/test_validation.py fails when Scenario declares an attribute missing here.
SPEC_TYPES: dict[str, Any] = {
    "id": str,
    "chapter": ChapterLike,
    "title": Text,
    "lesson": Lesson,
    "question": Text,
    "params": tuple[Param, ...],
    "variants": tuple[Variant, ...],
    "autoplay": tuple[AutoplayStep, ...],
    "icon": str,
    "exercises": tuple[Exercise, ...],
    "code_comments": tuple[Text, ...],
    "scripts": ScriptLesson | None,
    "comparisons": tuple[Comparison, ...],
    "question_run": QuestionRun | None,
    "also_judged": tuple[Comparison, ...],
}

# What a built-in owes beyond a plugin: a quiz chapter of its own, a lesson on the chef's
# scripts that reads as a paragraph in each language, and the code view filled.
BUILTIN_MIN_EXERCISES = 3
BUILTIN_SCRIPTS_EN_CHARS = 80  # English characters of ``scripts.text.en``, more than this
BUILTIN_SCRIPTS_ZH_HAN = 30  # Chinese characters of ``scripts.text.zh``, more than this
_HAN = re.compile(r"[\u4e00-\u9fff]")
# The app's integer slider holds a C int; beyond it Qt cannot show the value.
_SLIDER_LIMIT = 2**31 - 1


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a spec, and where it is written."""

    file: str  # the plugin's file (relative to the working folder when inside it)
    line: int | None
    owner: str  # the class
    path: tuple[PathStep, ...]  # the attribute, then indexes, fields and keys into it
    message: str

    @property
    def attribute(self) -> str:
        """``variants[1].title``: the path as the author wrote the spec."""
        out = ""
        for step in self.path:
            if isinstance(step, Key):
                out += f"[{step!r}]"
            elif isinstance(step, int):
                out += f"[{step}]"
            else:
                out += f".{step}" if out else step
        return out

    def __str__(self) -> str:
        where = (
            f"{self.file}:{self.line}: " if self.line else (f"{self.file}: " if self.file else "")
        )
        name = f"{self.owner}.{self.attribute}" if self.path else self.owner
        return f"{where}{name}: {self.message}"


def _raised(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def validate(cls: Any, builtin: bool = False) -> list[str]:
    """Problems with a plugin class, in words, each with its file, line, class and attribute
    (empty when it is well-formed). Never raises.

    ``builtin=True`` adds what a scenario shipped in ``scenarios/`` owes on top (see
    :data:`BUILTIN_MIN_EXERCISES`); the tests hold every built-in to it, so adding one is
    the one file."""
    return [str(p) for p in problems(cls, builtin)]


def problems(cls: Any, builtin: bool = False) -> list[Problem]:
    """:func:`validate`'s problems as data."""
    check = _Check(cls)
    try:
        check.plugin()
        if builtin and not check.found:
            check.builtin()
    except Exception as exc:  # a check this module did not foresee: said, never raised
        check.add((), f"could not be checked: {_raised(exc)}")
    return check.found


# -- the checks -----------------------------------------------------------------------------------
class _Check:
    """One class's validation: its problems, in the order an author reads the spec."""

    def __init__(self, cls: Any) -> None:
        self.cls = cls
        self.found: list[Problem] = []
        self.source = SpecSource(cls)
        self.typed: dict[str, bool] = {}  # attribute -> its type checked out
        self.wrong_items: dict[str, set[int]] = {}  # a tuple attribute -> its wrong elements
        self._ids: tuple[str, ...] | None = None

    @property
    def owner(self) -> str:
        return getattr(self.cls, "__qualname__", None) or repr(self.cls)

    def add(self, path: tuple[PathStep, ...], message: str) -> None:
        if path and path[0] == "chapter":  # said as the author named it
            path = (getattr(self.cls, "_chapter_named", "chapter"), *path[1:])
        file, line = self.source.locate(path)
        self.found.append(Problem(file, line, self.owner, path, message))

    def get(self, name: str) -> Any:
        """A class attribute, or the problem of reading it (a property may raise)."""
        try:
            return getattr(self.cls, name)
        except Exception as exc:
            self.add((name,), f"reading it raised {_raised(exc)}")
            raise _Unreadable from None

    # -- every plugin ---------------------------------------------------------------------
    def plugin(self) -> None:
        cls = self.cls
        if not (isinstance(cls, type) and issubclass(cls, Scenario)):
            name = getattr(cls, "__qualname__", None) or type(cls).__name__
            self.found.append(
                Problem(self.source.file(), None, str(name), (), "is not a Scenario subclass")
            )
            return
        missing = [name for name in REQUIRED if not _declares(cls, name)]
        for name in missing:
            if name == "chapter":
                self.add(
                    ("chapter",), "is missing: declare chapter = Pitfall.… or Chapter(8, Text(…))"
                )
            else:
                self.add((name,), f"is missing: declare {name} = {describe(SPEC_TYPES[name])}")
        self.misspelled()
        for name, hint in SPEC_TYPES.items():
            if name in missing:
                continue
            try:
                value = self.get(name)
            except _Unreadable:
                continue
            wrong = list(type_problems(value, hint, (name,)))
            for path, message in wrong:
                self.add(path, message)
            self.typed[name] = not wrong
            self.wrong_items[name] = {
                p[1] for p, _ in wrong if len(p) > 1 and isinstance(p[1], int)
            }
        self.methods()
        for check in (
            self.identity,
            self.chapter,
            self.texts,
            self.variants,
            self.params,
            self.autoplay,
            self.icon,
            self.exercises,
            self.scripts,
            self.comparisons,
            self.question_run,
        ):
            try:
                check()
            except _Unreadable:
                pass
            except Exception as exc:  # a value whose own code raises (==, hash, len…)
                self.add((_CHECKED[check.__name__],), f"checking it raised {_raised(exc)}")

    def ok(self, *names: str) -> bool:
        return all(self.typed.get(n, False) for n in names)

    def items(self, name: str) -> list[tuple[int, Any]]:
        """The elements of a tuple attribute that are of their declared type, with their
        index: each is checked further even when a sibling is wrong."""
        value = getattr(self.cls, name, ())
        if not isinstance(value, tuple) or name not in self.wrong_items:
            return []
        return [(i, v) for i, v in enumerate(value) if i not in self.wrong_items[name]]

    def misspelled(self) -> None:
        known = set(SPEC_TYPES) | {n for n in dir(Scenario) if not n.startswith("_")}
        known.add("pitfall")
        for name in vars(self.cls):
            if name.startswith("_") or name in known:
                continue
            close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.8)
            if close:
                self.add((name,), f"is not part of a scenario: did you mean {close[0]}?")

    def methods(self) -> None:
        """jitlab's methods left methods: ``setup`` and the rest a scenario may write, and the
        helpers the faces call (``comparison = Comparison(…)`` for ``comparisons`` hides
        ``Scenario.comparison``, which every verdict asks)."""
        cls = self.cls
        for name in [n for n in vars(Scenario) if not n.startswith("_")]:
            if not callable(getattr(Scenario, name)) or name not in vars(cls):
                continue
            value = vars(cls)[name]
            if not callable(value) and not isinstance(value, staticmethod | classmethod):
                close = difflib.get_close_matches(name, list(SPEC_TYPES), n=1, cutoff=0.8)
                meant = f": did you mean {close[0]}?" if close else ""
                self.add((name,), f"is jitlab's method, not {shown(value)}{meant}")
        setup = getattr(cls, "setup", None)
        if setup is Scenario.setup:
            self.add(("setup",), "is not written: def setup(self, lab, variant) returns a step")
            return
        if not callable(setup):
            return  # said above
        try:
            inspect.signature(setup).bind(None, None, None)
        except TypeError:
            self.add(("setup",), "must take (self, lab, variant)")
        except ValueError:  # no signature to read (a builtin): it is called and said then
            pass

    def identity(self) -> None:
        if not self.ok("id"):
            return
        sid = self.cls.id
        if not sid.strip():
            self.add(("id",), "must not be empty")
        elif not sid.isprintable() or any(c.isspace() for c in sid):
            self.add(("id",), f"must be one word the command line can take, not {sid!r}")

    def chapter(self) -> None:
        if not self.ok("chapter"):
            return
        cls = self.cls
        chapter, pitfall = cls.chapter, getattr(cls, "pitfall", cls.chapter)
        name = getattr(cls, "_chapter_named", "chapter")
        if chapter is not pitfall:
            self.add((name,), "chapter and pitfall are two names of one attribute: declare one")
            return
        if isinstance(chapter, Pitfall):
            return
        if chapter.number in {int(p) for p in Pitfall}:
            built = Pitfall(chapter.number).name
            self.add(
                (name, "number"),
                f"chapter {chapter.number} is the built-in {built}: use Pitfall.{built}, or "
                f"number the new chapter after {int(max(Pitfall))}",
            )
        elif chapter.number < 1:
            self.add((name, "number"), f"must be after {int(max(Pitfall))}, not {chapter.number}")
        self.blank(chapter.title, (name, "title"))

    def blank(self, text: Text, path: tuple[PathStep, ...]) -> None:
        if not (text.en.strip() or text.zh.strip()):
            self.add(path, "is empty in both languages: the app would show nothing")

    def texts(self) -> None:
        for name in ("title", "question"):
            if self.ok(name):
                self.blank(getattr(self.cls, name), (name,))
        if self.ok("lesson"):
            for f in dataclasses.fields(Lesson):
                self.blank(getattr(self.cls.lesson, f.name), ("lesson", f.name))
        for i, comment in self.items("code_comments"):
            if not comment.en.strip():
                self.add(("code_comments", i), "names no comment: its en is empty")

    def ids(self) -> tuple[str, ...]:
        if self._ids is None:
            self._ids = tuple(v.id for v in self.cls.variants) if self.ok("variants") else ()
        return self._ids

    def variants(self) -> None:
        seen: set[str] = set()
        for i, variant in self.items("variants"):
            if variant.id in seen:
                self.add(("variants", i, "id"), f"{variant.id!r} is declared twice")
            seen.add(variant.id)
            if not variant.id.strip():
                self.add(("variants", i, "id"), "must not be empty")
            self.blank(variant.title, ("variants", i, "title"))
        if self.ok("variants") and ("pitfall" not in seen or "fix" not in seen):
            self.add(("variants",), "must include 'pitfall' and 'fix'")

    def params(self) -> None:
        seen: set[str] = set()
        ids = set(self.ids())
        for i, p in self.items("params"):
            at: tuple[PathStep, ...] = ("params", i)
            if p.name in seen:
                self.add((*at, "name"), f"{p.name!r} is declared twice")
            seen.add(p.name)
            if not p.name.isidentifier():
                self.add((*at, "name"), f"must be a Python name (n, batch_size), not {p.name!r}")
            self.blank(p.label, (*at, "label"))
            for message, field in _param_problems(p):
                self.add((*at, field), message)
            unknown = sorted(set(p.variants) - ids) if ids else []
            if unknown:
                self.add((*at, "variants"), f"parameter {p.name} names unknown variants {unknown}")

    def values(self, values: Mapping[str, Any], at: tuple[PathStep, ...], what: str) -> None:
        """Parameter values a spec gives (a demo beat, a comparison's call): known names, each
        value of its parameter's type and in its range."""
        if not self.ok("params"):
            return
        for name, value in values.items():
            try:
                param = self.cls.param(name)
            except KeyError:
                self.add((*at, Key(name)), f"{what} names unknown parameter {name!r}")
                continue
            problem = _value_problem(param, value)
            if problem:
                self.add((*at, Key(name)), f"{what}: {problem}")

    def variant_named(self, variant: Any, at: tuple[PathStep, ...], what: str) -> None:
        ids = self.ids()
        if ids and variant not in ids:
            self.add(at, f"{what} names unknown variant {variant!r} (variants: {', '.join(ids)})")

    def autoplay(self) -> None:
        for i, beat in self.items("autoplay"):
            self.values(beat.params, ("autoplay", i, "params"), "autoplay")
            if beat.variant is not None:
                self.variant_named(beat.variant, ("autoplay", i, "variant"), "autoplay")

    def icon(self) -> None:
        if not self.ok("icon"):
            return
        name = self.cls.icon or "pot"
        if resource("icons", f"{name}.svg").is_file():
            return
        if icon_file(self.cls) == resource("icons", "pot.svg"):
            shipped = sorted(p.stem for p in resource("icons").glob("*.svg"))
            self.add(
                ("icon",),
                f"{name!r} is neither an icon of jitlab ({', '.join(shipped[:8])}, …) nor an "
                "image file next to the scenario's file",
            )

    def exercises(self) -> None:
        seen: set[str] = set()
        for i, exercise in self.items("exercises"):
            at: tuple[PathStep, ...] = ("exercises", i)
            if not exercise.id.strip():
                self.add((*at, "id"), "must not be empty")
            if exercise.id in seen:
                self.add((*at, "id"), f"exercise id {exercise.id!r} is declared twice")
            seen.add(exercise.id)
            self.variant_named(exercise.variant, (*at, "variant"), f"exercise {exercise.id!r}")
            if exercise.min_devices < 1:
                self.add((*at, "min_devices"), "must be 1 or more")
            if exercise.scenario and self.ok("id") and exercise.scenario != self.cls.id:
                self.add(
                    (*at, "scenario"),
                    f"exercise {exercise.id!r} names scenario {exercise.scenario!r}, but "
                    f"{self.cls.id!r} declares it",
                )
            for message, field in _exercise_problems(exercise):
                self.add((*at, field), message)

    def scripts(self) -> None:
        lesson = self.cls.scripts if self.ok("scripts") else None
        if lesson is None:
            return
        if len(lesson.compare) > 2:
            self.add(("scripts", "compare"), "scripts.compare names at most two CardRef")
        for i, ref in enumerate(lesson.compare):
            at: tuple[PathStep, ...] = ("scripts", "compare", i)
            self.variant_named(ref.variant, (*at, "variant"), "scripts.compare")
            if ref.number is not None and ref.number < 1:
                self.add((*at, "number"), f"card number must be 1 or more, not {ref.number!r}")
            self.values(ref.params, (*at, "params"), "scripts.compare")

    def comparisons(self) -> None:
        for name in ("comparisons", "also_judged"):
            for i, c in self.items(name):
                at: tuple[PathStep, ...] = (name, i)
                for field in ("pitfall", "fix"):
                    self.variant_named(getattr(c, field), (*at, field), "comparison")
                if not c.calls:
                    self.add((*at, "calls"), "a comparison needs at least one call")
                for j, call in enumerate(c.calls):
                    self.values(call, (*at, "calls", j), "comparison")
                if c.facts and c.measure not in (Measure.OUTPUT, Measure.PROGRAM_SIZE):
                    self.add(
                        (*at, "facts"),
                        f"only OUTPUT and PROGRAM_SIZE read facts, not {c.measure.name}",
                    )

    def question_run(self) -> None:
        answer = self.cls.question_run if self.ok("question_run") else None
        if answer is None:
            return
        self.variant_named(answer.variant, ("question_run", "variant"), "question_run")
        if not answer.calls:
            self.add(("question_run", "calls"), "the question's run needs at least one call")
        for j, call in enumerate(answer.calls):
            self.values(call, ("question_run", "calls", j), "question_run")

    # -- a built-in, on top ---------------------------------------------------------------
    def builtin(self) -> None:
        cls = self.cls
        count = len(cls.exercises)
        if count < BUILTIN_MIN_EXERCISES:
            self.add(
                ("exercises",),
                f"a built-in declares at least {BUILTIN_MIN_EXERCISES} exercises; it has {count}",
            )
        texts = [("title",), ("question",)] + [
            ("lesson", f.name) for f in dataclasses.fields(Lesson)
        ]
        for path in texts:
            text = descend(cls, path[0]) if len(path) == 1 else descend(cls.lesson, path[1])
            if not (text.en.strip() and text.zh.strip()):
                self.add(
                    path,
                    f"a built-in's title, question and lesson say it in both languages: {text!r}",
                )
                break
        lesson = cls.scripts
        if lesson is None:
            self.add(
                ("scripts",),
                "a built-in declares scripts = ScriptLesson(Text(en, zh), (CardRef, ...))",
            )
        else:
            if len(lesson.text.en) <= BUILTIN_SCRIPTS_EN_CHARS or _HAN.search(lesson.text.en):
                self.add(
                    ("scripts", "text", "en"),
                    f"scripts.text.en must be English, over {BUILTIN_SCRIPTS_EN_CHARS} characters",
                )
            if len(_HAN.findall(lesson.text.zh)) <= BUILTIN_SCRIPTS_ZH_HAN:
                self.add(
                    ("scripts", "text", "zh"),
                    f"scripts.text.zh must hold more than {BUILTIN_SCRIPTS_ZH_HAN} Chinese "
                    "characters",
                )
            if not lesson.compare:
                self.add(
                    ("scripts", "compare"), "scripts.compare must name one or two cards (CardRef)"
                )
        self.exercise_comments()
        for i, exercise in enumerate(cls.exercises):
            if exercise.expected is None:
                self.add(
                    ("exercises", i, "expected"),
                    f"exercise {exercise.id!r}: a built-in writes the answer it expects "
                    "(expected=…), which the tests and jitlab check compare with the run",
                )
        self.code_view()

    def exercise_comments(self) -> None:
        """A built-in exercise's snippet is shown in Chinese too: each comment needs its zh
        in the exercise's ``code_comments``, and each entry there a comment it translates."""
        for i, exercise in enumerate(self.cls.exercises):
            try:
                written = set(comment_texts(exercise.source))
            except (OSError, TypeError):  # no source to show: the quiz says so itself
                continue
            table = {c.en: c.zh for c in exercise.code_comments}
            for text in sorted(written):
                if not table.get(text, "").strip():
                    self.add(
                        ("exercises", i, "code_comments"),
                        f"exercise {exercise.id!r}: comment {text!r} has no Chinese in its "
                        "code_comments",
                    )
            for text in sorted(set(table) - written):
                self.add(
                    ("exercises", i, "code_comments"),
                    f"exercise {exercise.id!r}: code_comments names {text!r}, not a comment of "
                    "its code",
                )

    def code_view(self) -> None:
        cls = self.cls
        if cls.code_objects is Scenario.code_objects:
            self.add(
                ("code_objects",),
                "code_objects(variant) is not implemented: the code view would be empty",
            )
            return
        for variant in cls.variant_ids():
            try:
                source = cls().source(variant)
            except Exception as exc:
                self.add(("code_objects",), f"code_objects({variant!r}) has no source: {exc}")
                continue
            if "def " not in source:
                self.add(
                    ("code_objects",),
                    f"code_objects({variant!r}) shows no function of the code that runs",
                )


# Which attribute each check reads (what a check that raised is said of).
_CHECKED = {
    "identity": "id",
    "chapter": "chapter",
    "texts": "title",
    "variants": "variants",
    "params": "params",
    "autoplay": "autoplay",
    "icon": "icon",
    "exercises": "exercises",
    "scripts": "scripts",
    "comparisons": "comparisons",
    "question_run": "question_run",
}


class _Unreadable(Exception):
    """An attribute raised when read (already said)."""


def _declares(cls: type, name: str) -> bool:
    """Whether the class (or a base below Scenario) gives ``name`` a value."""
    own = [k for k in cls.__mro__ if k is not Scenario and k is not object]
    if name == "chapter":
        return any("chapter" in vars(k) or "pitfall" in vars(k) for k in own)
    return any(name in vars(k) for k in own)


def _param_problems(p: Param) -> Iterator[tuple[str, str]]:
    """What a well-typed parameter still gets wrong: its range, its choices, its slider."""
    kind = type(p.default)
    numeric = kind in (int, float)
    for field in ("minimum", "maximum"):
        bound = getattr(p, field)
        if bound is None:
            if numeric and not p.choices:
                yield f"{p.name}: the app's slider needs a {field}", field
            continue
        if not numeric:
            yield f"{p.name}: a {kind.__name__} parameter has no {field}", field
        elif not math.isfinite(bound):
            yield f"{p.name}: {field} must be a finite number, not {bound!r}", field
        elif kind is int and not isinstance(bound, int):
            yield (
                f"{p.name}: an integer parameter's {field} is a whole number, not {bound!r}",
                field,
            )
        elif kind is int and not -_SLIDER_LIMIT - 1 <= bound <= _SLIDER_LIMIT:
            yield f"{p.name}: {field} {bound} is beyond what the app's slider holds (±2³¹)", field
    if numeric and p.minimum is not None and p.maximum is not None and p.minimum > p.maximum:
        yield f"{p.name}: minimum {p.minimum} is above maximum {p.maximum}", "minimum"
    if p.log_scale and not (kind is int and p.minimum is not None and p.minimum >= 1):
        yield f"{p.name}: log_scale is for an integer parameter with minimum 1 or more", "log_scale"
    if p.choices:
        if kind is not str:
            yield f"{p.name}: choices are strings, and the default must be one of them", "choices"
        if len(set(p.choices)) != len(p.choices):
            yield f"{p.name}: a choice is listed twice", "choices"
    if p.choice_labels and len(p.choice_labels) != len(p.choices):
        yield f"parameter {p.name}: choice_labels needs one Text per choice", "choice_labels"
    if len(set(p.variants)) != len(p.variants):
        yield f"{p.name}: a variant is listed twice", "variants"
    problem = _value_problem(p, p.default)
    if problem:
        yield f"default out of range: {problem}", "default"


def _value_problem(p: Param, value: Any) -> str:
    """Why ``value`` cannot be given to parameter ``p`` ("" when it can)."""
    kind = type(p.default)
    if kind is float:
        fits = isinstance(value, int | float) and not isinstance(value, bool)
    else:
        fits = type(value) is kind
    if not fits:
        return f"{p.name} takes {describe(kind)}, not {shown(value)}"
    try:
        p.check(value)
    except ValueError as exc:
        return str(exc)
    except TypeError:  # a bound of another type: said of the bound itself
        return ""
    return ""


def _exercise_problems(exercise: Exercise) -> Iterator[tuple[str, str]]:
    ids = [o.id for o in exercise.options]
    if len(set(ids)) != len(ids):
        yield f"exercise {exercise.id!r}: an option id is listed twice", "options"
    if exercise.kind is AnswerKind.CHOICE and len(exercise.options) < 2:
        yield f"exercise {exercise.id!r}: a CHOICE exercise offers at least two options", "options"
    if exercise.kind is AnswerKind.NUMBER and exercise.options:
        yield f"exercise {exercise.id!r}: a NUMBER exercise takes a number, not options", "options"
    for j, option in enumerate(exercise.options):
        if not isinstance(option, Option) or not option.id.strip():
            yield f"exercise {exercise.id!r}: option {j + 1} has no id", "options"
    for name in ("snippet", "settle"):
        try:
            inspect.signature(getattr(exercise, name)).bind(None)
        except TypeError:
            yield f"exercise {exercise.id!r}: {name} must take one argument", name
        except ValueError:
            pass
    expected = exercise.expected
    if expected is not None:
        if exercise.kind is AnswerKind.NUMBER:
            if isinstance(expected, bool) or not isinstance(expected, int) or expected < 0:
                yield (
                    f"exercise {exercise.id!r}: expects a whole number ≥ 0, not {expected!r}",
                    "expected",
                )
        elif not isinstance(expected, str):
            yield (
                f"exercise {exercise.id!r}: expects an option id or an error name, not "
                f"{expected!r}",
                "expected",
            )
        elif exercise.kind is AnswerKind.CHOICE and expected not in ids:
            yield (
                f"exercise {exercise.id!r}: expects {expected!r}, which is none of its "
                f"options {ids}",
                "expected",
            )
