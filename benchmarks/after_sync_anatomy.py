"""What each part of a probed hit costs after the sync, against the bare synced call, in one run.

    python benchmarks/after_sync_anatomy.py [--calls N]

The after-the-sync figure of probe_overhead.py compares the probe with ~2 µs (warm) of plain
Python bookkeeping after the same sync. This script takes the probe apart, the ways
interleaved in blocks of 10 and each block against the bare block before it: a Python frame
around the call that waits (the least any Python-level wrapper costs), the same with a
thread-local publish and two clock reads (the least any probe that times and routes a call
costs), then the probe with its parts switched on one by one (counted only; recorded; its
output captured, the default). It also prints how long the dispatch itself takes to return
against the whole synced call: Python that runs between the two is hidden behind the device's
work only where the dispatch returns early. Medians of the per-round excess over bare, with a
95 % bootstrap interval of each median.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

import jax
from probe_overhead import _bookkeeping, _median_interval, make_trivial

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
        "probe, counted only": lambda: counted(*fn_args),
        "probe, recorded": lambda: recorded(*fn_args),
        "probe, output captured (default)": lambda: default(*fn_args),
    }
    for way in ways.values():
        way()  # compiled: every call below is a cache hit
    block = 10
    excess: dict[str, list[float]] = {name: [] for name in ways}
    returned: list[float] = []
    synced: list[float] = []
    for _ in range(max(1, args.calls // block)):
        times = []
        for _ in range(block):
            t0 = clock()
            sync(bare(*fn_args))
            times.append(clock() - t0)
        base = statistics.median(times)
        synced.append(base)
        for _ in range(block):
            t0 = clock()
            out = bare(*fn_args)
            returned.append(clock() - t0)
            sync(out)
        for name, way in ways.items():
            times = []
            for _ in range(block):
                t0 = clock()
                way()
                times.append(clock() - t0)
            excess[name].append((statistics.median(times) - base) * 1e6)
    print(f"jax {jax.__version__} on {jax.default_backend()}; {args.calls} cache hits each way")
    print(
        f"the bare call: {statistics.median(synced) * 1e6:.1f} µs synced, of which the dispatch "
        f"returned after {statistics.median(returned) * 1e6:.1f} µs"
    )
    print(f"{'over the bare synced call (µs)':<36}{'median':>8}   95 % interval")
    for name, values in excess.items():
        low, high = _median_interval(values)
        print(f"  {name:<34}{statistics.median(values):>+8.2f}   {low:+.2f} … {high:+.2f}")


if __name__ == "__main__":
    main()
