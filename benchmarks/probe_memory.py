"""Memory of a long-running probe: 1,000,000 probed cache hits against a bare loop.

    python benchmarks/probe_memory.py [--calls N] [--max-records M] [--no-tracemalloc]

Makes real probed calls of a trivial jitted function (cache hits after the first) and prints
the growth of the process's RSS and of the memory traced by ``tracemalloc`` at 10k, 100k
and 1M calls, for a bare ``f(x).block_until_ready()`` loop and for a default ``Probe``
(records kept, bounded at ``max_records``). Target: the probe's growth levels off once it
holds ``max_records`` records (about 200 bytes each) instead of growing with every call.
"""

from __future__ import annotations

import argparse
import gc
import resource
import tracemalloc

import jax
import jax.numpy as jnp

from jitlab import Probe
from jitlab.probe.probe import DEFAULT_MAX_RECORDS


def rss_mib() -> float:
    """Resident set size now (Linux: /proc/self/statm), in MiB."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * resource.getpagesize() / 2**20
    except OSError:  # not Linux: the peak is the best we have
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(label: str, call, calls: int, checkpoints: list[int], traced: bool) -> None:
    call()  # compile (and the probe's first record) before measuring
    gc.collect()
    rss0 = rss_mib()
    traced0 = tracemalloc.get_traced_memory()[0] if traced else 0
    done = 0
    for mark in checkpoints:
        for _ in range(mark - done):
            call()
        done = mark
        gc.collect()
        line = f"{label:<26}{mark:>10,}{rss_mib() - rss0:>12.1f}"
        if traced:
            line += f"{(tracemalloc.get_traced_memory()[0] - traced0) / 2**20:>18.2f}"
        print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument(
        "--max-records", type=int, default=DEFAULT_MAX_RECORDS, help="-1: keep every record"
    )
    parser.add_argument(
        "--no-tracemalloc", action="store_true", help="RSS only (tracemalloc slows calls ~2×)"
    )
    args = parser.parse_args()
    traced = not args.no_tracemalloc
    checkpoints = [n for n in (10_000, 100_000, 1_000_000) if n < args.calls] + [args.calls]
    x = jnp.ones(8)
    bare = jax.jit(lambda x: x * 2)
    cap = None if args.max_records < 0 else args.max_records
    probe = Probe(jax.jit(lambda x: x * 2), max_records=cap)
    print(f"jax {jax.__version__} on {jax.default_backend()}; max_records={cap}")
    header = f"{'loop':<26}{'calls':>10}{'RSS +MiB':>12}"
    print(header + (f"{'tracemalloc +MiB':>18}" if traced else ""))
    if traced:
        tracemalloc.start()
    run(
        "bare f(x).block_until_ready",
        lambda: bare(x).block_until_ready(),
        args.calls,
        checkpoints,
        traced,
    )
    run("Probe(f)(x)", lambda: probe(x), args.calls, checkpoints, traced)
    summary = probe.summary()
    print(
        f"probe: {summary.calls:,} calls counted ({summary.cache_hits:,} hits), "
        f"{len(probe.records):,} records kept, {probe.dropped_records:,} dropped"
    )
    assert summary.calls == args.calls + 1 and summary.cache_hits == args.calls


if __name__ == "__main__":
    main()
