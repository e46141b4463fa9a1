"""How many compiled programs jit keeps in memory before it evicts (the number the
recompile-cost lesson teaches): one function fed N distinct shapes, then the first shape
again. Prints whether that last call compiled and the function's cache size.

    python benchmarks/jit_cache_limit.py 2100   # all kept: the first shape is still a hit
    python benchmarks/jit_cache_limit.py 8300   # ~35 min on 2 cores: 8,192 kept, recompiles

Measured on JAX 0.10.2 (CPU): N=2100 → no compile, cache 2100; N=8300 → 1 compile, cache 8192.
"""

from __future__ import annotations

import sys
import time

import numpy as np


def main(n: int) -> None:
    import jax
    from jax import monitoring

    compiles: list[str] = []

    def on_duration(name: str, seconds: float, **kwargs: object) -> None:
        if "backend_compile" in name:
            compiles.append(name)

    monitoring.register_event_duration_secs_listener(on_duration)
    f = jax.jit(lambda x: x * 2.0)
    start = time.perf_counter()
    for size in range(1, n + 1):
        f(np.ones(size, np.float32))
    before = len(compiles)
    f(np.ones(1, np.float32))  # the first shape again
    print(
        f"shapes {n}: compiles {before}; the first shape again compiled "
        f"{len(compiles) - before} time(s); cache size {f._cache_size()}; "
        f"{time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2100)
