"""pytest integration: a ``compile_budget`` fixture and marker (registered as a pytest11 plugin).

def test_no_recompiles(compile_budget):
    step(x)                       # warm-up
    with compile_budget(0):
        for _ in range(10):
            step(x)

@pytest.mark.compile_budget(max_compiles=1)
def test_compiles_once(): ...
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
