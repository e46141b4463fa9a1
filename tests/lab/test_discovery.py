"""Plugin discovery: built-ins load, broken plugins are reported, the rest still load."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jitlab.lab.discovery import discover, scenarios

pytestmark = pytest.mark.slow

GOOD = """
from jitlab.lab.scenario import Lesson, Pitfall, Scenario, Text, Variant

T = Text("x", "x")


class Good(Scenario):
    id = "good-one"
    pitfall = Pitfall.SIDE_EFFECTS
    title = T
    question = T
    lesson = Lesson(T, T, T, T)
    variants = (Variant("pitfall", T, T), Variant("fix", T, T))

    def setup(self, lab, variant):
        probe = lab.probe(lambda x: x + 1)
        return lambda values: probe(1.0)
"""


def write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(textwrap.dedent(text))


def test_builtins_are_found():
    found = scenarios()
    assert "dynamic-shapes" in found
    assert all(entry.ok for entry in discover()), [e for e in discover() if not e.ok]


def test_broken_plugins_are_reported_and_the_rest_load(tmp_path: Path):
    write(tmp_path, "good.py", GOOD)
    write(tmp_path, "crashes.py", "raise RuntimeError('boom at import')\n")
    write(tmp_path, "syntax.py", "def broken(:\n")
    write(tmp_path, "empty.py", "X = 1\n")
    write(
        tmp_path,
        "malformed.py",
        GOOD.replace('id = "good-one"', 'id = "no-fix"').replace(
            'Variant("fix", T, T)', 'Variant("other", T, T)'
        ),
    )
    write(tmp_path, "_private.py", "raise SystemExit('never imported')\n")
    entries = {e.name: e for e in discover(tmp_path, entry_points=False)}
    assert entries["good-one"].ok
    assert "RuntimeError: boom at import" in entries["crashes"].error
    assert "SyntaxError" in entries["syntax"].error
    assert "no Scenario subclass" in entries["empty"].error
    assert "'pitfall' and 'fix'" in entries["no-fix"].error
    assert "_private" not in entries


def test_entry_point_plugins_load(tmp_path: Path):
    """A third-party package registering under `jitlab.scenarios` is discovered."""
    package = tmp_path / "site"
    (package / "thirdparty_jitlab").mkdir(parents=True)
    write(package / "thirdparty_jitlab", "__init__.py", GOOD.replace("good-one", "third-party"))
    dist = package / "thirdparty_jitlab-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: thirdparty-jitlab\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[jitlab.scenarios]\nthird = thirdparty_jitlab:Good\nbad = thirdparty_jitlab:Missing\n"
    )
    code = (
        "from jitlab.lab.discovery import discover\n"
        "for e in discover():\n"
        "    print(e.name, e.origin, e.ok, e.error)\n"
    )
    machine_path = os.environ.get("PYTHONPATH")
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        # Only the package (and where the machine keeps JAX, and which backend the run asked
        # for: a TPU VM names JAX's folder in PYTHONPATH, and its chip admits one process).
        env={
            "PYTHONPATH": os.pathsep.join(filter(None, [str(package), machine_path])),
            "PATH": "",
            **{k: v for k, v in os.environ.items() if k == "JAX_PLATFORMS" or k.startswith("TPU_")},
        },
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "third-party entry-point:third True None" in done.stdout
    assert "bad entry-point:bad False AttributeError" in done.stdout
    assert "dynamic-shapes builtin:dynamic_shapes.py True" in done.stdout


def test_a_parameter_naming_an_unknown_variant_is_reported(tmp_path: Path):
    source = GOOD.replace(
        "from jitlab.lab.scenario import Lesson, Pitfall, Scenario, Text, Variant",
        "from jitlab.lab.scenario import Lesson, Param, Pitfall, Scenario, Text, Variant",
    ).replace(
        "    variants = (",
        '    params = (Param("n", 1, T, T, minimum=1, maximum=3, variants=("nope",)),)\n'
        "    variants = (",
    )
    write(tmp_path, "odd.py", source)
    (entry,) = discover(tmp_path, entry_points=False)
    assert not entry.ok and "unknown variants ['nope']" in entry.error
