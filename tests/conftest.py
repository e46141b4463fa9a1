"""Shared test setup: headless Qt before anything imports it."""

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from qt_tests import NEEDS_QT

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# On a GPU machine each process would take 75% of the GPU's memory at start: parallel workers
# and the subprocesses the tests start (they inherit this) would not fit side by side.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
# The project's tests run on the built-ins alone: a plugin the user installed must not fail
# them (napari blocks entry-point discovery in its tests the same way). Set before collection
# (modules discover at import) and inherited by the processes the tests start; a test of
# installed plugins asks for them back with the `installed_plugins` fixture.
os.environ["JITLAB_PLUGINS"] = "0"

# No per-example time limit: a busy CI machine must not turn a slow example into a failure.
settings.register_profile("jitlab", deadline=None)
settings.load_profile("jitlab")

pytest_plugins = ["pytester"]  # the compile_budget plugin is tested in process

# Qt: where PySide6 or pytest-qt is absent (a TPU VM, nox's JAX sessions), every test that
# needs a Qt window skips, saying why: those that ask for qtbot (the stand-in below), those in
# qt_tests.NEEDS_QT, and the files that import Qt at their top (pytest.importorskip there).
HAS_QT = all(importlib.util.find_spec(name) is not None for name in ("PySide6", "pytestqt"))
NO_QT = "needs Qt: PySide6 and pytest-qt are not installed here"

if not HAS_QT:

    @pytest.fixture
    def qtbot() -> None:
        pytest.skip(NO_QT)

    def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
        for item in items:
            if item.nodeid.split("[")[0] in NEEDS_QT:
                item.add_marker(pytest.mark.skip(reason=NO_QT))


@pytest.fixture
def installed_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Discovery loads installed plugins again for this test (and the processes it starts)."""
    monkeypatch.delenv("JITLAB_PLUGINS", raising=False)


EXAMPLE_PLUGIN = Path(__file__).resolve().parents[1] / "examples" / "plugin"


@pytest.fixture(scope="session")
def example_plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``examples/plugin`` pip-installed, as its README says, into a folder of its own: on
    PYTHONPATH (or sys.path) it is an installed plugin, entry point and all. No index and no
    dependencies (jitlab is this checkout); hatchling, a test dependency, builds it."""
    site = tmp_path_factory.mktemp("example-plugin-site")
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index"]
    command += ["--no-build-isolation", "--target", str(site), str(EXAMPLE_PLUGIN)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    return site


def pytest_addoption(parser: pytest.Parser) -> None:
    # Here, not in tests/differential/: pytest reads options only from the first conftest.
    parser.addoption(
        "--differential-examples",
        type=int,
        default=None,
        help="generated programs per test of tests/differential (default: the CI budget)",
    )


@pytest.fixture
def explainer_handed() -> Iterator[list[tuple[str, int]]]:
    """From JAX 0.10: what JAX hands jitlab's cache-miss explainer while the test runs, as
    (the function's name, how many keys), by a counting wrapper in JAX's explainer cell
    (taken out after). Below 0.10 JAX keeps each function's keys apart: the test skips."""
    from jitlab.probe import _jax, monitor

    monitor.install()
    found = _jax._tracing_explainer()
    if found is None:
        pytest.skip("below 0.10 JAX keeps each function's keys apart: no list to count")
    _, cell = found
    explainer = cell.cell_contents
    handed: list[tuple[str, int]] = []

    def counting(keys, fun, *args, **kwargs):
        handed.append((getattr(fun, "__name__", "?"), len(keys)))
        return explainer(keys, fun, *args, **kwargs)

    counting.gate = explainer.gate  # type: ignore[attr-defined]
    counting.__wrapped__ = explainer.__wrapped__  # type: ignore[attr-defined]
    cell.cell_contents = counting
    try:
        yield handed
    finally:
        cell.cell_contents = explainer
