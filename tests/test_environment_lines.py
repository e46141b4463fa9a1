"""The helper that leaves JAX's lines about the machine out of a process's stderr."""

from __future__ import annotations

import tomllib
import warnings
from pathlib import Path

from environment_lines import about_the_machine, program_lines

ROOT = Path(__file__).resolve().parents[1]

# As a TPU v5e VM prints it at every `import jax` (jax 0.10.2, 2026-12).
_HUGEPAGES = (
    "/usr/local/lib/python3.11/site-packages/jax/_src/cloud_tpu_init.py:88: UserWarning: "
    "Transparent hugepages are not enabled. TPU runtime startup and shutdown time should be "
    "significantly improved on TPU v5e and newer. If not already set, you may need to enable "
    'transparent hugepages in your VM image (sudo sh -c "echo always > '
    '/sys/kernel/mm/transparent_hugepage/enabled")'
)


def test_jaxs_lines_about_the_machine_are_left_out_and_the_programs_kept():
    stderr = "\n".join(
        [
            _HUGEPAGES,
            "  warnings.warn(",
            "I0000 00:00:1733389200.123456   4242 tpu_client.cc:123] libtpu initialized",
            "WARNING: All log messages before absl::InitializeLog() is called are written to "
            "STDERR",
            "jitlab: error: watch: no program given",
            "  warnings.warn(",  # not under a warning about the machine: the program's
        ]
    )
    assert program_lines(stderr) == ["jitlab: error: watch: no program given", "  warnings.warn("]


def test_the_programs_own_warnings_are_kept_even_from_jax():
    # A warning about the program (a deprecation, its own words) is the program's: only what
    # JAX says about the machine goes.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("Transparent hugepages are not enabled", UserWarning, stacklevel=1)
    (warning,) = caught
    mine = warnings.formatwarning(
        warning.message, warning.category, warning.filename, warning.lineno
    )
    assert program_lines(mine)[0].endswith("UserWarning: Transparent hugepages are not enabled")
    deprecated = "/x/site-packages/jax/_src/numpy/lax_numpy.py:12: DeprecationWarning: jnp.foo"
    assert not about_the_machine(deprecated)
    assert about_the_machine(_HUGEPAGES)


def test_the_suites_warning_filters_pass_words_about_the_machine_and_nothing_else(pytester):
    # The suite's own filterwarnings (pyproject.toml), in a pytest run of their own: JAX's
    # hugepages warning at import and pytest-benchmark's at configure (both as the machines
    # raise them) pass; any other warning is still an error.
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    filters = options["tool"]["pytest"]["ini_options"]["filterwarnings"]
    pytester.makeini("[pytest]\nfilterwarnings =\n" + "".join(f"    {f}\n" for f in filters))
    pytester.makeconftest(
        """
        import warnings
        import pytest

        class PytestBenchmarkWarning(pytest.PytestWarning):  # pytest_benchmark.logger's
            pass

        def pytest_configure(config):
            warnings.warn(PytestBenchmarkWarning(
                "Benchmarks are automatically disabled because xdist plugin is active."
                "Benchmarks cannot be performed reliably in a parallelized environment."
            ))
        """
    )
    pytester.makepyfile(
        f"""
        import warnings

        warnings.warn_explicit(
            {_HUGEPAGES.split(": ", 2)[2]!r}, UserWarning, "/x/jax/_src/cloud_tpu_init.py", 88
        )

        def test_a_warning_about_the_program_is_still_an_error():
            warnings.warn("the program's own", UserWarning)

        def test_the_rest_runs():
            pass
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=1, failed=1)
