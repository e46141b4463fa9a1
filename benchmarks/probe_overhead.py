"""What the probe adds to a cache hit, against bare ``f(x).block_until_ready()`` in one run.

    python benchmarks/probe_overhead.py [--calls N]

Prints the median latency of each, their ratio (target ≤ 1.10 for a small MLP step) and the
absolute overhead in microseconds, for a small MLP forward pass and for a trivial function
(where JAX's own dispatch is all there is, so the ratio is the worst case).
Bare and probed calls are interleaved in blocks so that machine noise hits both alike.
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax
import jax.numpy as jnp

from jitlab import Probe


def mlp(params, x):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return x.sum()


def make_mlp():
    key = jax.random.key(0)
    params = []
    for _ in range(3):
        key, sub = jax.random.split(key)
        params.append((jax.random.normal(sub, (256, 256)) / 16, jnp.zeros(256)))
    return mlp, (params, jnp.ones((32, 256)))


def make_trivial():
    return (lambda x: x * 2), (jnp.ones(8),)


def measure(fn, args, calls: int, block: int = 200) -> tuple[float, float]:
    bare = jax.jit(fn)
    # A function object of its own, so the probe sees its first compile (JAX shares caches
    # between jax.jit wrappers of one function) and then tracks its one card as users see.
    probed = Probe(jax.jit(lambda *a: fn(*a)), keep_records=False)
    bare(*args).block_until_ready()
    probed(*args)  # compile both before timing: we measure cache hits
    bare_times: list[float] = []
    probe_times: list[float] = []
    clock = time.perf_counter
    for _ in range(calls // block):
        for _ in range(block):
            t0 = clock()
            bare(*args).block_until_ready()
            bare_times.append(clock() - t0)
        for _ in range(block):
            t0 = clock()
            probed(*args)
            probe_times.append(clock() - t0)
    assert probed.ledger.counts[probed.last.kind] >= calls - 1  # all cache hits
    return statistics.median(bare_times) * 1e6, statistics.median(probe_times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args()
    print(f"jax {jax.__version__} on {jax.default_backend()}; {args.calls} cache hits each")
    print(f"{'function':<22}{'bare µs':>10}{'probed µs':>12}{'overhead µs':>13}{'ratio':>8}")
    for name, make in (("MLP 3×256, batch 32", make_mlp), ("trivial x*2", make_trivial)):
        fn, fn_args = make()
        bare, probed = measure(fn, fn_args, args.calls)
        print(f"{name:<22}{bare:>10.2f}{probed:>12.2f}{probed - bare:>13.2f}{probed / bare:>8.3f}")
    print("target: ratio ≤ 1.10 for the MLP step")


if __name__ == "__main__":
    main()
