"""A long-running probe keeps a bounded list of records, with exact counts over every call."""

from __future__ import annotations

import threading

import jax
import jax.numpy as jnp

from jitlab import Probe
from jitlab.core.records import CallKind


def test_records_bounded_counts_exact():
    probe = Probe(jax.jit(lambda x: x * 2), max_records=100)
    calls = 3000
    for i in range(calls):
        # Three shapes: two recompiles early, then cache hits on three cards (keyed path).
        probe(jnp.ones(4 + (i % 3) if i < 300 else 4))
    assert len(probe.records) <= 100
    assert probe.records[-1].index == calls - 1  # the newest are the ones kept
    assert [r.index for r in probe.records] == list(range(calls - len(probe.records), calls))
    assert probe.dropped_records + len(probe.records) == calls
    summary = probe.summary()
    assert summary.calls == probe.calls == calls
    assert (summary.compiles, summary.recompiles) == (1, 2)
    assert summary.cache_hits == calls - 3
    assert summary.trace_ms > 0 and summary.compile_ms > 0
    counts = probe.ledger.counts
    assert counts[CallKind.CACHE_HIT] == calls - 3
    assert counts[CallKind.COMPILE] == 1 and counts[CallKind.RECOMPILE] == 2
    assert probe.ledger.calls == calls
    # The compiles long gone from records are still there.
    kinds = [r.kind for r in probe.notable]
    assert kinds == [CallKind.COMPILE, CallKind.RECOMPILE, CallKind.RECOMPILE]
    assert [r.index for r in probe.notable] == [0, 1, 2]
    assert sum(card.hits for card in probe.ledger.cards) == calls - 3


def test_summary_exact_when_records_not_kept_or_hits_not_recorded():
    for options in ({"keep_records": False}, {"record_hits": False, "block": False}):
        probe = Probe(jax.jit(lambda x: x + 1), **options)
        for _ in range(500):
            probe(jnp.ones(3))
        probe(jnp.ones(5))  # a recompile after the hits
        summary = probe.summary()
        counted = (summary.calls, summary.compiles, summary.recompiles, summary.cache_hits)
        assert counted == (501, 1, 1, 499), options
        assert summary.errors == summary.persistent_hits == summary.eager == 0
        assert probe.ledger.counts[CallKind.CACHE_HIT] == 499
        assert probe.last.kind is CallKind.RECOMPILE and probe.last.index == 500


def test_errors_counted_past_the_cap():
    probe = Probe(jax.jit(lambda x: x.reshape(7)), keep_going=True, max_records=10)
    for _ in range(50):
        probe(jnp.ones(4))  # fails while tracing every time
    assert len(probe.records) <= 10 and len(probe.notable) <= 10
    assert probe.summary().errors == 50 == probe.ledger.counts[CallKind.ERROR]


def test_counts_exact_from_several_threads():
    probe = Probe(jax.jit(lambda x: x * 3), max_records=50)
    probe(jnp.ones(2))
    per_thread = 400

    def work() -> None:
        for _ in range(per_thread):
            probe(jnp.ones(2))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    total = 1 + 4 * per_thread
    assert probe.summary().calls == total and probe.summary().cache_hits == total - 1
    assert probe.ledger.counts[CallKind.CACHE_HIT] == total - 1
    assert len(probe.records) <= 50
    assert sorted(r.index for r in probe.records) == [r.index for r in probe.records]


def test_records_since_survives_trimming():
    probe = Probe(jax.jit(lambda x: -x), max_records=20)
    seen = []
    for _ in range(100):
        before = probe.calls
        probe(jnp.ones(2))
        new = probe.records_since(before)
        assert [r.index for r in new] == [before]
        seen.extend(new)
    assert [r.index for r in seen] == list(range(100))
