"""The public API: ``jitlab`` and ``jitlab.core`` re-export the user-facing names lazily."""

from __future__ import annotations

import subprocess
import sys

import jitlab
import jitlab.core


def test_every_public_name_resolves() -> None:
    for name in jitlab.__all__:
        assert getattr(jitlab, name) is not None, name
    for name in jitlab.core.__all__:
        assert getattr(jitlab.core, name) is getattr(jitlab, name), name
    assert set(jitlab.core.__all__) <= set(jitlab.__all__)
    assert callable(jitlab.watch) and callable(jitlab.budget)
    assert issubclass(jitlab.CompileBudgetExceeded, AssertionError)


def test_importing_the_public_packages_imports_no_jax() -> None:
    code = "import sys, jitlab, jitlab.core; print('jax' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
