"""What validate checks is the whole spec: every attribute a Scenario declares has a type to
be checked against, and nothing a plugin holds makes validate raise."""

from __future__ import annotations

import typing
from typing import Any

import pytest

from jitlab.lab.scenario import Lesson, Pitfall, Scenario, Text, Variant, validate
from jitlab.lab.validation import SPEC_TYPES, problems

T = Text("x", "x")


def test_every_attribute_scenario_declares_has_a_type_to_check() -> None:
    declared = {
        name
        for name, hint in typing.get_type_hints(Scenario).items()
        if not name.startswith("_") and name != "pitfall"  # the other name of `chapter`
    }
    assert declared == set(SPEC_TYPES)


@pytest.mark.parametrize("value", [None, 3, "scenario", object(), int, type("Plain", (), {})])
def test_what_is_no_scenario_class_is_said_to_be_none(value: Any) -> None:
    (problem,) = problems(value)
    assert problem.message == "is not a Scenario subclass"


class Raising:
    """A descriptor that raises when read: a plugin's own code, run by validate."""

    def __get__(self, instance: object, owner: type) -> Text:
        raise RuntimeError("no title today")


def test_an_attribute_that_raises_when_read_is_said_not_raised() -> None:
    class Sly(Scenario):
        id = "sly"
        pitfall = Pitfall.SIDE_EFFECTS
        title = Raising()
        question = T
        lesson = Lesson(T, T, T, T)
        variants = (Variant("pitfall", T, T), Variant("fix", T, T))

        def setup(self, lab: Any, variant: str) -> Any:
            return lambda values: None

    said = validate(Sly)
    assert any("Sly.title: reading it raised RuntimeError: no title today" in s for s in said)
