"""The code a lesson notebook shows is the code that runs: the lab's calls use the cell's
definitions (an edit changes the measurement), in the scenario module's globals, and the
module's own functions come back after the run."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from jitlab.lab.discovery import scenarios
from jitlab.notebook.lesson import open_lesson

pytestmark = pytest.mark.slow


def _cell_namespace(lesson: object, source: str) -> dict:
    """What running a variant's cell leaves in a notebook's namespace: the module's public
    names (the setup cell's ``from … import *``), then the cell's definitions."""
    module = lesson.module  # type: ignore[attr-defined]
    namespace = {k: v for k, v in vars(module).items() if not k.startswith("_")}
    exec(compile(source, "<cell>", "exec"), namespace)
    return namespace


def test_the_cell_definitions_are_what_the_lab_calls() -> None:
    lesson = open_lesson("dynamic-shapes")
    module = lesson.module
    own_step = module.step_pitfall
    shown = lesson.scenario().source("pitfall")
    as_shown = lesson.run("pitfall", _cell_namespace(lesson, shown))
    compiled = sum(1 for r in as_shown.records if r.kind.compiled)
    assert compiled == 8  # nine sizes, eight of them new: the lesson's pitfall

    # The learner edits the cell: every batch cut to its first 4 rows, one shape.
    edited = shown.replace("return loss(params, x, y)  #", "return loss(params, x[:4], y[:4])  #")
    assert edited != shown
    after_edit = lesson.run("pitfall", _cell_namespace(lesson, edited))
    assert [r.kind.value for r in after_edit.records][:2] == ["compile", "cache_hit"]
    assert sum(1 for r in after_edit.records if r.kind.compiled) == 1
    assert module.step_pitfall is own_step  # the module's own function is back


def test_a_cell_function_changes_the_module_state_the_lesson_reads() -> None:
    # side-effects' `double` says `global counter`: the cell's double counts in the module,
    # where the scenario's facts (and so the lesson's verdict) read the counter.
    lesson = open_lesson("side-effects")
    source = lesson.scenario().source("pitfall")
    run = lesson.run("pitfall", _cell_namespace(lesson, source))
    assert run.records[-1].notes["counter"] == 1  # traced once, five calls
    edited = source.replace("counter += 1", "counter += 10")
    run = lesson.run("pitfall", _cell_namespace(lesson, edited))
    assert run.records[-1].notes["counter"] == 10


def test_an_unknown_scenario_names_the_ones_there_are() -> None:
    with pytest.raises(KeyError, match="dynamic-shapes"):
        open_lesson("no-such-lesson")
    assert set(scenarios()) >= {"dynamic-shapes", "sharding"}


def test_the_builder_and_the_command_import_no_jax() -> None:
    code = textwrap.dedent(
        """
        import sys
        import jitlab.cli.notebook, jitlab.notebook.lesson
        from jitlab.cli import build_parser
        build_parser()
        print("jax" in sys.modules)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
