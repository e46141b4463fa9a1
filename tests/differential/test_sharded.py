"""Generated programs with shardings on simulated CPU devices (a mesh's, a device's), in a
process of its own: XLA takes the device count only before JAX starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .known import known

pytestmark = pytest.mark.slow

CHILD = Path(__file__).parent / "sharded.py"


def _child(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    return subprocess.run(
        [sys.executable, str(CHILD), *args],
        capture_output=True,
        text=True,
        timeout=1800,
        env=env,
        check=False,
    )


def test_shardings_on_simulated_devices(request: pytest.FixtureRequest) -> None:
    chosen = request.config.getoption("--differential-examples")
    examples = chosen if chosen is not None else 60
    done = _child(str(examples))
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-6000:]
    assert f"{examples} sharded programs agree" in done.stdout


@known("device-beside")
@pytest.mark.parametrize("case", ["device-beside", "device-and-shape", "device-and-tree"])
def test_a_move_to_another_device_beside_another_change_is_named(case: str) -> None:
    # Beside x64, beside a shape, beside a structure; to or from an uncommitted array.
    done = _child("--case", case)
    assert done.returncode == 0, done.stderr[-3000:]
