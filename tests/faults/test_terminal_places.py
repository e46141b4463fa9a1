"""A place in a program is never broken inside its ``file:line`` (issue 54, item 13).

Folded at the column's edge, ``train.py:22`` read as line 2 (``train.py:2``, then ``2`` on the
next line). On a real pty 80 and 60 columns wide, the table ``jitlab watch`` prints at its end
and ``jitlab summary`` of the same recording break a long path only after a ``/``; the
``file:line`` stays whole on one line, and the folders are all there. Where a fold falls
depends on the path's length: the same tables are drawn for folders one character longer at
a time, twelve times (a fold anywhere in ``train.py:22`` would show in one of them).
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path

import pytest
from ptyrun import run_on_pty, screen, terminal

pytestmark = pytest.mark.slow

JITLAB = [sys.executable, "-m", "jitlab.cli"]
NAME = "a_training_step_with_a_rather_long_descriptive_name"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``train.py`` deep in folders, its jitted function defined on line 22."""
    folder = tmp_path_factory.mktemp("p") / "experiments" / "image-models" / "baseline"
    folder.mkdir(parents=True)
    head = "import jax, jax.numpy as jnp\n" + "\n" * 20  # so the def is line 22
    body = f"""
        def {NAME}(x):
            return x * 2
        f = jax.jit({NAME})
        for n in (2, 3, 3):
            f(jnp.ones(n))
        """
    path = folder / "train.py"
    path.write_text(head + textwrap.dedent(body).lstrip("\n"), encoding="utf-8")
    assert path.read_text().splitlines()[21].startswith(f"def {NAME}")
    return path


def assert_place_whole(lines: list[str], program: Path, columns: int) -> None:
    text = "\n".join(lines)
    assert all(len(line) <= columns for line in lines), text
    assert any("train.py:22" in line for line in lines), text  # on one line
    assert not re.search(r"train\.py:2(?![0-9])", text), text  # never cut to read as line 2
    assert not re.search(r"train\.py:?$", text, re.MULTILINE), text
    # Every folder of it is there, broken only after a "/".
    cells = "".join(re.sub(r"[│┃|\s]", "", line) for line in lines)
    assert f"{program}:22".replace(" ", "") in cells, text


@pytest.mark.parametrize("columns", [80, 60])
def test_the_watch_end_table_never_breaks_file_and_line(
    program: Path, tmp_path: Path, columns: int
) -> None:
    out = tmp_path / "run.jsonl"
    result = run_on_pty(
        [*JITLAB, "watch", "--out", str(out), "--", "python", str(program)],
        columns=columns,
        env=terminal(),
        timeout=180,
    )
    lines = screen(result.output)
    assert result.status == 0, "\n".join(lines)
    assert any(NAME[:20] in line for line in lines), "\n".join(lines)
    assert_place_whole(lines, program, columns)
    summary = run_on_pty([*JITLAB, "summary", str(out)], columns=columns, env=terminal())
    assert summary.status == 0, summary.output
    assert_place_whole(screen(summary.output), program, columns)


# Draws, on the terminal it runs on, the watch's end table (what `jitlab watch` calls) and
# `jitlab summary` for each recording named, each after a line "=== NAME".
SWEEP = """
import sys
from jitlab.cli import main
from jitlab.cli.watch import print_watch_summary
for name in sys.argv[1:]:
    print("=== " + name, flush=True)
    print_watch_summary(name, file=sys.stdout)
    main(["summary", name])
"""


@pytest.mark.parametrize("columns", [80, 60])
def test_no_length_of_path_breaks_file_and_line(tmp_path: Path, columns: int) -> None:
    from recorded import call_line

    names = []
    for extra in range(12):
        folder = f"/home/someone/{'p' * (extra + 1)}/experiments/image-models"
        lines = [
            {"type": "start", "argv": ["train.py"], "time": 1.0},
            call_line(NAME, [2], 0.1, defined_at=f"{folder}/train.py:22"),
            call_line(NAME, [3], 0.2, "recompile", defined_at=f"{folder}/train.py:22"),
            {"type": "end", "time": 2.0},
        ]
        for line in lines[1:3]:
            line["called_from"] = f"{folder}/train.py:22"
            line["compile_ms"] = 900.0  # past call-site-cost's floor: its diagnosis is stated
        path = tmp_path / f"run{extra}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        names.append(str(path))
    result = run_on_pty(
        [sys.executable, "-c", SWEEP, *names], columns=columns, env=terminal(), timeout=300
    )
    assert result.status == 0, result.output[-3000:]
    drawn = "\n".join(screen(result.output)).split("=== ")[1:]
    assert len(drawn) == len(names)
    for text in drawn:
        lines = text.splitlines()[1:]
        assert all(len(line) <= columns for line in lines), text
        # Each place whole on a line: the function's definition in both tables and in the
        # call-site diagnosis, the call site in the summary's table and in both diagnoses.
        assert sum(line.count("train.py:22") for line in lines) == 7, text
        for i, line in enumerate(lines[:-1]):  # no line ends inside it, cut to read as line 2
            tail = line.rstrip(" │┃").rstrip()
            assert not re.search(r"(train\.py:?2?|train\.p?y?|:2)$", tail), (i, text)
