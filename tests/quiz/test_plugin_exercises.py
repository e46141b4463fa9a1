"""A real third-party plugin brings a new chapter, an icon and an exercise.

The package is installed the way pip would leave it: a module on PYTHONPATH and a
dist-info whose entry_points.txt names it in the `jitlab.scenarios` group. The real
`jitlab` command runs in a subprocess: the scenario shows in `jitlab list`, the exercise in
`jitlab quiz --list`, and `jitlab quiz --scenario <id>` runs it with answers fed on stdin.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Installed plugins are what these tests are about (tests/conftest.py leaves them out).
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("installed_plugins")]

JITLAB = Path(sys.executable).with_name("jitlab")

PLUGIN = """
import numpy as np
import jax
import jax.numpy as jnp

from jitlab.lab.scenario import Chapter, Lesson, Scenario, Text, Variant
from jitlab.quiz import AnswerKind, Exercise, compile_answer

T = Text("Donation", "捐赠")

DONATION = Chapter(8, Text("8 · Donating buffers", "8 · 捐出缓冲区"))


def resize_twice(lab):
    @lab.jit
    def grow(x):
        return jnp.concatenate([x, x])

    for n in (2, 2, 3):
        grow(np.zeros(n, np.float32))


class Donation(Scenario):
    id = "buffer-donation"
    chapter = DONATION
    icon = "knife.svg"  # shipped next to this file
    title = Text("Give the buffer away", "把缓冲区让出去")
    question = T
    lesson = Lesson(T, T, T, T)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))
    exercises = (
        Exercise(
            id="donation-shapes",
            title=Text("Plugin exercise: two sizes", "插件练习：两种长度"),
            question=Text("grow() gets 2, 2, then 3 elements. Compiles?", "编译几次？"),
            explanation=Text("One program per shape.", "每种形状一个程序。"),
            kind=AnswerKind.NUMBER,
            snippet=resize_twice,
            settle=compile_answer,
        ),
    )

    def setup(self, lab, variant):
        probe = lab.probe(jax.jit(lambda x: x + 1))
        return lambda values: probe(jnp.ones(3))
"""

ICON = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8"/></svg>'


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("site")
    package = site / "donation_plugin"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "scenario.py").write_text(textwrap.dedent(PLUGIN))
    (package / "knife.svg").write_text(ICON)
    dist = site / "donation_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: donation-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[jitlab.scenarios]\nbuffer-donation = donation_plugin.scenario\n"
    )
    return site


def jitlab(site: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "COLUMNS": "200", "JAX_PLATFORMS": "cpu"}
    return subprocess.run(
        [str(JITLAB), *args], input=stdin, capture_output=True, text=True, env=env, timeout=300
    )


def test_the_plugin_and_its_chapter_are_listed(site: Path):
    done = jitlab(site, "list")
    assert done.returncode == 0, done.stderr
    assert "buffer-donation" in done.stdout and "broken" not in done.stdout
    assert "8 · Donating buffers" in done.stdout
    # after the seven built-in chapters
    assert done.stdout.index("7 · Sharding") < done.stdout.index("8 · Donating buffers")


def test_its_exercise_is_in_the_quiz_list_under_its_chapter(site: Path):
    done = jitlab(site, "quiz", "--list")
    assert done.returncode == 0, done.stderr
    assert "donation-shapes" in done.stdout and "Plugin exercise: two sizes" in done.stdout
    assert "print-in-jit" in done.stdout  # the built-ins are still there
    done = jitlab(site, "quiz", "--list", "--json")
    assert done.returncode == 0, done.stderr
    listed = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    (mine,) = [e for e in listed if e["exercise"] == "donation-shapes"]
    assert mine["scenario"] == "buffer-donation" and mine["pitfall"] == 8
    assert mine["source"].startswith("def resize_twice(lab):")


def test_its_exercise_runs_with_answers_on_stdin(site: Path):
    done = jitlab(site, "quiz", "--scenario", "buffer-donation", stdin="2\n")
    assert done.returncode == 0, done.stderr
    assert "8 · Donating buffers" in done.stdout
    assert "✓ Right." in done.stdout and "Score: 1/1" in done.stdout
    assert "jitlab run buffer-donation" in done.stdout  # where to play with it next
    done = jitlab(site, "quiz", "--scenario", "buffer-donation", stdin="1\n")
    assert done.returncode == 0, done.stderr
    assert "✗ Not this time." in done.stdout and "Score: 0/1" in done.stdout


def test_without_the_plugin_its_scenario_is_unknown_to_the_quiz(tmp_path: Path):
    done = jitlab(tmp_path, "quiz", "--scenario", "buffer-donation", "--list")
    assert done.returncode == 2
    assert "unknown scenario 'buffer-donation'" in done.stderr
