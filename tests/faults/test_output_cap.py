"""A call that prints without end keeps a bounded record, with an exact count of the rest."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp

from jitlab.probe import monitor
from jitlab.probe.probe import Probe


def test_a_hundred_thousand_printed_lines_keep_a_bounded_record_and_an_exact_count():
    def chatty(x):
        for i in range(100_000):
            print(f"line {i}")
        return x + 1

    probe = Probe(jax.jit(chatty))
    probe(jnp.ones(2))
    stdout = probe.records[0].stdout
    assert len(stdout) == monitor.MAX_LINES_PER_CALL + 1
    assert stdout[0].text == "line 0" and stdout[0].when == "trace"
    kept = monitor.MAX_LINES_PER_CALL
    assert stdout[-1].text == f"… {100_000 - kept} more lines"
    assert len(json.dumps(probe.records[0].to_json())) < 100_000


def test_one_huge_line_is_cut_to_a_readable_length():
    def shout(x):
        print("x" * 1_000_000)
        return x

    probe = Probe(jax.jit(shout))
    probe(jnp.ones(2))
    assert len(probe.records[0].stdout[0].text) == monitor.MAX_CHARS_PER_LINE
