"""A serving-like program for the fleet view's tests: a jitted step meets new request shapes,
then serves them from the cache.

    python fleet_serving.py [READY GO [STATUS]]

With READY and GO: once served, it writes READY and waits (at most 5 minutes) for the file GO
to appear, so a test can scrape it while it runs; then it exits with STATUS (default 0).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

# Four request sizes met in the first eight requests, then served from the cache.
SIZES = (1, 4, 1, 8, 4, 16, 8, 1) + (4, 8, 16, 1) * 10
SHAPES = len(set(SIZES))
HITS = len(SIZES) - SHAPES


@jax.jit
def serve(params, batch):
    return jnp.tanh(batch @ params).sum(axis=-1)


def main(ready: str | None = None, go: str | None = None) -> None:
    params = np.full((16, 4), 0.5, np.float32)
    answered = 0.0
    for n in SIZES:
        answered += float(serve(params, np.ones((n, 16), np.float32)).sum())
    print(f"served {len(SIZES)} requests: {answered:.3f}", flush=True)
    if ready is not None and go is not None:
        Path(ready).write_text("served")
        deadline = time.monotonic() + 300
        while not Path(go).exists() and time.monotonic() < deadline:
            time.sleep(0.05)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(*args[:2])
    sys.exit(int(args[2]) if len(args) > 2 else 0)
