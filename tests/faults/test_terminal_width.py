"""Tables on narrow terminals (issue 40): `jitlab summary` and the table `jitlab watch` prints
at the end, on a real pty 40 and 60 columns wide, and on a `TERM=dumb` one. Each function is
named whole, its path folded, every count with its header; no line wider than the terminal."""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path

import pytest
from ptyrun import run_on_pty, screen, terminal
from recorded import call_line

pytestmark = pytest.mark.slow

JITLAB = [sys.executable, "-m", "jitlab.cli"]
WHERE = "/home/someone/projects/a-deep-folder/models/train_loop_module.py:3"


def unfolded(lines: list[str]) -> str:
    """The text with the table's borders and the breaks of folded cells taken out."""
    return "".join(re.sub(r"[│┃|\s]", "", line) for line in lines)


def call(function: str, shape: list[int], t: float, kind: str = "compile") -> dict:
    return call_line(function, shape, t, kind, defined_at=WHERE)


@pytest.fixture
def job(tmp_path: Path) -> list[str]:
    """Two processes' recordings; process 1 compiled train_step_function once more."""
    files = []
    for process, extra in ((0, []), (1, [call("train_step_function", [4], 0.3, "recompile")])):
        lines = [
            {"type": "start", "argv": [], "time": 1.0, "process": process},
            call("train_step_function", [2], 0.1),
            *extra,
            call("evaluate", [3], 0.2),
            {"type": "end", "time": 2.0},
        ]
        path = tmp_path / f"run.p{process}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        files.append(str(path))
    return files


def assert_fits_and_names(lines: list[str], columns: int, functions: list[str], where: str) -> None:
    text = "\n".join(lines)
    assert all(len(line) <= columns for line in lines), text
    for name in functions:  # whole, on one line
        assert any(name in line for line in lines), text
    assert where in unfolded(lines), text  # the path folded, all of it there
    for header in ("compiles", "recompiles", "hits", "signatures"):  # never cut to "reco…"
        assert re.search(rf"\b{header}\b", text), (header, text)
    assert "…" not in text, text


@pytest.mark.parametrize("columns", [40, 60])
def test_summary_names_every_function_on_a_narrow_terminal(job, columns) -> None:
    result = run_on_pty([*JITLAB, "summary", *job], columns=columns, env=terminal())
    lines = screen(result.output)
    assert result.status == 1, "\n".join(lines)  # the processes diverged
    assert_fits_and_names(lines, columns, ["train_step_function", "evaluate"], WHERE)
    # Each process's counts stay with their function: process 1 compiled it twice.
    text = " ".join(" ".join(lines).replace("│", " ").split())
    assert "process 1 compiles 2 recompiles 1" in text, text


def test_a_dumb_terminal_gets_its_own_width(job) -> None:
    # rich alone draws 80 columns on TERM=dumb whatever the terminal's size.
    wide = screen(run_on_pty([*JITLAB, "summary", *job], columns=150, env=terminal("dumb")).output)
    header = next(line for line in wide if "function" in line)
    assert "signatures" in header and "process" in header, "\n".join(wide)  # one wide table
    assert any(WHERE in line for line in wide), "\n".join(wide)  # room for the whole path
    narrow = run_on_pty([*JITLAB, "summary", *job], columns=40, env=terminal("dumb"))
    assert_fits_and_names(screen(narrow.output), 40, ["train_step_function", "evaluate"], WHERE)


@pytest.mark.parametrize("columns", [40, 60])
def test_watch_end_table_names_the_function_on_a_narrow_terminal(tmp_path, columns) -> None:
    (tmp_path / "prog.py").write_text(
        textwrap.dedent(
            """
            import jax, jax.numpy as jnp
            def a_rather_long_function_name(x):
                return x * 2
            f = jax.jit(a_rather_long_function_name)
            for n in (2, 3, 3):
                f(jnp.ones(n))
            """
        )
    )
    out = tmp_path / "w.jsonl"
    result = run_on_pty(
        [*JITLAB, "watch", "--out", str(out), "--", "python", str(tmp_path / "prog.py")],
        columns=columns,
        env=terminal(),
        timeout=180,
    )
    lines = screen(result.output)
    assert result.status == 0, "\n".join(lines)
    where = f"{tmp_path / 'prog.py'}:3".replace(" ", "")  # def is its line 3
    assert_fits_and_names(lines, columns, ["a_rather_long_function_name"], where)
    text = " ".join(" ".join(lines).replace("│", " ").split())
    assert "compiles 2" in text and "recompiles 1" in text and "hits 1" in text, text
