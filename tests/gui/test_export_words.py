"""The app's exports keep the reason's English words (the CSV's ``reason`` column, the JSON's
``changes`` and ``text``), though a record's own JSON now holds only the data."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import jax.numpy as jnp

from jitlab.gui.views.export import calls_csv, calls_json
from jitlab.gui.views.model import RunState
from jitlab.probe.probe import Probe


def test_exports_write_the_reason_in_english(tmp_path: Path) -> None:
    probe = Probe(lambda x: x * 2)
    probe(jnp.ones(8))
    probe(jnp.ones(16))
    state = RunState()
    for record in probe.records:
        state.call_finished(record)

    calls_csv(list(state.records), tmp_path / "calls.csv")
    with (tmp_path / "calls.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [row["reason"] for row in rows] == [
        "first call: nothing compiled yet",
        "x: f32[16] ← f32[8]",
    ]

    calls_json("s", state, tmp_path / "calls.json")
    calls = json.loads((tmp_path / "calls.json").read_text(encoding="utf-8"))["calls"]
    reason = calls[1]["reason"]
    assert reason["changes"] == ["x: f32[16] ← f32[8]"] and reason["text"] == "x: f32[16] ← f32[8]"
    assert reason["items"][0]["kind"] == "shape"
