"""What each part of a probed hit costs after the sync, against the bare synced call, in one run.

    python benchmarks/after_sync_anatomy.py [--calls N]

The after-the-sync figure of probe_overhead.py compares the probe with ~2 µs (warm) of plain
Python bookkeeping after the same sync. This script takes the probe apart, the ways
interleaved in blocks of 10: a Python frame
around the call that waits (the least any Python-level wrapper costs), the same with a
thread-local publish and two clock reads (the least any probe that times and routes a call
costs), the same frame with the checks a probe makes before the dispatch, or with ten
objects read after the wait (each side's cold price), then the probe with its parts switched
on one by one (counted only; recorded; its
output captured, the default). It also prints how long the dispatch itself takes to return
against the whole synced call: Python that runs between the two is hidden behind the device's
work only where the dispatch returns early. Medians of the per-round excess over bare, with a
95 % interval of each from resampling the rounds (``probe_overhead.pooled_medians``).
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
import types

import jax
import numpy as np
from probe_overhead import _bookkeeping, interleave, make_trivial, pooled_medians

from jitlab import Probe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000, help="cache hits of each way")
    args = parser.parse_args()
    fn, fn_args = make_trivial()
    bare = jax.jit(fn)
    sync = type(bare(*fn_args)).block_until_ready
    inner = jax.jit(lambda *a: fn(*a))
    tls = threading.local()
    clock = time.perf_counter

    def frame(*a):
        out = inner(*a)
        sync(out)
        return out

    def frame_tls_clocks(*a):
        tls.collector = frame
        start = clock()
        out = inner(*a)
        tls.collector = None
        sync(out)
        tls.end = clock() - start
        return out

    # What a probe reads before the dispatch (the checks of jitlab.probe.probe, read through
    # its own bindings), and ten distinct objects read after the wait: each side's cold price.
    from jitlab.probe import probe as hot

    spares = threading.local()
    spares.collector = frame
    objects = [types.SimpleNamespace(v=1) for _ in range(10)]

    def frame_checks(*a):
        if getattr(hot._tls, "collector", None) is not None:
            raise RuntimeError
        if hot._TRACE_STATE.value is not hot._EVAL_TRACE or hot._disable_jit.value:
            raise RuntimeError
        if hot._MONITORING._event_duration_secs_listeners is not hot._LISTENING[0]:
            raise RuntimeError
        getattr(spares, "collector", None)
        out = inner(*a)
        sync(out)
        return out

    def frame_reads_after(*a):
        out = inner(*a)
        sync(out)
        for o in objects:
            o.v  # noqa: B018 - the read is the point
        return out

    def probe(**options):
        return Probe(jax.jit(lambda *a: fn(*a)), keep_records=False, **options)

    counted = probe(capture_output=False, record_hits=False)
    recorded = probe(capture_output=False)
    default = probe()
    ways = {
        "control: plain Python bookkeeping": lambda: (
            sync(bare(*fn_args)),
            _bookkeeping(),
            _bookkeeping(),
            _bookkeeping(),
        ),
        "a Python frame that waits": lambda: frame(*fn_args),
        "  + a thread-local and two clocks": lambda: frame_tls_clocks(*fn_args),
        "  + a probe's five checks before it": lambda: frame_checks(*fn_args),
        "  + ten objects read after the wait": lambda: frame_reads_after(*fn_args),
        "probe, counted only": lambda: counted(*fn_args),
        "probe, recorded": lambda: recorded(*fn_args),
        "probe, output captured (default)": lambda: default(*fn_args),
    }
    for way in ways.values():
        way()  # compiled: every call below is a cache hit
    block = 10
    names = ["bare", *ways]
    calls = [lambda: sync(bare(*fn_args)), *ways.values()]
    rounds = max(1, args.calls // block)
    times = np.zeros((len(calls), rounds, block))
    returned: list[float] = []
    for r in range(rounds):
        for _ in range(block):
            t0 = clock()
            out = bare(*fn_args)
            returned.append(clock() - t0)
            sync(out)
        interleave(calls, times, r)
    medians, boot = pooled_medians(times * 1e6)
    print(f"jax {jax.__version__} on {jax.default_backend()}; {args.calls} cache hits each way")
    print(
        f"the bare call: {medians[0]:.1f} µs synced, of which the dispatch "
        f"returned after {statistics.median(returned) * 1e6:.1f} µs"
    )
    print(f"{'over the bare synced call (µs)':<36}{'median':>8}   95 % interval")
    for w, name in enumerate(names[1:], start=1):
        low, high = np.percentile(boot[:, w] - boot[:, 0], [2.5, 97.5])
        print(f"  {name:<34}{medians[w] - medians[0]:>+8.2f}   {low:+.2f} … {high:+.2f}")


if __name__ == "__main__":
    main()
