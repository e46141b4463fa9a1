"""A probe printed at a plain Python prompt: one informative line, and printing it changes
nothing the probe records."""

from __future__ import annotations

import jax.numpy as jnp

from jitlab import Probe


def test_repr_names_the_function_its_counts_and_cards():
    def double(x):
        return x * 2

    probe = Probe(double)
    assert repr(probe) == (
        "<Probe 'double': calls=0 compiles=0 recompiles=0 hits=0 errors=0 cards=0>"
    )
    for n in (3, 3, 4, 3):
        probe(jnp.ones(n))
    assert probe.cache_entries() == 2  # JAX's own count: two programs
    assert repr(probe) == (
        "<Probe 'double': calls=4 compiles=1 recompiles=1 hits=2 errors=0 cards=2>"
    )


def test_printing_changes_nothing_the_probe_records():
    probe = Probe(lambda x: x + 1, name="inc", record_hits=False)
    probe(jnp.ones(2))
    probe(jnp.ones(2))  # a hit only counted
    before = (probe.records, probe.notable, probe.summary(), probe.calls)
    for _ in range(3):
        repr(probe)
        str(probe)
    assert (probe.records, probe.notable, probe.summary(), probe.calls) == before
    probe(jnp.ones(2))
    assert probe.summary().cache_hits == 2 and probe.calls == 3


def test_a_half_built_probe_still_prints():
    probe = Probe.__new__(Probe)  # as after an __init__ that raised
    assert repr(probe).startswith("<Probe at 0x")
