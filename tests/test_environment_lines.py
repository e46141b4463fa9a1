"""The helper that leaves JAX's lines about the machine out of a process's stderr."""

from __future__ import annotations

import warnings

from environment_lines import about_the_machine, program_lines

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
