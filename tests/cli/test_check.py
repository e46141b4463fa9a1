"""`jitlab check PATH_OR_ID`: a scenario file checked as a learner meets it, with an exit
status for CI (0: everything holds; 1: something does not; 2: nothing of that name)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

JITLAB = Path(sys.executable).with_name("jitlab")
sys.path.insert(0, str(Path(__file__).parents[1] / "faults"))
from padding_lesson import padding  # noqa: E402  (a helper beside the faults' tests)


def lesson(tmp_path: Path, expected: int = 2, fix_pads: bool = True) -> Path:
    path = tmp_path / "padding.py"
    path.write_text(padding(expected, fix_pads), encoding="utf-8")
    return path


def check(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "160", "JAX_PLATFORMS": "cpu"}
    return subprocess.run(
        [str(JITLAB), *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=600
    )


def test_a_good_lesson_passes_and_says_what_a_learner_sees(tmp_path: Path) -> None:
    done = check("check", str(lesson(tmp_path)), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "Pad to one shape · padding (file:padding.py)" in out
    assert "✔ The spec is well-formed." in out
    assert "✔ The pitfall compiled 3 times in 3 calls; the fix compiled once." in out
    assert "Its own run (" in out and "counts 2 (compiles)." in out
    assert "✔ exercise two-shapes: the run answers 2, as its author expects" in out
    assert "[red]not markup[/red]" in out  # a plugin's words are printed, never rendered
    assert out.rstrip().endswith("jitlab check: padding passed")


def test_a_lesson_that_teaches_nothing_or_a_wrong_answer_fails(tmp_path: Path) -> None:
    done = check("check", str(lesson(tmp_path, expected=5, fix_pads=False)), "--json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["ok"] is False and report["problems"] == []
    assert report["comparisons"][0]["better"] == "same"
    assert report["exercises"] == [{"id": "two-shapes", "answer": 2, "expected": 5}]
    words = check("check", str(lesson(tmp_path, expected=5, fix_pads=False))).stdout
    assert "✘ The fix does not do better than the pitfall" in words
    assert "✘ exercise two-shapes: the run answers 2; its author expects 5" in words
    assert "jitlab check: padding failed (2 problems)" in words


def test_what_is_not_there_is_a_usage_error(tmp_path: Path) -> None:
    done = check("check", str(tmp_path / "missing.py"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "missing.py: no such file" in done.stderr
    done = check("check", "no-such-scenario")
    assert done.returncode == 2 and "no-such-scenario" in done.stderr
    assert "static-args" in done.stderr  # what there is


def test_in_chinese_and_on_a_terminal(tmp_path: Path) -> None:
    from ptyrun import run_on_pty

    path = lesson(tmp_path)
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    result = run_on_pty([str(JITLAB), "--lang", "zh", "check", str(path)], env=env, timeout=300)
    assert result.status == 0, result.output[-3000:]
    shown = re.sub(r"\x1b\[[0-9;]*m", "", result.output)  # the terminal's colours
    assert "✔ 场景的声明没有问题。" in shown
    assert "✔ 练习 two-shapes：运行给出 2，与作者的预期一致" in shown
    assert "jitlab check：padding 通过" in shown
    assert "不是标记" in shown and "not markup" not in shown
