"""The differential test's budget: programs per test, CI's by default, more with
``pytest --differential-examples=N`` (the option lives in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from .checking import agree
from .strategies import Dims, programs

Generated = Callable[..., None]


@pytest.fixture
def generated(request: pytest.FixtureRequest) -> Generated:
    """``generated(dims, budget)``: check that many programs drawn over ``dims`` (the same
    ones on every run: a fixed seed), or ``--differential-examples`` of them."""
    chosen = request.config.getoption("--differential-examples")

    def check(dims: Dims, budget: int, place: Callable[[Any, str], Any] | None = None) -> None:
        @settings(
            max_examples=chosen if chosen is not None else budget,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        )
        @given(programs(dims))
        def agrees(program: Any) -> None:
            agree(program, place=place)

        agrees()

    return check
