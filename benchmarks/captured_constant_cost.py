"""What captured-constant adds to each compile of a watched jax.jit function, in one run.

    python benchmarks/captured_constant_cost.py [--sizes 1 100 1000]

A learning-rate sweep (``for lr in …: jax.jit(step)``) of programs of 2, 200 and 2,000
equations, watched. Prints, per size, the time ``CapturedConstant.compiled`` took on the
first compile (read the jaxpr again from JAX's tracing cache and walk it) and on the second
(the same, plus the comparison that states the diagnosis), against the compile's own trace
+ lower + compile time. Later compiles of a function already diagnosed cost nothing.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import jax
import jax.numpy as jnp

import jitlab
from jitlab.probe import diagnosing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 100, 1000])
    args = parser.parse_args()
    original = diagnosing.CapturedConstant.compiled
    spent: list[float] = []

    def timed(self, call, probe, t):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        try:
            return original(self, call, probe, t)
        finally:
            spent.append((time.perf_counter() - start) * 1e3)

    diagnosing.CapturedConstant.compiled = timed  # type: ignore[method-assign]
    x = jnp.ones(64)
    print(f"jax {jax.__version__} on {jax.default_backend()}")
    try:
        for n in args.sizes:
            spent.clear()
            with (
                tempfile.TemporaryDirectory() as folder,
                jitlab.watch(Path(folder) / "run.jsonl", warn_after=0) as recorder,
            ):
                for lr in (0.1, 0.05, 0.02):

                    def step(p, n=n):
                        for _ in range(n):
                            p = jnp.sin(p) * lr  # noqa: B023 (the pitfall measured)
                        return p

                    jax.jit(step)(x).block_until_ready()
            compiles = [
                (c.record.trace_ms or 0) + (c.record.lower_ms or 0) + (c.record.compile_ms or 0)
                for c in recorder.compiles
            ]
            print(
                f"{2 * n:>6} equations: first {spent[0]:7.2f} ms, second (states it) "
                f"{spent[1]:7.2f} ms, third {spent[2]:5.2f} ms; compile "
                f"{statistics.median(compiles):8.1f} ms (median)"
            )
    finally:
        diagnosing.CapturedConstant.compiled = original  # type: ignore[method-assign]


if __name__ == "__main__":
    main()
