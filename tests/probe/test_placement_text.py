"""One signature text per executable: two cards of a function read alike exactly when they are
one card, placement included — an array committed to ``cpu:0`` or ``cpu:1`` or left
uncommitted, on meshes that differ only in their device order or axis types, in another
memory. Checked against JAX's own ``jax_log_compiles`` in the same run, on two simulated CPU
devices (placement_run.py, in a process of its own: XLA reads the device count at start).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def pairs() -> list[dict]:
    done = subprocess.run(
        [sys.executable, str(HERE / "placement_run.py")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    # Hypothesis's sequences (probed and watched) are checked in the child: its failure
    # names the falsifying case.
    said = [line for line in done.stderr.splitlines() if not line.startswith("jitlab: ")]
    assert done.returncode == 0, "\n".join(said[-80:])  # (jitlab's diagnoses left out)
    return json.loads(done.stdout.splitlines()[-1])["pairs"]


def test_each_pair_has_one_text_per_executable_jax_compiled(pairs):
    for p in pairs:
        assert len(p["cards"]) == p["jax"], p  # one card per executable
        assert len(set(p["cards"])) == len(p["cards"]), p  # and each its own text
        for text, card in p["calls"]:
            assert text == p["cards"][card], p  # a hit reads as the card it hit


def _pair(pairs: list[dict], a: str, b: str) -> dict:
    return next(p for p in pairs if {p["a"], p["b"]} == {a, b})


def test_placement_reads_in_the_words_reasons_use(pairs):
    committed = _pair(pairs, "cpu:0", "uncommitted")
    assert sorted(committed["cards"]) == ["x: f32[4]", "x: f32[4] @ cpu:0"]
    moved = _pair(pairs, "cpu:0", "cpu:1")
    assert moved["cards"] == ["x: f32[4] @ cpu:0", "x: f32[4] @ cpu:1"]
    assert moved["reason"] == "device of x: cpu:1 ← cpu:0"  # named once
    # Where JAX places the array where the call runs, wherever it lives: one card, no words.
    assert _pair(pairs, "uncommitted", "uncommitted made on cpu:1")["cards"] == ["x: f32[4]"]
    assert _pair(pairs, "numpy", "uncommitted")["cards"] == ["x: f32[4]"]
    # Meshes: the layout, and what else tells two apart (the default mesh reads as before).
    backwards = _pair(pairs, "mesh split", "mesh split, devices backwards")
    assert backwards["cards"] == [
        "x: f32[4] @ P('x',) on mesh(x=2)",
        "x: f32[4] @ P('x',) on mesh(x=2 on cpu:1,cpu:0)",
    ]
    explicit = _pair(pairs, "mesh split", "mesh split, explicit axis")
    assert explicit["cards"][1] == "x: f32[4] @ P('x',) on mesh(x=2 explicit)"
    one = _pair(pairs, "one-device mesh on cpu:0", "one-device mesh on cpu:1")
    assert one["cards"] == ["x: f32[4] @ P() on mesh(x=1)", "x: f32[4] @ P() on mesh(x=1 on cpu:1)"]
    equivalent = _pair(pairs, "mesh replicated", "mesh replicated P(None)")
    assert equivalent["jax"] == 1 and equivalent["cards"] == ["x: f32[4] @ P() on mesh(x=2)"]
    memory = [p for p in pairs if {p["a"], p["b"]} == {"cpu:0", "cpu:0, another memory"}]
    for p in memory:  # where this JAX's CPU has another memory (pinned_host)
        assert p["cards"][1].startswith("x: f32[4] @ cpu:0 ") and p["jax"] == 2
