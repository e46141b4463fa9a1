"""Fault table, plugins: whatever a plugin's spec holds, ``validate`` says what is wrong with
it, and never raises; and every face (``jitlab list``, the quiz, the notebook, the app's
scenario list and lesson controls) shows the plugin, broken or not, and goes on.

Specs are generated: a well-formed plugin with one to three of its parts (an attribute, or a
field deep inside one: a variant's title, a parameter's bound, an exercise's option, a
comparison's call) replaced by a value of another kind, drawn by hypothesis.
"""

from __future__ import annotations

import dataclasses
import io
import sys
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jitlab.lab import discovery
from jitlab.lab.discovery import PluginEntry, discover
from jitlab.lab.scenario import (
    AnswerKind,
    AutoplayStep,
    CardRef,
    Chapter,
    Comparison,
    Counted,
    Exercise,
    Lesson,
    Measure,
    Option,
    Param,
    Pitfall,
    QuestionRun,
    Scenario,
    ScriptLesson,
    Text,
    Variant,
    compile_answer,
    validate,
)
from jitlab.lab.validation import SPEC_TYPES, problems

T = Text("words", "文字")


def _snippet(lab: Any) -> None:
    lab.jit(lambda x: x + 1)(1.0)


EXERCISE = Exercise(
    id="generated-exercise",
    title=T,
    question=T,
    explanation=T,
    kind=AnswerKind.CHOICE,
    snippet=_snippet,
    settle=compile_answer,
    options=(Option("a", T), Option("b", T)),
    variant="fix",
    expected="a",
)

GOOD: dict[str, Any] = {
    "id": "generated",
    "chapter": Chapter(9, Text("9 · Generated", "9 · 生成的")),
    "title": T,
    "question": T,
    "lesson": Lesson(T, T, T, T),
    "params": (
        Param("n", 4, T, T, minimum=1, maximum=64, log_scale=True),
        Param("scale", 1.5, T, T, minimum=0.0, maximum=3.0, variants=("fix",)),
        Param("mode", "a", T, T, choices=("a", "b"), choice_labels=(T, T)),
        Param("flag", False, T, T),
    ),
    "variants": (Variant("pitfall", T, T), Variant("fix", T, T), Variant("other", T, T)),
    "autoplay": (AutoplayStep({"n": 8}, "pitfall", T), AutoplayStep({"scale": 2.0}, "fix")),
    "icon": "dog",
    "exercises": (EXERCISE,),
    "code_comments": (T,),
    "scripts": ScriptLesson(T, (CardRef("fix", {"n": 4}), CardRef("pitfall", number=1))),
    "comparisons": (Comparison(Measure.COMPILES, ({"n": 2}, {"n": 4}), note=T),),
    "question_run": QuestionRun("fix", ({"n": 2},), Counted.COMPILES),
    "also_judged": (Comparison(Measure.OUTPUT, ({"n": 2},), "other", "fix", facts=("a", "b")),),
}


def _setup(self: Any, lab: Any, variant: str) -> Any:
    probe = lab.probe(lambda x: x + 1)
    return lambda values: probe(1.0)


def make(attributes: dict[str, Any]) -> type[Scenario]:
    cls = type("Generated", (Scenario,), {**attributes, "setup": _setup})
    cls.__module__ = "generated_plugin"  # a class with no file: it is said without a line
    return cls


class Hostile:
    """Raises on every question a face might ask of it."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        raise RuntimeError("hash")

    def __len__(self) -> int:
        raise RuntimeError("len")

    def __iter__(self) -> Any:
        raise RuntimeError("iter")

    def __str__(self) -> str:
        raise RuntimeError("str")

    def __repr__(self) -> str:
        raise RuntimeError("repr")

    def __bool__(self) -> bool:
        raise RuntimeError("bool")


def test_the_generated_plugin_is_well_formed() -> None:
    assert validate(make(GOOD)) == []


@pytest.mark.parametrize("scenario_id", [Hostile(), 3, None, "", "two words"])
def test_an_id_that_is_no_name_is_listed_under_the_plugins_own(scenario_id: Any) -> None:
    (entry,) = discovery._from_object(make({**GOOD, "id": scenario_id}), "mine", "entry-point:mine")
    assert not entry.ok and entry.name in ("mine", "two words")
    assert "Generated.id:" in entry.error


# -- what can be put where ------------------------------------------------------------------------
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.just(""),
    st.just("pitfall"),
    st.just(T),
    st.builds(Text, st.integers(), st.none()),
    st.just(Text("", "")),
    st.just(Variant("pitfall", T, T)),
    st.just(Param("n", 1, T, T, minimum=0, maximum=2)),
    st.just(Pitfall.SHARDING),
    st.just(Chapter(3, T)),
    st.just(Measure.OUTPUT),
    st.just(Counted.PRINTED),
    st.just(EXERCISE),
    st.just(Option("a", T)),
    st.just(CardRef("nope")),
    st.just(len),
    st.just(object()),
    st.builds(Hostile),
)
VALUES = st.one_of(
    LEAVES,
    st.lists(LEAVES, max_size=3),
    st.lists(LEAVES, max_size=3).map(tuple),
    st.dictionaries(st.one_of(st.text(max_size=4), st.integers()), LEAVES, max_size=3),
)


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every part of a spec value that a generated one may replace, by its path."""
    out = [path] if path else []
    if isinstance(value, tuple):
        for i, item in enumerate(value):
            out += _places(item, (*path, i))
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            out += _places(getattr(value, f.name), (*path, f.name))
    elif isinstance(value, dict):
        for key, item in value.items():
            out += _places(item, (*path, key))
    return out


PLACES = sorted((p for name, value in GOOD.items() for p in _places(value, (name,))), key=repr) + [
    (name,) for name in ("setup", "facts", "code_objects", "source", "chapter", "pitfall")
]


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]  # an earlier replacement may have changed the shape
    if isinstance(value, tuple) and isinstance(head, int) and head < len(value):
        return tuple(_replaced(v, rest, new) if i == head else v for i, v in enumerate(value))
    if isinstance(value, dict):
        return {**value, head: _replaced(value.get(head), rest, new)}
    if dataclasses.is_dataclass(value) and isinstance(head, str) and hasattr(value, head):
        return dataclasses.replace(value, **{head: _replaced(getattr(value, head), rest, new)})
    return new


@st.composite
def broken_specs(draw: Callable[..., Any]) -> dict[str, Any]:
    spec = dict(GOOD)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(PLACES))
        spec[path[0]] = _replaced(spec.get(path[0]), path[1:], draw(VALUES))
    if draw(st.booleans()):  # a required attribute left out
        spec.pop(draw(st.sampled_from(sorted(SPEC_TYPES))), None)
    return spec


# Well-typed specs with random contents: any text (markup, control characters, empty), any
# ids, ranges and defaults, references that may or may not name a variant or a parameter.
WORDS = st.text(max_size=12)
TEXTS = st.builds(Text, st.text(min_size=1, max_size=40), st.text(max_size=40))
IDS = st.one_of(st.sampled_from(["pitfall", "fix", "other"]), WORDS)
NUMBERS = st.one_of(
    st.integers(min_value=-(2**33), max_value=2**33),
    st.floats(allow_nan=True, allow_infinity=True),
)


@st.composite
def params(draw: Callable[..., Any]) -> Param:
    name = draw(st.one_of(st.sampled_from(["n", "scale", "mode"]), WORDS))
    kind = draw(st.sampled_from(["int", "float", "str", "bool"]))
    label, help_ = draw(TEXTS), draw(TEXTS)
    variants = tuple(draw(st.lists(IDS, max_size=2)))
    if kind == "int":
        low, high = draw(st.integers(-(2**33), 2**33)), draw(st.integers(-(2**33), 2**33))
        default = draw(st.integers(-(2**33), 2**33))
        log = draw(st.booleans())
        return Param(name, default, label, help_, low, high, log_scale=log, variants=variants)
    if kind == "float":
        low, high, default = draw(NUMBERS), draw(NUMBERS), draw(st.floats(allow_nan=True))
        return Param(name, default, label, help_, low, high, variants=variants)
    if kind == "str":
        choices = tuple(draw(st.lists(WORDS, max_size=3)))
        labels = tuple(draw(st.lists(TEXTS, max_size=3)))
        default = draw(st.one_of(WORDS, st.sampled_from(choices or ("",))))
        return Param(name, default, label, help_, choices=choices, choice_labels=labels)
    return Param(name, draw(st.booleans()), label, help_, variants=variants)


CALLS = st.dictionaries(  # parameter values of any kind, under any name
    st.one_of(st.sampled_from(["n", "scale", "mode"]), WORDS),
    st.one_of(NUMBERS, WORDS, st.booleans()),
    max_size=2,
)


@st.composite
def typed_specs(draw: Callable[..., Any], slips: bool = True) -> dict[str, Any]:
    """Well-formed specs with random contents (any text, ids, ranges, chapters); with
    ``slips``, now and then an id, chapter, icon or parameter that does not fit."""
    spec = dict(GOOD)
    spec["id"] = draw(st.one_of(st.just("typed"), WORDS)) if slips else "typed"
    chapters = [st.sampled_from(list(Pitfall)), st.builds(Chapter, st.integers(8, 99), TEXTS)]
    if slips:
        chapters.append(st.builds(Chapter, st.integers(-3, 7), TEXTS))
    spec["chapter"] = draw(st.one_of(*chapters))
    for name in ("title", "question"):
        spec[name] = draw(TEXTS)
    spec["lesson"] = Lesson(draw(TEXTS), draw(TEXTS), draw(TEXTS), draw(TEXTS))
    low = draw(st.integers(-(2**31), 2**31 - 2))
    high = draw(st.integers(low, 2**31 - 1))
    n = Param("n", draw(st.integers(low, high)), draw(TEXTS), draw(TEXTS), low, high)
    lo = draw(st.floats(-1e300, 1e300))
    hi = draw(st.floats(lo, 1e300))
    scale = Param("scale", draw(st.floats(lo, hi)), draw(TEXTS), draw(TEXTS), lo, hi)
    choices = tuple(draw(st.lists(WORDS, min_size=1, max_size=3, unique=True)))
    labels = tuple(draw(TEXTS) for _ in choices)
    mode = Param(
        "mode", choices[0], draw(TEXTS), draw(TEXTS), choices=choices, choice_labels=labels
    )
    extra = (draw(params()),) if slips and draw(st.booleans()) else ()
    spec["params"] = (n, scale, mode, *extra)
    more = draw(st.lists(st.text(min_size=1, max_size=12), max_size=2, unique=True))
    more = [m for m in more if m not in ("pitfall", "fix", "other")]
    spec["variants"] = tuple(
        Variant(i, draw(TEXTS), draw(TEXTS)) for i in ("pitfall", "fix", "other", *more)
    )
    beats = st.builds(
        AutoplayStep,
        st.fixed_dictionaries(
            {}, optional={"n": st.integers(low, high), "mode": st.sampled_from(choices)}
        ),
        st.one_of(st.none(), st.sampled_from(["pitfall", "fix", *more])),
        st.one_of(st.none(), TEXTS),
    )
    spec["autoplay"] = tuple(draw(st.lists(beats, max_size=3)))
    if slips and draw(st.booleans()):
        spec["autoplay"] += tuple(AutoplayStep(c) for c in draw(st.lists(CALLS, max_size=1)))
    icons = ["dog", "pot", ""] + (["no-such", "/nowhere/x.svg"] if slips else [])
    spec["icon"] = draw(st.sampled_from(icons))
    calls = st.lists(
        st.fixed_dictionaries({}, optional={"n": st.integers(low, high)}), min_size=1, max_size=3
    ).map(tuple)
    spec["comparisons"] = tuple(
        Comparison(measure, c, "pitfall", "fix", draw(st.one_of(st.none(), TEXTS)))
        for measure, c in draw(
            st.lists(st.tuples(st.sampled_from(list(Measure)), calls), max_size=2)
        )
    )
    spec["scripts"] = ScriptLesson(draw(TEXTS), (CardRef("fix", {"n": n.default}),))
    spec["question_run"] = draw(
        st.one_of(
            st.none(),
            st.builds(QuestionRun, st.just("fix"), calls, st.sampled_from(list(Counted))),
        )
    )
    spec["also_judged"] = ()
    spec["code_comments"] = tuple(draw(st.lists(TEXTS, max_size=2)))
    return spec


# -- the faces ------------------------------------------------------------------------------------
BUILTINS = discover(entry_points=False)


def faces(entries: list[PluginEntry], qtbot: Any) -> None:
    """Show ``entries`` on every face that lists scenarios; each must go on."""
    from PySide6.QtWidgets import QTreeWidget

    from jitlab.cli import list as list_command
    from jitlab.cli.notebook import _scenario_or_fail
    from jitlab.gui.lesson.scenario_list import fill
    from jitlab.quiz.exercises import build

    original = discovery.discover
    discovery.discover = lambda *a, **k: entries  # type: ignore[assignment]
    try:
        with redirect_stdout(io.StringIO()) as out:
            assert list_command.run() == 0
        generated = entries[-1]
        if generated.ok:  # `jitlab notebook ID` finds it…
            assert _scenario_or_fail(generated.name) is generated.scenario
        else:  # …or says, in one line and exit status 2, that it is broken and why
            with redirect_stderr(io.StringIO()) as err, pytest.raises(SystemExit) as ended:
                _scenario_or_fail(generated.name)
            assert ended.value.code == 2 and "broken" in err.getvalue()
    finally:
        discovery.discover = original
    for entry in entries:
        assert entry.name in out.getvalue().replace("\n", "") or not entry.name.isprintable()
    build(entries)
    tree = QTreeWidget()
    qtbot.addWidget(tree)
    for lang in ("en", "zh"):
        fill(tree, entries, None, lang)
    listed = tree.topLevelItemCount()
    assert listed >= 3  # chapters, broken plugins and the exercises' entry: never cut short


@settings(
    max_examples=150,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(spec=st.one_of(broken_specs(), typed_specs(), typed_specs(slips=False)))
def test_validate_never_raises_and_every_face_survives(spec: dict[str, Any], qtbot) -> None:
    cls = make(spec)
    found = problems(cls)  # never raises, whatever the spec holds
    said = validate(cls)
    assert said == [str(p) for p in found]
    for problem in found:
        assert str(problem).startswith("Generated")  # the class, then the attribute
    (entry,) = discovery._from_object(cls, "generated", "entry-point:generated")
    assert entry.ok == (not said)
    if said:
        assert entry.error == "; ".join(said)
    faces([*BUILTINS, entry], qtbot)
    if entry.ok:
        _well_formed_faces(cls, qtbot)


def _well_formed_faces(cls: type[Scenario], qtbot: Any) -> None:
    """A spec that passes validate opens: its lesson's controls, its notebook, its verdict's
    comparison."""
    from jitlab.gui.lesson.controls import ParamControls, RunControls
    from jitlab.notebook.lesson import build

    controls = ParamControls()
    qtbot.addWidget(controls)
    controls.build(cls.params, cls.defaults())
    for beat in cls.autoplay:
        controls.set_values(dict(beat.params), emit=False)
    for variant in cls.variant_ids():
        controls.show_for(variant)
    run_controls = RunControls()
    qtbot.addWidget(run_controls)
    run_controls.set_variants(cls.variants, "pitfall")
    for lang in ("en", "zh"):
        build(cls, lang)
    cls.comparison()


@pytest.mark.parametrize(
    ("attributes", "attribute", "said"),
    [
        ({"title": "Weak types"}, "title", "must be Text(en, zh), not the plain str"),
        ({"question": "How many?"}, "question", "Text('How many?', '…')"),
        ({"lesson": Lesson("a", T, T, T)}, "lesson.what", "must be Text(en, zh)"),
        ({"variants": ("pitfall", "fix")}, "variants[0]", "must be Variant(id, title, summary)"),
        ({"variants": [Variant("pitfall", T, T), Variant("fix", T, T)]}, "variants", "round"),
        ({"params": GOOD["params"][0]}, "params", "a tuple of one needs its comma"),
        (
            {"params": (Param("n", 4, T, T, minimum=1),)},
            "params[0].maximum",
            "the app's slider needs a maximum",
        ),
        (
            {"params": (Param("n", 4.0, T, T, minimum=1, maximum=9, log_scale=True),)},
            "params[0].log_scale",
            "log_scale is for an integer parameter",
        ),
        ({"autoplay": (AutoplayStep({"n": 2.5}),)}, "autoplay[0].params['n']", "n takes"),
        ({"chapter": Chapter(2, T)}, "chapter.number", "use Pitfall.STATIC_ARGS"),
        ({"icon": "no-such-icon"}, "icon", "neither an icon of jitlab"),
        ({"exercise": (EXERCISE,)}, "exercise", "did you mean exercises?"),
        (
            {"exercises": (dataclasses.replace(EXERCISE, expected="c"),)},
            "exercises[0].expected",
            "none of its options",
        ),
        (
            {"question_run": QuestionRun("nope", ({"n": 2},))},
            "question_run.variant",
            "unknown variant 'nope'",
        ),
    ],
)
def test_each_mistake_names_its_attribute_in_an_authors_words(
    attributes: dict[str, Any], attribute: str, said: str
) -> None:
    found = problems(make({**GOOD, **attributes}))
    assert any(p.attribute == attribute and said in p.message for p in found), [
        str(p) for p in found
    ]


def test_a_plugins_mistake_names_its_file_and_line(tmp_path) -> None:
    """Written in a file, each problem points at the line of the part that is wrong."""
    source = tmp_path / "weak_plugin.py"
    source.write_text(
        "from jitlab.lab.scenario import Lesson, Pitfall, Scenario, Text, Variant\n"
        "T = Text('x', 'x')\n"
        "class Weak(Scenario):\n"
        "    id = 'weak'\n"
        "    pitfall = Pitfall.SIDE_EFFECTS\n"
        "    title = 'Weak types'\n"
        "    question = T\n"
        "    lesson = Lesson(T, T, T, T)\n"
        "    variants = (\n"
        "        Variant('pitfall', T, T),\n"
        "        Variant('fix', 'the fix', T),\n"
        "    )\n"
        "    def setup(self, lab, variant):\n"
        "        return lambda values: None\n",
        encoding="utf-8",
    )
    sys.path.insert(0, str(tmp_path))
    try:
        import weak_plugin  # type: ignore[import-not-found]

        said = validate(weak_plugin.Weak)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("weak_plugin", None)
    assert [s.split(": ", 1)[0] for s in said] == [
        f"{source}:6",
        f"{source}:11",
    ] or [s.split(": ", 1)[0].rsplit("/", 1)[-1] for s in said] == [
        "weak_plugin.py:6",
        "weak_plugin.py:11",
    ], said
    assert "Weak.title: must be Text(en, zh)" in said[0]
    assert "Weak.variants[1].title: must be Text(en, zh), not the plain str 'the fix'" in said[1]
