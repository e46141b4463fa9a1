"""What JAX's cache-miss explanations cost a program that compiles one function many times,
with them off, on (JAX explains every miss), and on but put off as jitlab puts them off past
``monitor.EXPLAIN_AT_ONCE`` executables (made only if asked for: here never).

    python benchmarks/explain_cost.py [--signatures 200] [--leaves 1,1000] [--repeats 2]
                                      [--modes off,on,put off]

Each run is a fresh process (JAX's caches start empty) that compiles ``f(params, batch)`` for
N batch sizes, ``params`` a list of ``leaves - 1`` small arrays; the modes alternate. Printed:
the median ms per compile over the first and the last ten compiles, and the whole loop's
seconds, median over the repeats. jitlab itself is not running: only its hook into JAX's
explainer (``_jax.defer_explanations``) in the "put off" mode.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

MODES = ("off", "on", "put off")


def child(mode: str, signatures: int, leaves: int) -> None:
    import logging
    import time

    import jax
    import jax.numpy as jnp

    pending: list[object] = []
    if mode == "put off":
        from jitlab.probe import _jax, monitor

        _jax.defer_explanations(lambda: pending, monitor.EXPLAIN_AT_ONCE)
    if mode != "off":
        jax.config.update("jax_explain_cache_misses", True)
    logging.disable(logging.WARNING)  # JAX's words are made, not printed
    params = [jnp.ones(4) for _ in range(leaves - 1)]

    def f(p, b):
        return (p[0].sum() + p[-1].sum() if p else 0) + b.sum()

    jitted = jax.jit(f)
    batches = [jnp.ones((n, 4)) for n in range(1, signatures + 1)]
    times = []
    for batch in batches:
        start = time.perf_counter()
        jitted(params, batch).block_until_ready()
        times.append(time.perf_counter() - start)
        pending.clear()
    print(json.dumps(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--signatures", type=int, default=200)
    parser.add_argument("--leaves", default="1,1000")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--modes", default=",".join(MODES), help="e.g. 'off,put off'")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), int(args.child[2]))
        return
    n = args.signatures
    print(f"one function compiled for {n} batch sizes; ms per compile, s for the loop")
    print(f"{'leaves':>7} {'mode':>8} {'first 10 ms':>12} {'last 10 ms':>11} {'loop s':>8}")
    for leaves in (int(x) for x in args.leaves.split(",")):
        modes = [m for m in args.modes.split(",") if m in MODES]
        runs: dict[str, list[list[float]]] = {mode: [] for mode in modes}
        for _ in range(args.repeats):
            for mode in modes:
                out = subprocess.run(
                    [sys.executable, __file__, "--child", mode, str(n), str(leaves)],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
                runs[mode].append(json.loads(out.splitlines()[-1]))
        for mode, times in runs.items():
            first = statistics.median(statistics.median(t[:10]) for t in times) * 1e3
            last = statistics.median(statistics.median(t[-10:]) for t in times) * 1e3
            loop = statistics.median(sum(t) for t in times)
            print(f"{leaves:>7} {mode:>8} {first:>12.1f} {last:>11.1f} {loop:>8.1f}")


if __name__ == "__main__":
    main()
