"""Records survive a round trip through JSON (recordings and exports are read back)."""

import json

import jax.numpy as jnp

from jitlab import CallRecord, Probe, reason_text


def test_records_round_trip_through_json():
    def f(x, n):
        print("tracing")
        return jnp.repeat(x, n)

    probe = Probe(f, static_argnames=("n",), keep_going=True)
    probe(jnp.ones(2), n=2)
    probe(jnp.ones(2), n=2)
    probe(jnp.ones(3), n=2)
    probe(jnp.ones((2, 2)), n=jnp.ones(2))  # unhashable static: an error record
    for record in probe.records:
        data = json.loads(json.dumps(record.to_json()))
        back = CallRecord.from_json(data)
        again, original = back.to_json(), record.to_json()
        # execute_ms is derived from the (rounded) phases: equal up to the rounding.
        assert abs(again.pop("execute_ms") - original.pop("execute_ms")) < 1e-3
        assert again == original
        assert back.kind is record.kind and back.signature == record.signature


def test_a_line_without_latency_reads_back_with_its_phases_as_latency():
    line = {
        "function": "step",
        "kind": "recompile",
        "latency_ms": None,
        "trace_ms": 1.0,
        "lower_ms": 2.0,
        "compile_ms": 3.0,
        "reason": {"changes": ["x: f32[4] ← f32[8]"]},
    }
    record = CallRecord.from_json(line)
    assert record.latency_ms == 6.0 and reason_text(record.reason) == "x: f32[4] ← f32[8]"
