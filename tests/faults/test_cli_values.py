"""Fault table, the command line: a parameter given twice is refused, never half-used.

The real `jitlab` command in a subprocess: `--param NAME=...` twice used to keep only the
last one silently; it is now one line and exit 2, before any JAX work.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from environment_lines import program_lines

pytestmark = pytest.mark.slow

JITLAB = Path(sys.executable).with_name("jitlab")
PARAMS = ("--param", "batch_size=8,16", "--param", "seq_len=4")


def test_a_param_given_twice_is_one_line_and_exit_2() -> None:
    done = subprocess.run(
        [
            str(JITLAB),
            "run",
            "dynamic-shapes",
            "--param",
            "batch_size=8",
            "--param",
            "batch_size=16",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(program_lines(done.stderr)) == 1 and "Traceback" not in done.stderr
    assert "--param batch_size is given twice" in done.stderr


def test_two_different_params_are_both_used() -> None:
    done = subprocess.run(
        [str(JITLAB), "run", "dynamic-shapes", "--json", *PARAMS],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    calls = [json.loads(line) for line in done.stdout.splitlines()][:-1]
    assert [(c["params"]["batch_size"], c["params"]["seq_len"]) for c in calls] == [(8, 4), (16, 4)]
