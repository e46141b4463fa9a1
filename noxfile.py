"""The JAX version matrix: jitlab's headless tests on each supported JAX, and a JAX below it.

`nox -s versions` runs every JAX of the window up to 0.10 one after another on the Python
that runs nox (`nox -s "versions(0.8.3)"` runs one); `nox -s newest` runs 0.11 and 0.12,
which need Python >= 3.12, on Python 3.12 and 3.13; `nox -s newest-full` runs the GUI and
real-library tests on the newest JAX and Python; `nox -s below-window` checks that jitlab
refuses, in one line, on a JAX it cannot see. Each session is a fresh uv venv with exactly
that `jax`/`jaxlib`, jitlab installed without its Qt dependencies (but in `newest-full`).
"""

from __future__ import annotations

import os
import runpy
import shutil
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv"
nox.options.sessions = ["versions", "newest", "newest-full", "below-window"]

# The newest patch of each supported minor (pyproject: jax>=0.6,<0.13): up to 0.10 on the
# Python that runs nox (3.11 in CI), 0.11 and 0.12 (which require Python >= 3.12) on 3.12/3.13.
WINDOW = ["0.6.2", "0.7.2", "0.8.3", "0.9.2", "0.10.2"]
NEWEST = ["0.11.2", "0.12.0.1"]
NEW_PYTHONS = ["3.12", "3.13"]
BELOW = "0.5.3"  # the newest JAX below the window that still installs on our Pythons

# jitlab's dependencies less the GUI's (PySide6, pyqtgraph, superqt), and the test runner.
CORE = ["numpy>=1.26", "pygments>=2.17", "platformdirs>=4", "rich>=13"]
RUNNER = ["pytest>=8", "pytest-xdist>=3.6,<4", "hypothesis>=6"]

# What runs on every JAX: the tests that read JAX itself — the probe (JAX's caches, events,
# words and contract), the watch's event path, every lesson's verdict, the real programs that
# need only JAX, the truth rules and the differential test against JAX's own log. What jitlab
# builds on those records (the CLI's screens and languages, recordings, the fleet view) runs
# in the main suite on 0.10.2: the same code on every JAX, so the matrix leaves it out (CI's
# 90 minutes). Flax, Equinox, NumPyro and Diffrax pin their own JAX floors, so tests/real's
# library files run on the newest JAX only (the main suite and `newest-full`).
PORTABLE = [
    "tests/probe",
    "tests/watching/test_watch.py",
    "tests/watching/test_no_trace.py",
    "tests/watching/test_budget_marker.py",
    "tests/lab/test_verdict.py",
    "tests/lab/test_question_answers.py",
    "tests/cli/test_cli.py",
    "tests/test_headless.py",
    "tests/real/test_jax_ports.py",
    "tests/real/test_patterns.py",
    "tests/real/test_device_change.py",
    "tests/real/test_watch_transforms.py",
    "tests/real/test_truth_rules.py",
    "tests/real/test_truth_rules_generated.py",
    "tests/real/test_truth_round5.py",
    # The differential test against JAX (its Flax and Equinox tests skip here: no libraries).
    "tests/differential",
]
# Tests in those files that need Qt (none in these venvs) skip there (tests/conftest.py); the
# ones that start a Qt process are listed in tests/qt_tests.py (read here: newest-full runs
# them). Files that import Flax/Equinox are left out.
NEEDS_QT = list(runpy.run_path(str(Path(__file__).parent / "tests" / "qt_tests.py"))["NEEDS_QT"])
NEEDS_LIBS = ["tests/probe/test_truth_gaps.py"]
# -p no:cacheprovider: the sessions share the checkout; pytest's cache is the main suite's.
PYTEST = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider"]
# Each JAX of the matrix checks fewer generated programs than the main suite (which runs the
# CI budget); the same programs on every version (a fixed seed). More: `-- --differential-
# examples=N` after the session's name.
MATRIX_PROGRAMS = ["--differential-examples=8"]


def _pyenv_pythons() -> None:
    """Let uv find Python 3.12 and 3.13 where pyenv keeps them (these machines have them under
    pyenv, not on PATH): each such interpreter's folder goes on PATH for the sessions."""
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    if not root.is_dir():
        return
    folders = []
    for minor in NEW_PYTHONS:
        if shutil.which(f"python{minor}") and not _is_shim(shutil.which(f"python{minor}")):
            continue  # already on PATH
        found = sorted(root.glob(f"{minor}.*/bin/python{minor}"))
        if found:
            folders.append(str(found[-1].parent))
    if folders:
        os.environ["PATH"] = os.pathsep.join([*folders, os.environ.get("PATH", "")])


def _is_shim(path: str | None) -> bool:
    return path is not None and "shims" in Path(path).parts


_pyenv_pythons()


def _install(session: nox.Session, jax: str) -> None:
    session.install(f"jax=={jax}", f"jaxlib=={jax}", *CORE, *RUNNER)
    # --no-deps: pip would otherwise pull the pinned JAX range and the GUI back in.
    session.install("--no-deps", "-e", ".")
    session.run("python", "-c", "import jax, jaxlib; print(jax.__version__, jaxlib.__version__)")


@nox.session(tags=["versions"])
@nox.parametrize("jax", WINDOW, ids=WINDOW)
def versions(session: nox.Session, jax: str) -> None:
    """jitlab's portable tests on one JAX of the window."""
    _install(session, jax)
    left_out = [f"--ignore={path}" for path in NEEDS_LIBS]
    session.run(*PYTEST, *MATRIX_PROGRAMS, *left_out, *PORTABLE, *session.posargs)


@nox.session(python=NEW_PYTHONS, tags=["newest"])
@nox.parametrize("jax", NEWEST, ids=NEWEST)
def newest(session: nox.Session, jax: str) -> None:
    """jitlab's portable tests on JAX 0.11 and 0.12, on Python 3.12 and 3.13."""
    _install(session, jax)
    left_out = [f"--ignore={path}" for path in NEEDS_LIBS]
    session.run(*PYTEST, *MATRIX_PROGRAMS, *left_out, *PORTABLE, *session.posargs)


# What the main suite runs on 0.10.2 that the portable set leaves out, here on the newest JAX
# and Python: the GUI (a real Qt window, offscreen) and the real JAX libraries at their newest.
FULL = [
    "tests/gui",
    "tests/real",
    "tests/probe/test_truth_gaps.py",
    "tests/scenarios",
    "tests/quiz",
    # The differential test's Flax and Equinox programs (the rest runs in `newest`).
    "tests/differential/test_libraries.py",
    "tests/differential/test_regressions.py",
    *NEEDS_QT,
]


@nox.session(name="newest-full", python=NEW_PYTHONS[-1], tags=["newest"])
def newest_full(session: nox.Session) -> None:
    """The GUI and real-library tests on the newest JAX (0.12) and Python (3.13)."""
    # pip too: uv's venvs have none, and the example plugin's test installs it with pip, as
    # its README says (tests/conftest.py `example_plugin`).
    session.install(f"jax=={NEWEST[-1]}", f"jaxlib=={NEWEST[-1]}", "pip", "-e", ".[test]")
    session.run("python", "-c", "import jax, jaxlib; print(jax.__version__, jaxlib.__version__)")
    session.run(*PYTEST, *FULL, *session.posargs, env={"QT_QPA_PLATFORM": "offscreen"})


@nox.session(name="below-window", tags=["versions"])
def below_window(session: nox.Session) -> None:
    """On a JAX below the window every command refuses in one line; nothing is recorded."""
    _install(session, BELOW)
    session.run(*PYTEST, "-n", "0", "tests/versions/test_below_window.py", *session.posargs)
