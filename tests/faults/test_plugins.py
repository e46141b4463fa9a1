"""Fault table, plugins: a plugin calling sys.exit cannot take the tool down.

Each fault is injected for real: a third-party package made in a temp dir, registered under
the `jitlab.scenarios` entry point by its own dist-info, and the real `jitlab` command run
in a subprocess with that package on PYTHONPATH.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from environment_lines import program_lines

from jitlab.lab.discovery import discover
from jitlab.lab.engine import Run
from jitlab.lab.scenario import Lesson, Pitfall, Scenario, Text, Variant
from jitlab.records.calls import CallKind

# Installed plugins are what these tests are about (tests/conftest.py leaves them out).
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("installed_plugins")]

JITLAB = Path(sys.executable).with_name("jitlab")

HEADER = """
import sys

import jax
import jax.numpy as jnp

from jitlab.lab.scenario import Lesson, Param, Pitfall, Scenario, Text, Variant

T = Text("x", "x")
"""

# Calls sys.exit(5) while tracing when n == 2; its "fix" variant exits in setup().
EXITS_IN_CALL = (
    HEADER
    + """

def double(x):
    if x.shape[0] == 2:
        sys.exit(5)
    return x * 2


class ExitsInCall(Scenario):
    id = "exits-in-call"
    pitfall = Pitfall.SIDE_EFFECTS
    title = T
    question = T
    lesson = Lesson(T, T, T, T)
    params = (Param("n", 1, T, T, minimum=1, maximum=8),)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))

    def setup(self, lab, variant):
        if variant == "fix":
            sys.exit(7)
        probe = lab.probe(jax.jit(double))
        return lambda values: probe(jnp.ones(values["n"]))
"""
)


def make_package(site: Path) -> Path:
    """A third-party package with two plugins: one exits at import, one exits in a call."""
    package = site / "exiting_plugins"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "at_import.py").write_text("import sys\n\nsys.exit(3)\n")
    (package / "in_call.py").write_text(textwrap.dedent(EXITS_IN_CALL))
    dist = site / "exiting_plugins-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: exiting-plugins\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[jitlab.scenarios]\n"
        "exits-at-import = exiting_plugins.at_import\n"
        "exits-in-call = exiting_plugins.in_call:ExitsInCall\n"
    )
    return site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_package(tmp_path_factory.mktemp("site"))


def jitlab(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "COLUMNS": "200"}
    return subprocess.run(
        [str(JITLAB), *args], capture_output=True, text=True, env=env, timeout=300
    )


def test_a_plugin_exiting_at_import_is_listed_as_broken(site: Path):
    done = jitlab(site, "list")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "exits-at-import" in done.stdout
    assert "SystemExit(3) raised by the plugin" in done.stdout
    assert "exits-in-call" in done.stdout  # the other plugin of the package still loads
    assert "dynamic-shapes" in done.stdout  # and so do the built-ins


def test_the_builtins_still_run_beside_a_plugin_exiting_at_import(site: Path):
    done = jitlab(site, "run", "dynamic-shapes", "--json", "--param", "batch_size=8,16")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line.get("kind") for line in lines[:2]] == ["compile", "recompile"]
    assert lines[-1]["summary"]["calls"] == 2
    broken = jitlab(site, "run", "exits-at-import")
    assert broken.returncode == 2
    assert len(program_lines(broken.stderr)) == 1 and "SystemExit(3)" in broken.stderr


def test_sys_exit_inside_a_call_is_an_error_record_and_the_run_goes_on(site: Path):
    done = jitlab(site, "run", "exits-in-call", "--json", "--param", "n=1,2,3")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    *calls, summary = [json.loads(line) for line in done.stdout.splitlines()]
    assert [c["kind"] for c in calls] == ["compile", "error", "recompile"]
    assert calls[1]["error"] == {
        "type": "SystemExit",
        "message": "SystemExit(5) raised by the scenario",
    }
    assert summary["summary"]["calls"] == 3 and summary["summary"]["errors"] == 1
    # The table view prints the rest of the run and its summary too.
    table = jitlab(site, "run", "exits-in-call", "--param", "n=2,3")
    assert table.returncode == 0, table.stderr
    assert "SystemExit(5) raised by the scenario" in table.stdout
    assert "2 calls: 1 compile" in table.stdout and "1 error" in table.stdout


def test_sys_exit_in_setup_is_an_error_record_per_call(site: Path):
    done = jitlab(site, "run", "exits-in-call", "--variant", "fix", "--json", "--param", "n=1,2")
    assert done.returncode == 0, done.stderr
    *calls, summary = [json.loads(line) for line in done.stdout.splitlines()]
    assert [c["error"]["message"] for c in calls] == ["SystemExit(7) raised by the scenario"] * 2
    assert summary["summary"]["errors"] == 2


# -- in process: the same rule, and Ctrl-C still ends the tool ------------------------------
T = Text("x", "x")


class _Base(Scenario):
    pitfall = Pitfall.SIDE_EFFECTS
    title = T
    question = T
    lesson = Lesson(T, T, T, T)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))


class ExitsInFacts(_Base):
    id = "exits-in-facts"

    def setup(self, lab, variant):
        probe = lab.probe(lambda x: x + 1)
        return lambda values: probe(1.0)

    def facts(self):
        raise SystemExit("facts gave up")


class ExitsWhenMade(_Base):
    id = "exits-when-made"

    def __init__(self) -> None:
        raise SystemExit(9)

    def setup(self, lab, variant):
        raise AssertionError("never reached")


class Interrupted(_Base):
    id = "interrupted"

    def setup(self, lab, variant):
        def step(values):
            raise KeyboardInterrupt

        return step


def test_sys_exit_in_facts_or_the_constructor_keeps_the_record():
    record = Run(ExitsInFacts).step()
    assert record.kind is CallKind.COMPILE
    assert record.notes == {"facts_error": "SystemExit('facts gave up') raised by the scenario"}
    run = Run(ExitsWhenMade)
    records = run.play([{}, {}])
    assert [r.error.message for r in records] == ["SystemExit(9) raised by the scenario"] * 2
    assert run.summary().errors == 2


def test_a_plugin_with_a_malformed_pitfall_is_broken_not_fatal(tmp_path: Path):
    """Discovery sorts by pitfall: one plugin with a string there must not break the list."""
    (tmp_path / "odd.py").write_text(
        textwrap.dedent(
            """
            from jitlab.lab.scenario import Lesson, Scenario, Text, Variant

            T = Text("x", "x")


            class Odd(Scenario):
                id = "odd"
                pitfall = "side effects"
                title = T
                question = T
                lesson = Lesson(T, T, T, T)
                variants = (Variant("pitfall", T, T), Variant("fix", T, T))

                def setup(self, lab, variant):
                    return lambda values: None
            """
        )
    )
    (entry,) = discover(tmp_path, entry_points=False)
    assert entry.name == "odd" and not entry.ok
    assert "odd.py:9: Odd.pitfall: must be a Pitfall (" in entry.error
    assert "not the str 'side effects'" in entry.error


def test_keyboard_interrupt_still_propagates(tmp_path: Path):
    with pytest.raises(KeyboardInterrupt):
        Run(Interrupted).step()
    (tmp_path / "interrupts.py").write_text("raise KeyboardInterrupt\n")
    with pytest.raises(KeyboardInterrupt):
        discover(tmp_path, entry_points=False)
