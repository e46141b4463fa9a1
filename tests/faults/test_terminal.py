"""The command line on a real terminal (a pty), where rich draws live and Ctrl-C is a key."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from ptyrun import run_on_pty

pytestmark = pytest.mark.slow

JITLAB = str(Path(sys.executable).with_name("jitlab"))
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def plain(text: str) -> str:
    return ANSI.sub("", text)


@pytest.fixture
def env(tmp_path):
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    env["TERM"] = "xterm-256color"
    return env


def test_run_on_a_terminal_finishes_with_its_table_and_summary(env):
    result = run_on_pty(
        [JITLAB, "run", "dynamic-shapes", "--param", "batch_size=8,16,8"], env=env, timeout=120
    )
    text = plain(result.output)
    assert result.status == 0, text[-2000:]
    # The rows of all three calls, the reason of the recompile, and the summary line.
    assert "compile" in text and "recompile" in text and "cache_hit" in text
    assert (
        "f32[16,64] ← f32[8,64]" in text.replace("\n", "").replace("│", "").replace(" ", "")
        or "16,64" in text
    )
    assert "3 calls: 2 compiles (1 recompile), 1 cache hit" in " ".join(text.split())
    # A live table redrawn forever would have produced far more than a few screens.
    assert len(result.output) < 200_000


def test_ctrl_c_keeps_the_rows_so_far_and_exits_130_without_a_traceback(env):
    sizes = ",".join(str(n) for n in range(1, 400))  # every call recompiles: a long run

    result = run_on_pty(
        [JITLAB, "run", "dynamic-shapes", "--param", f"batch_size={sizes}"],
        env=env,
        timeout=180,
        ctrl_c_after=("recompile", 1),
    )
    text = " ".join(plain(result.output).split())
    assert result.status == 130, text[-2000:]
    assert "Traceback" not in text
    assert "interrupted" in text
    summary = re.search(r"(\d+) calls: \d+ compiles \((\d+) recompile", text)
    assert summary, text[-2000:]
    assert 2 <= int(summary[1]) < 399  # stopped part-way, with what it had done


def test_json_on_a_terminal_is_strict_lines_and_ctrl_c_still_summarises(env):
    import json

    sizes = ",".join(str(n) for n in range(1, 400))

    result = run_on_pty(
        [JITLAB, "run", "dynamic-shapes", "--param", f"batch_size={sizes}", "--json"],
        env=env,
        timeout=180,
        ctrl_c_after=('"index"', 2),
    )
    assert result.status == 130
    # The terminal echoes the key as "^C" wherever the cursor is, and on Ctrl-C it may drop
    # output still queued (POSIX's NOFLSH is off): at most one line can be cut by the terminal.
    output = result.output.replace("\r", "").replace("^C", "")
    lines = [line for line in output.splitlines() if line.startswith("{")]
    objects, cut = [], 0
    for line in lines:
        try:
            objects.append(json.loads(line))
        except json.JSONDecodeError:
            cut += 1
    assert cut <= 1, lines
    summary = objects[-1]["summary"]
    assert summary["interrupted"] is True
    # (a line the terminal dropped on Ctrl-C is not the program's: count what it says it did)
    assert summary["calls"] >= 2 and summary["calls"] >= len(objects) - 1
    assert "Traceback" not in result.output
