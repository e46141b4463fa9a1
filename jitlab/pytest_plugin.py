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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    marker = item.get_closest_marker("compile_budget")
    if marker is None:
        return (yield)
    from jitlab.watching.budget import budget

    max_compiles = marker.kwargs.get("max_compiles", marker.args[0] if marker.args else 0)
    with budget(max_compiles):
        return (yield)
