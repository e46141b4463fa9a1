"""The public API: ``jitlab`` re-exports the user-facing names lazily, from their packages."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import jitlab

pytestmark = pytest.mark.slow

HEADLESS = ("records", "probe", "lab", "watching", "recordings", "report", "quiz")


def test_every_public_name_resolves() -> None:
    for name in jitlab.__all__:
        assert getattr(jitlab, name) is not None, name
        module = importlib.import_module(jitlab.EXPORTS[name])
        assert getattr(module, name) is getattr(jitlab, name), name
    assert set(jitlab.EXPORTS) == set(jitlab.__all__)
    assert callable(jitlab.watch) and callable(jitlab.budget)
    assert issubclass(jitlab.CompileBudgetExceeded, AssertionError)


def test_importing_the_packages_imports_no_jax() -> None:
    # A package's __init__ is light: importing one never loads JAX (its modules may).
    packages = ", ".join(f"jitlab.{name}" for name in HEADLESS)
    code = f"import sys, jitlab, {packages}; print('jax' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


def test_records_as_data_import_no_jax() -> None:
    # jitlab.Script and the other records read from a file need no JAX.
    code = (
        "import sys, jitlab; jitlab.Script; jitlab.CallRecord; jitlab.Reason; jitlab.render;"
        "import jitlab.records.lines, jitlab.recordings.reader, jitlab.report.page;"
        "print('jax' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
