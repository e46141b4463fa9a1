"""What a built-in owes beyond a plugin lives in the spec's validation: ``validate(cls,
builtin=True)`` names each missing piece, and a plugin is not held to it."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from jitlab.lab.discovery import scenarios
from jitlab.lab.scenario import CardRef, Scenario, ScriptLesson, Text, validate

BUILT_IN = scenarios()["control-flow"]
STATIC_IF = next(e for e in BUILT_IN.exercises if e.id == "static-if")  # one comment
LONG_EN = "The unrolled loop writes every step into the program; scan writes one body. " * 2
LONG_ZH = "展开的循环把每一步都写进程序里，而扫描只写一次循环体，所以编译时间不随步数增长。" * 2


def _changed(**attributes: Any) -> type[Scenario]:
    return type("Changed", (BUILT_IN,), attributes)


def test_a_built_in_passes_and_its_copy_without_changes_too():
    assert validate(BUILT_IN, builtin=True) == []
    assert validate(_changed(), builtin=True) == []


@pytest.mark.parametrize(
    ("attributes", "said"),
    [
        ({"exercises": BUILT_IN.exercises[:2]}, "at least 3 exercises; it has 2"),
        ({"scripts": None}, "a built-in declares scripts = ScriptLesson"),
        (
            {"scripts": ScriptLesson(Text("short", LONG_ZH), (CardRef("pitfall"),))},
            "scripts.text.en must be English, over 80 characters",
        ),
        (
            {"scripts": ScriptLesson(Text(LONG_EN + "循环", LONG_ZH), (CardRef("pitfall"),))},
            "scripts.text.en must be English",
        ),
        (
            {"scripts": ScriptLesson(Text(LONG_EN, "短"), (CardRef("pitfall"),))},
            "scripts.text.zh must hold more than 30 Chinese characters",
        ),
        ({"scripts": ScriptLesson(Text(LONG_EN, LONG_ZH))}, "scripts.compare must name one"),
        ({"code_objects": Scenario.code_objects}, "code_objects(variant) is not implemented"),
        (
            {"code_objects": lambda self, variant: (len,)},
            "code_objects('pitfall') has no source",
        ),
        ({"question": Text("A question?", "")}, "say it in both languages"),
        (  # an exercise's comment would stay English under --lang zh
            {"exercises": (dataclasses.replace(STATIC_IF, code_comments=()),)},
            "exercise 'static-if': comment 'a Python bool, known while tracing' has no Chinese",
        ),
        (
            {
                "exercises": (
                    dataclasses.replace(
                        STATIC_IF,
                        code_comments=(*STATIC_IF.code_comments, Text("gone", "没了")),
                    ),
                )
            },
            "exercise 'static-if': code_comments names 'gone', not a comment of its code",
        ),
    ],
)
def test_each_missing_piece_is_named(attributes: dict[str, Any], said: str):
    cls = _changed(**attributes)
    problems = validate(cls, builtin=True)
    assert any(said in p for p in problems), problems
    # A plugin owes none of this: the same class is a well-formed plugin.
    assert validate(cls) == []
