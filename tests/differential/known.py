"""What the differential test finds wrong on today's code, one entry per rule: delete an entry
once the rule holds (issue 50 lists rules 1–7; other entries name a bug found here).

While an entry stands, the generated tests tolerate findings of that rule (they still fail
on any other disagreement) and its regression cases are expected to fail —
``xfail(strict=True)``: once the rule holds they pass, which fails the run until the entry
goes. With no entry left, every finding fails.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest

F = TypeVar("F", bound=Callable[..., Any])

KNOWN: dict[int | str, str] = {
    # Issue 50's rules 1 to 7 hold wherever the generator reaches.
    # (The closest program is JAX's own choice: 0.9+ ranks a context difference first.)
}


def known(*rules: int | str) -> Callable[[F], F]:
    """A regression case of ``rules``: expected to fail while any of them has an entry (a
    rule that holds leaves the case a plain test)."""
    standing = [rule for rule in rules if rule in KNOWN]
    if standing:
        reason = "; ".join(f"known ({rule}): {KNOWN[rule]}" for rule in standing)
        return pytest.mark.xfail(strict=True, reason=reason)
    return lambda test: test


def holds(*rules: int | str) -> Callable[[F], F]:
    """A regression case of ``rules`` that passes although a rule still has an entry (the
    generator reaches cases of it this one does not): a plain test."""
    return lambda test: test


def tolerated_but(*rules: int | str) -> frozenset[int | str]:
    """The known rules a regression case of ``rules`` tolerates: every other one."""
    return frozenset(KNOWN) - set(rules)
