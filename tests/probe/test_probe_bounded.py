"""A long-running probe keeps a bounded list of records, with exact counts over every call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import jax
import jax.numpy as jnp
import pytest

from jitlab import Probe
from jitlab.probe.store import SETTLE_AT as _SETTLE_AT
from jitlab.records.calls import CallKind

pytestmark = pytest.mark.slow


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


# -- steady hits are filed after their call (see RecordStore.settle) ------------------------------
def test_steady_hit_records_are_exact_when_read():
    """A steady hit's record is made after its call returns; what a reader sees is the same:
    every call, in order, each with its own latency."""
    probe = Probe(jax.jit(lambda x: x * 5))
    x = jnp.ones(3)
    walls = []
    for i in range(50):
        start = time.perf_counter()
        probe(x)
        walls.append((time.perf_counter() - start) * 1e3)
        assert probe.last.index == i  # last is the call just made, every time
    records = probe.records
    assert [r.index for r in records] == list(range(50))
    assert [r.kind for r in records] == [CallKind.COMPILE] + [CallKind.CACHE_HIT] * 49
    for record, wall in zip(records[1:], walls[1:], strict=True):
        assert 0 < record.latency_ms <= wall  # measured inside the call, not after it
        assert record.card == 0 and record.signature == records[0].signature
    assert probe.ledger.cards[0].hits == 49


def test_unread_steady_hits_stay_bounded():
    probe = Probe(jax.jit(lambda x: x - 1), max_records=5000)
    x = jnp.ones(2)
    most = 0
    for _ in range(3 * _SETTLE_AT):
        probe(x)
        most = max(most, len(probe._unfiled))
    assert most <= _SETTLE_AT + 1  # filed a batch at a time, never left to grow
    assert len(probe.records) == 3 * _SETTLE_AT and not probe._unfiled
    assert [r.index for r in probe.records] == list(range(3 * _SETTLE_AT))


def test_hits_and_other_calls_are_filed_in_call_order():
    probe = Probe(jax.jit(lambda x: x + 2), keep_going=True)
    for n in (2, 2, 2, 3, 3, 2, 2):  # steady hits before a recompile, then keyed hits
        probe(jnp.ones(n))
    kinds = [r.kind.value for r in probe.records]
    assert (
        kinds == ["compile", "cache_hit", "cache_hit", "recompile", "cache_hit"] + ["cache_hit"] * 2
    )
    assert [r.index for r in probe.records] == list(range(7))


# Run in a fresh interpreter: in a worker that ran GUI tests, a finalizer of a leftover Qt
# object can run on the main thread and swallow the interrupt before the probe sees it.
_INTERRUPTED_CHILD = """
import _thread, json, signal, sys, threading, time
# A process started in the background inherits SIGINT ignored, and then interrupt_main()
# does nothing: give Ctrl-C Python's own handler, as in a terminal.
signal.signal(signal.SIGINT, signal.default_int_handler)
import jax, jax.numpy as jnp
from jitlab import Probe
from jitlab.probe.store import OPEN
from jitlab.records.calls import CallKind

def spin(x, n):
    return jax.lax.fori_loop(0, n, lambda i, y: jnp.tanh(y @ y), x)

probe = Probe(jax.jit(spin))
x = jnp.eye(256) * 0.5
probe(x, 1)  # compiles; n is traced, so the long call below is a steady hit
for _ in range(int(sys.argv[1])):
    probe(x, 1)  # steady hits before: the long call then takes the steady path
stdout = sys.stdout

def interrupt_once_filed():
    # The hit is filed (its head waits for an end time) before the call blocks.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        unfiled = list(probe._unfiled)
        if unfiled and unfiled[-1][4] is OPEN:
            _thread.interrupt_main()
            return
        time.sleep(0.0005)

interrupter = threading.Thread(target=interrupt_once_filed)
interrupter.start()
try:
    probe(x, 5000)  # runs ~1-2 s: the interrupt lands while it waits
    raised = None
except KeyboardInterrupt:
    raised = "KeyboardInterrupt"
interrupter.join()
facts = {"raised": raised, "stdout_back": sys.stdout is stdout}
last = probe.last
facts["interrupted"] = [last.index, last.kind.value, last.error and last.error.type]
facts["hits_after_interrupt"] = probe.ledger.cards[0].hits
probe(x, 1)  # the lock is free and the probe still files hits
facts["next"] = [probe.last.index, probe.last.kind.value, probe.ledger.cards[0].hits]
summary = probe.summary()
facts["summary"] = [summary.cache_hits, summary.errors]
facts["indices"] = [r.index for r in probe.records]
print(json.dumps(facts))
"""


@pytest.mark.parametrize("before", [0, 2], ids=["first-hit", "steady-path"])
def test_an_interrupted_wait_is_not_a_hit_and_the_probe_goes_on(before):
    """Ctrl-C while a steady hit waits for the device: the call is filed as interrupted,
    not as a hit, sys.stdout is the user's again, and the next call works (no lock held);
    on the first steady hit and on the steady path that later ones take."""
    done = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED_CHILD, str(before)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "JAX_PLATFORMS": "cpu"},
    )
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts["raised"] == "KeyboardInterrupt"
    assert facts["stdout_back"] is True
    assert facts["interrupted"] == [1 + before, "error", "KeyboardInterrupt"]
    assert facts["hits_after_interrupt"] == before
    assert facts["next"] == [2 + before, "cache_hit", 1 + before]
    assert facts["summary"] == [1 + before, 1]
    assert facts["indices"] == list(range(3 + before))
