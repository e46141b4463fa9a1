"""The example plugin (``examples/plugin``), pip-installed as its README says: listed, checked,
compared, quizzed, and its own tests green with jitlab's ``jitlab_lesson`` fixture. CI runs it
with the suite, so a change to the plugin API that breaks the example fails here (it needs pip
and hatchling, the test extra's: the JAX sessions of noxfile.py, made by uv, have neither,
and do not run tests/cli/ whole)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("installed_plugins")]

JITLAB = Path(sys.executable).with_name("jitlab")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "plugin"


def _run(site: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "COLUMNS": "200", "JAX_PLATFORMS": "cpu"}
    return subprocess.run(
        list(args), capture_output=True, text=True, env=env, cwd=cwd, timeout=600, check=False
    )


def test_it_is_listed_in_its_own_chapter_beside_the_builtins(example_plugin: Path) -> None:
    done = _run(example_plugin, str(JITLAB), "list")
    assert done.returncode == 0, done.stderr
    assert "weak-types" in done.stdout and "8 · Weak types" in done.stdout
    assert "dynamic-shapes" in done.stdout and "broken" not in done.stdout


def test_jitlab_check_passes_it(example_plugin: Path) -> None:
    done = _run(example_plugin, str(JITLAB), "check", "weak-types")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "✔ The spec is well-formed." in done.stdout
    assert "✔ The pitfall compiled twice in 8 calls; the fix compiled once." in done.stdout
    assert "✔ exercise python-float-then-array: the run answers 2" in done.stdout
    assert done.stdout.rstrip().endswith("jitlab check: weak-types passed")


def test_its_comparison_and_its_exercise_run(example_plugin: Path) -> None:
    done = _run(example_plugin, str(JITLAB), "run", "weak-types", "--compare", "--json")
    assert done.returncode == 0, done.stderr
    verdict = json.loads(done.stdout.splitlines()[-1])["compare"]
    assert verdict["better"] == "fix" and verdict["measure"] == "compiles"
    assert (verdict["pitfall"]["compiles"], verdict["fix"]["compiles"]) == (2, 1)
    quiz = [str(JITLAB), "quiz", "--solve", "--exercise", "python-float-then-array", "--json"]
    done = _run(example_plugin, *quiz)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["answer"] == 2


def test_its_own_tests_pass_with_the_jitlab_lesson_fixture(example_plugin: Path) -> None:
    done = _run(
        example_plugin,
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLE / "tests"),
        cwd=EXAMPLE,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "4 passed" in done.stdout
