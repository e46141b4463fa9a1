"""`jitlab run S --compare --param …`: the lesson's note speaks of the lesson's own calls, so
it is left out when --param replaces them (issue 42: "all nine sizes" said of six calls)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow


def _compare(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "jitlab.cli", "run", "dynamic-shapes", "--compare", "--json", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])["compare"]


def test_the_note_is_said_only_on_the_lesson_s_own_calls() -> None:
    own = _compare("--param", "depth=1")  # one value on every call: still the lesson's sizes
    assert own["calls"] == 9 and "all nine sizes" in own["note"]
    other = _compare("--param", "batch_size=8,8,16,8,32,8", "--param", "depth=1")
    assert other["calls"] == 6 and other["note"] is None
    assert other["verdict"].startswith("The pitfall compiled 3 times in 6 calls")
