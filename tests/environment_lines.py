"""A process's stderr less the lines JAX and its runtime print about the machine.

On a TPU VM every ``import jax`` warns that transparent hugepages are off (``cloud_tpu_init``);
JAX says when it falls back to the CPU beside a GPU or TPU it cannot use; XLA's and libtpu's
C++ code logs through absl (``I1205 12:00:00.000000  4242 file.cc:12] …``). None of it is the
program's or jitlab's: a test that reads a subprocess's stderr line by line reads
:func:`program_lines`. A new line of this kind belongs in ``_ENVIRONMENT`` (with where it was
seen), never in a test of its own.
"""

from __future__ import annotations

import re

# What JAX says about the machine, as the message of a Python warning or a log line.
_ABOUT_THE_MACHINE = (
    "Transparent hugepages are not enabled",  # cloud_tpu_init on a TPU v5e VM (seen 2026-12)
    "TPU backend initialization is taking more than",  # xla_bridge, a slow TPU start
    "An NVIDIA GPU may be present on this machine",  # xla_bridge, no CUDA jaxlib
    "A Google TPU may be present on this machine",  # xla_bridge, no libtpu
)
_ENVIRONMENT = (
    # A Python warning raised in JAX's own files: "…/jax/_src/cloud_tpu_init.py:88:
    # UserWarning: Transparent hugepages …" (its source line follows, see program_lines).
    re.compile(
        r"^\S*[\\/](?:jax|jaxlib|libtpu)[\\/]\S*\.py:\d+: \w*Warning: (?:"
        + "|".join(re.escape(words) for words in _ABOUT_THE_MACHINE)
        + ")"
    ),
    # JAX's logging of the same, with no handler configured (logging's last resort).
    re.compile("^(?:" + "|".join(re.escape(words) for words in _ABOUT_THE_MACHINE) + ")"),
    # absl / glog lines of XLA's and libtpu's C++ runtime.
    # "I1205 12:00:00.000000  42 a.cc:1] " (before absl::InitializeLog: "I0000 00:00:<epoch s>")
    re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d+\.\d+\s+\d+ \S+:\d+\] "),
    re.compile(r"^WARNING: All log messages before absl::InitializeLog\(\) is called"),
)
# The source line Python's warning display prints under a warning it could read the file of.
_WARN_SOURCE = re.compile(r"^\s+warnings\.warn\(")


def about_the_machine(line: str) -> bool:
    """Is ``line`` one JAX or its runtime printed about the machine?"""
    return any(pattern.match(line) for pattern in _ENVIRONMENT)


def program_lines(stderr: str) -> list[str]:
    """The lines of ``stderr`` (no line ends) that are not about the machine."""
    kept: list[str] = []
    skipping_source = False
    for line in stderr.splitlines():
        if about_the_machine(line):
            skipping_source = True
            continue
        if skipping_source and _WARN_SOURCE.match(line):
            skipping_source = False
            continue
        skipping_source = False
        kept.append(line)
    return kept
