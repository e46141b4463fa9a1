"""One probe called from four threads at once: every hit is filed under the card it used."""

from __future__ import annotations

import collections
import random
import threading

import jax
import jax.numpy as jnp

from jitlab.probe.probe import Probe
from jitlab.records.calls import CallKind


def test_hits_from_four_threads_are_filed_under_the_right_card():
    probe = Probe(jax.jit(lambda x: x * 2))
    sizes = (8, 16, 32, 64)
    made = collections.Counter()
    lock = threading.Lock()
    inputs = {n: jnp.ones(n) for n in sizes}

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(250):
            n = rng.choice(sizes)
            probe(inputs[n])
            with lock:
                made[n] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    by_size = {card.signature.leaves[0].shape[0]: card for card in probe.ledger.cards}
    assert sorted(by_size) == sorted(sizes)  # one card per signature
    filed = collections.Counter(probe.records[i].card for i in range(len(probe.records)))
    for n, card in by_size.items():
        assert filed[card.index] == made[n], (n, filed, made)
        compiled = sum(r.kind.compiled and r.card == card.index for r in probe.records)
        assert card.hits == made[n] - compiled
    assert len(probe.records) == 1000
    assert all(r.kind is CallKind.CACHE_HIT or r.kind.compiled for r in probe.records)
