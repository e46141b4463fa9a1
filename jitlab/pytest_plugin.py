"""pytest integration (registered as a pytest11 plugin): a ``compile_budget`` fixture and
marker, and a ``jitlab_lesson`` fixture with which a scenario's author tests their lesson.

def test_no_recompiles(compile_budget):
    step(x)                       # warm-up
    with compile_budget(0):
        for _ in range(10):
            step(x)

@pytest.mark.compile_budget(max_compiles=1)
def test_compiles_once(): ...

def test_my_lesson(jitlab_lesson):
    lesson = jitlab_lesson(WeakTypes)        # or an installed scenario's id: "weak-types"
    assert lesson.verdict().better == "fix"  # the fix wins on what the lesson measures
    assert lesson.question() == 2            # the question's own run counts 2 compiles
    assert lesson.answer("weak-then-strong") == 2
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "compile_budget(max_compiles=0): fail the test if it compiles more than this (jitlab)",
    )


@pytest.fixture
def compile_budget() -> Callable[..., AbstractContextManager[Any]]:
    """``with compile_budget(N):`` fails the test when the block compiles more than N times."""
    from jitlab.watching.budget import budget

    return budget


@pytest.fixture
def jitlab_lesson() -> Callable[[Any], Any]:
    """``jitlab_lesson(ScenarioClass or "id")``: the lesson as ``jitlab check`` sees it (a
    :class:`jitlab.lab.lesson_check.LessonCheck`): ``verdict()``, ``question()``,
    ``answer(exercise_id)``, ``run(variant, calls)``, each a real run from cold caches.

    A spec with problems fails the test at once, each problem with its file and line; a run in
    which the scenario's own code raised fails it with the line that raised."""
    import os

    from jitlab.records import messages

    def check(scenario: Any) -> Any:
        from jitlab.lab.lesson_check import LessonCheck, find

        lang = messages.language_of(os.environ.get("LC_ALL") or os.environ.get("LANG"))
        if isinstance(scenario, str):
            entries = find(scenario)
            if not entries:
                from jitlab.lab.discovery import scenarios

                known = ", ".join(sorted(scenarios()))
                words = messages.say("check.not_found", lang, target=repr(scenario), ids=known)
                pytest.fail(words, pytrace=False)
            entry = entries[0]
            if entry.scenario is None:
                words = messages.say("check.broken", lang, id=entry.name, error=entry.error)
                pytest.fail(words, pytrace=False)
            scenario = entry.scenario
        lesson = LessonCheck(scenario, strict=True)
        if lesson.problems:
            head = messages.say("check.spec_bad", lang, n=len(lesson.problems))
            pytest.fail("\n".join([head, *map(str, lesson.problems)]), pytrace=False)
        return lesson

    return check


def _marker_budget(marker: pytest.Mark) -> int:
    """The marker's budget, or a usage error naming the argument (before the test runs):
    a mistyped keyword, a budget that is no count, or more than one budget."""
    import os

    from jitlab.records import messages
    from jitlab.watching.budget import checked_max

    lang = messages.language_of(os.environ.get("LC_ALL") or os.environ.get("LANG"))
    unknown = sorted(set(marker.kwargs) - {"max_compiles"})
    if unknown:
        pytest.fail(messages.say("budget.marker_unknown", lang, name=unknown[0]), pytrace=False)
    given = [*marker.args, *marker.kwargs.values()]
    if len(given) > 1:
        got = ", ".join(
            [repr(a) for a in marker.args] + [f"{k}={v!r}" for k, v in marker.kwargs.items()]
        )
        pytest.fail(messages.say("budget.marker_many", lang, got=f"({got})"), pytrace=False)
    try:
        return checked_max(given[0] if given else 0, lang)
    except (TypeError, ValueError) as exc:
        pytest.fail(f"@pytest.mark.compile_budget: {exc}", pytrace=False)


def pytest_runtest_setup(item: pytest.Item) -> None:
    marker = item.get_closest_marker("compile_budget")
    if marker is not None:
        _marker_budget(marker)  # a usage error fails the test here: its body never runs


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    marker = item.get_closest_marker("compile_budget")
    if marker is None:
        return (yield)
    from jitlab.watching.budget import budget

    with budget(_marker_budget(marker)):
        return (yield)
