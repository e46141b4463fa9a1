"""Shared test setup: headless Qt before anything imports it."""

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# On a GPU machine each process would take 75% of the GPU's memory at start: parallel workers
# and the subprocesses the tests start (they inherit this) would not fit side by side.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

# No per-example time limit: a busy CI machine must not turn a slow example into a failure.
settings.register_profile("jitlab", deadline=None)
settings.load_profile("jitlab")

pytest_plugins = ["pytester"]  # the compile_budget plugin is tested in process


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
