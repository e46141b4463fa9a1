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

LESSON = """
import jax.numpy as jnp

from jitlab.lab.scenario import (
    AnswerKind, Chapter, Comparison, Exercise, Lesson, Measure, Param, QuestionRun, Scenario,
    Text, Variant, compile_answer,
)

T = Text("[red]not markup[/red]", "不是标记")


def two_shapes(lab):
    f = lab.jit(lambda x: x * 2)
    f(jnp.ones(2))
    f(jnp.ones(3))


class Padding(Scenario):
    id = "padding"
    chapter = Chapter(9, Text("9 · Padding", "9 · 补齐"))
    title = Text("Pad to one shape", "补齐到同一形状")
    question = T
    lesson = Lesson(T, T, T, T)
    params = (Param("size", 2, T, T, minimum=1, maximum=8),)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))
    comparisons = (Comparison(Measure.COMPILES, ({"size": 2}, {"size": 3}, {"size": 5})),)
    question_run = QuestionRun("pitfall", ({"size": 2}, {"size": 3}))
    exercises = (
        Exercise(
            id="two-shapes",
            title=T,
            question=T,
            explanation=T,
            kind=AnswerKind.NUMBER,
            expected=EXPECTED,
            snippet=two_shapes,
            settle=compile_answer,
        ),
    )

    def setup(self, lab, variant):
        probe = lab.probe(lambda x: x + 1)
        if variant == "fix" and FIX_PADS:
            return lambda values: probe(jnp.ones(8))
        return lambda values: probe(jnp.ones(values["size"]))
"""


def lesson(tmp_path: Path, expected: int = 2, fix_pads: bool = True) -> Path:
    path = tmp_path / "padding.py"
    text = LESSON.replace("EXPECTED", str(expected)).replace("FIX_PADS", str(fix_pads))
    path.write_text(text, encoding="utf-8")
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
    sys.path.insert(0, str(Path(__file__).parents[1] / "faults"))
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
