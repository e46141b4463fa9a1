"""Adding a built-in scenario is one file: on a copy of ``scenarios/`` (``$JITLAB_SCENARIOS``
points discovery there), one new file is listed by ``jitlab list``, runs under ``jitlab run
--compare`` and passes the scenario tests; the manifest says it is out of date until it is
written again. A file that misses what a built-in owes fails those tests by name."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jitlab.lab.manifest import SCENARIOS_ENV
from jitlab.records.paths import builtin_dir

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

# A tiny but complete built-in: only jitlab.lab.scenario, three exercises, a script lesson.
TINY = '''
"""Chapter 8 (a copy's own): a Python float argument is traced, not baked in."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jitlab.lab.scenario import (
    AnswerKind,
    CardRef,
    Chapter,
    Comparison,
    Exercise,
    Lab,
    Lesson,
    Measure,
    Param,
    Scenario,
    ScriptLesson,
    Text,
    Variant,
    compile_answer,
)

T = Text("Doubles its input.", "把输入翻倍。")


def double(x):
    return x * 2.0


def snippet(lab):
    f = lab.jit(double)
    f(jnp.ones(3))
    f(jnp.ones(3))


def snippet_shapes(lab):
    f = lab.jit(double)
    for n in (2, 3, 2):
        f(jnp.ones(n))


def exercise(exercise_id, run, expected):
    return Exercise(
        id=exercise_id,
        title=T,
        question=Text("How many calls compile?", "有几次调用会编译？"),
        explanation=T,
        kind=AnswerKind.NUMBER,
        expected=expected,
        snippet=run,
        settle=compile_answer,
    )


class Tiny(Scenario):
    id = "tiny"
    chapter = Chapter(8, Text("8 · A tiny chapter", "8 · 一个小章节"))
    title = Text("A tiny scenario", "一个小场景")
    question = Text("Does a new shape compile?", "新形状会编译吗？")
    lesson = Lesson(T, T, T, T)
    params = (Param("size", 4, Text("size", "大小"), Text("Input length.", "输入长度。"), 1, 16),)
    variants = (
        Variant("pitfall", Text("Pitfall", "陷阱"), T),
        Variant("fix", Text("Fix", "修正版"), T),
    )
    icon = "dog"
    exercises = (
        exercise("tiny-same-shape", snippet, 1),
        exercise("tiny-two-shapes", snippet_shapes, 2),
        exercise("tiny-once-more", snippet, 1),
    )
    scripts = ScriptLesson(
        Text(
            "The program multiplies by a constant: one equation, the same for every size of "
            "the input, compiled once per shape.",
            "这个程序只是乘以一个常数：只有一个等式，每种输入大小都一样，每种形状编译一次。"
            "换一个形状就要再编译一次。",
        ),
        (CardRef("pitfall"),),
    )

    comparisons = (Comparison(Measure.COMPILES, ({"size": 2}, {"size": 3}, {"size": 4})),)

    def setup(self, lab: Lab, variant: str):
        probe = lab.probe(double)
        if variant == "fix":  # one shape for every size: padded to 16
            return lambda values: probe(jnp.ones(16).at[values["size"] :].set(0.0))
        return lambda values: probe(jnp.ones(values["size"]))

    def code_objects(self, variant):
        return (double,)
'''


def _copy_with(tmp_path: Path, text: str) -> dict[str, str]:
    folder = tmp_path / "scenarios"
    shutil.copytree(builtin_dir("scenarios"), folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "tiny.py").write_text(text, encoding="utf-8")
    return {**os.environ, SCENARIOS_ENV: str(folder), "COLUMNS": "200", "JAX_PLATFORMS": "cpu"}


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], env=env, cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_one_new_file_is_listed_run_and_tested(tmp_path: Path) -> None:
    env = _copy_with(tmp_path, TINY)
    listed = _run(env, "-m", "jitlab", "list")
    assert listed.returncode == 0, listed.stderr
    assert "A tiny scenario" in listed.stdout, listed.stdout  # not broken: its title shows
    assert "broken" not in listed.stdout, listed.stdout
    stale = [x for x in listed.stdout.splitlines() if "manifest is out of date" in x]
    assert stale and "tiny.py" in stale[0]  # the checklist's last step, said where it is seen

    ran = _run(env, "-m", "jitlab", "run", "tiny", "--compare", "--json")
    assert ran.returncode == 0, ran.stderr
    assert '"compare"' in ran.stdout.splitlines()[-1]

    tested = _run(
        env, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider", "-rA",
        "tests/scenarios/test_every_scenario.py",
    )  # fmt: skip
    assert tested.returncode == 0, tested.stdout[-3000:]
    assert "test_every_builtin_keeps_what_a_builtin_owes[tiny]" in tested.stdout

    # Its exercises are in the quiz's tests too, against the answers the file writes: no
    # table to add them to.
    quizzed = _run(
        env, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider", "-rA",
        "tests/quiz/test_exercises.py", "-k", "computed_answer and tiny",
    )  # fmt: skip
    assert quizzed.returncode == 0, quizzed.stdout[-3000:]
    assert "test_computed_answer_matches_this_jax[tiny-two-shapes]" in quizzed.stdout

    checked = _run(env, "-m", "jitlab", "check", "tiny")
    assert checked.returncode == 0, checked.stdout[-3000:]
    assert "jitlab check: tiny passed" in checked.stdout


def test_a_file_missing_what_a_builtin_owes_fails_the_scenario_tests_by_name(tmp_path):
    two = TINY.replace('        exercise("tiny-once-more", snippet, 1),\n', "")
    assert two != TINY
    env = _copy_with(tmp_path, two)
    tested = _run(
        env, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider",
        "tests/scenarios/test_every_scenario.py", "-k", "owes",
    )  # fmt: skip
    assert tested.returncode == 1, tested.stdout[-3000:]
    assert "a built-in declares at least 3 exercises; it has 2" in tested.stdout
