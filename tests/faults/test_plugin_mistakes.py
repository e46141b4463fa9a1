"""Fault table, plugins: the mistakes a plugin author makes, each in a real installed package
(its own dist-info, the `jitlab.scenarios` entry point), met by the real `jitlab` command.

One plugin never takes down a face: `jitlab list` lists every built-in and each broken plugin
with its file, line, class and attribute (it crashed on a plain str title, issue 55);
`jitlab check` says what is wrong and exits 1 for CI; a plugin whose own setup raises is said
with its file and line. And the project's own tests pass with these plugins installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jitlab.lab.discovery import discover

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("installed_plugins")]

JITLAB = Path(sys.executable).with_name("jitlab")
ROOT = Path(__file__).resolve().parents[2]

HEAD = """
from jitlab.lab.scenario import Lesson, Pitfall, Scenario, Text, Variant

T = Text("x", "x")
"""
# Each plugin's one mistake, and what validate says of it (its class and attribute).
MISTAKES = {
    "plain_title": (
        """
class PlainTitle(Scenario):
    id = "plain-title"
    pitfall = Pitfall.SIDE_EFFECTS
    title = "Weak types"
    question = T
    lesson = Lesson(T, T, T, T)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))

    def setup(self, lab, variant):
        return lambda values: None
""",
        "plain_title.py:9: PlainTitle.title: must be Text(en, zh), not the plain str 'Weak types'",
    ),
    "string_variants": (
        """
class StringVariants(Scenario):
    id = "string-variants"
    pitfall = Pitfall.SIDE_EFFECTS
    title = T
    question = T
    lesson = Lesson(T, T, T, T)
    variants = ("pitfall", "fix")

    def setup(self, lab, variant):
        return lambda values: None
""",
        "string_variants.py:12: StringVariants.variants[0]: must be Variant(id, title, "
        "summary), not the str 'pitfall'",
    ),
    "raises_in_setup": (
        """
def load_table():
    raise LookupError("no such table")


class RaisesInSetup(Scenario):
    id = "raises-in-setup"
    pitfall = Pitfall.SIDE_EFFECTS
    title = T
    question = T
    lesson = Lesson(T, T, T, T)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))

    def setup(self, lab, variant):
        load_table()
""",
        None,  # well-formed: it fails when it runs
    ),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A package of three plugins, installed by its dist-info, each with its own mistake."""
    site = tmp_path_factory.mktemp("site")
    package = site / "author_mistakes"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, (body, _said) in MISTAKES.items():
        (package / f"{name}.py").write_text(HEAD + textwrap.dedent(body), encoding="utf-8")
    dist = site / "author_mistakes-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: author-mistakes\nVersion: 1.0\n")
    lines = [f"{n.replace('_', '-')} = author_mistakes.{n}" for n in MISTAKES]
    (dist / "entry_points.txt").write_text("[jitlab.scenarios]\n" + "\n".join(lines) + "\n")
    return site


def run(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "COLUMNS": "400", "JAX_PLATFORMS": "cpu"}
    return subprocess.run(
        list(args), capture_output=True, text=True, env=env, cwd=site, timeout=600, check=False
    )


def test_jitlab_list_lists_every_builtin_and_each_broken_plugin_with_its_line(site: Path):
    done = run(site, str(JITLAB), "list")
    assert done.returncode == 0, done.stderr  # it was 1, with a traceback and no list
    text = done.stdout  # the table folds long cells: each place and name is read as a word
    for entry in discover(entry_points=False):
        assert entry.name in text
    for name, (_body, said) in MISTAKES.items():
        if said is not None:
            place, owner = said.split(": ")[:2]
            assert place in text and f"{owner}:" in text, (name, text[-3000:])
    assert "raises-in-setup" in text  # well-formed: listed, not broken
    # The quiz lists every exercise, and says which plugins it left out, and why.
    quiz = run(site, str(JITLAB), "quiz", "--list")
    assert quiz.returncode == 0, quiz.stderr
    assert "static-is-free" in quiz.stdout
    assert "plain-title: author_mistakes/plain_title.py:9: PlainTitle.title" in quiz.stderr


def test_jitlab_check_says_each_mistake_and_fails(site: Path):
    done = run(site, str(JITLAB), "check", "plain-title")
    assert done.returncode == 1
    assert "✘ plain-title does not load" in done.stdout
    assert "PlainTitle.title: must be Text(en, zh)" in done.stdout
    done = run(site, str(JITLAB), "check", "raises-in-setup", "--json")
    assert done.returncode == 1
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["ok"] is False and report["problems"] == []
    raised = report["raised"][0]
    assert raised["during"] == "setup" and raised["function"] == "load_table"
    assert raised["file"].endswith("raises_in_setup.py") and raised["line"] == 7
    done = run(site, str(JITLAB), "check", "no-such-lesson")
    assert done.returncode == 2 and "no-such-lesson" in done.stderr


def test_a_plugins_own_exception_is_said_with_its_line_by_jitlab_run(site: Path):
    done = run(site, str(JITLAB), "run", "raises-in-setup", "--json")
    assert done.returncode == 0, done.stderr
    call = json.loads(done.stdout.splitlines()[0])
    assert call["kind"] == "error" and call["error"]["type"] == "LookupError"
    assert call["notes"]["scenario_error"]["code"] == 'raise LookupError("no such table")'
    table = run(site, str(JITLAB), "run", "raises-in-setup")
    assert "setup raised it at" in table.stdout and "raises_in_setup.py:7, in load_table" in (
        table.stdout
    )


def test_the_projects_own_tests_pass_with_these_plugins_installed(site: Path):
    """Issue 55: one installed plugin failed tests/lab/test_discovery.py and the quiz's tests;
    the project's tests leave installed plugins out (tests/conftest.py)."""
    quiz = ROOT / "tests/quiz/test_exercises.py"
    done = run(
        site,
        sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider",
        "--rootdir", str(ROOT), str(ROOT / "tests/lab/test_discovery.py"),
        f"{quiz}::test_catalogue_covers_every_pitfall_and_sharding",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
