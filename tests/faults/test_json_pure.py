"""`--json` output is JSON lines only, whatever JAX prints to stdout meanwhile (JAX 0.11 and
0.12 print a debug line from pjit.py on an uneven-sharding error). The fault is injected for
real: a sitecustomize makes JAX's own `device_put` print a line to stdout first, as those
versions' pjit.py does, in a real `jitlab` subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

NOISY_JAX = """
import sys
import jax

_put = jax.device_put


def device_put(*args, **kwargs):
    print("pjit debug: a line JAX printed")  # what jax/_src/pjit.py prints on 0.11-0.12
    return _put(*args, **kwargs)


jax.device_put = device_put
"""


def _jitlab(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "sitecustomize.py").write_text(NOISY_JAX, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])),
    }
    command = list(args) if args[0] == "-m" else ["-m", "jitlab.cli", *args]
    return subprocess.run(
        [sys.executable, *command],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=tmp_path,
    )


@pytest.mark.parametrize(
    "args",
    [
        ("run", "sharding", "--param", "layout=rows,features", "--json"),
        ("run", "sharding", "--compare", "--json"),
        ("quiz", "--exercise", "uneven-split", "--answer", "ValueError", "--json"),
        ("-m", "jitlab.cli.quiz", "--solve", "--scenario", "sharding", "--json"),
    ],
    ids=["run", "compare", "quiz", "python -m jitlab.cli.quiz"],
)
def test_json_lines_stay_pure_when_jax_prints(tmp_path: Path, args: tuple[str, ...]) -> None:
    done = _jitlab(tmp_path, *args)
    assert done.returncode in (0, 1), done.stderr
    lines = done.stdout.splitlines()
    assert lines, done.stderr
    for line in lines:
        json.loads(line)  # every line of stdout is JSON
    # What JAX printed is not lost: it went to stderr.
    assert "pjit debug: a line JAX printed" in done.stderr
