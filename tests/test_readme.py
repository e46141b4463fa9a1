"""The README's first hour for a newcomer (issue 54): where the code comes from comes before
the first command, the suite's size is said once (three totals disagreed), and the quick loop
is stated."""

from __future__ import annotations

import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")
TOTAL = re.compile(r"(\d{1,2},\d{3}|\d{4,}) tests\b")


def section(title: str) -> str:
    start = README.index(f"## {title}")
    end = README.find("\n## ", start + 1)
    return README[start : end if end >= 0 else None]


def test_the_code_comes_from_a_clone_before_the_first_command() -> None:
    first = section("Two commands for a fresh machine")
    before = first[: first.index("```bash")]
    assert "git clone" in before and "cd " in before, before


def test_the_suites_size_is_said_once_and_the_quick_loop_is_stated() -> None:
    totals = {n.replace(",", "") for n in TOTAL.findall(README)}
    assert len(totals) <= 1, sorted(totals)  # one run's figures, never three that disagree
    first = section("Two commands for a fresh machine")
    assert '-m "not' in first and 'slow"' in first  # the quick loop
    # Measured figures, dated, from one fresh clone (filled in from that run).
    assert "<!-- figures: coordinator -->" in first or re.search(r"\b20\d\d-\d\d-\d\d\b", first)
