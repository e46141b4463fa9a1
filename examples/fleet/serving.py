"""A serving-like program to watch with the fleet view (about a minute on a laptop's CPU):

    jitlab watch --metrics-port 9464 -- python examples/fleet/serving.py

It answers requests with jitted steps, in four phases: a warm-up that meets the batch sizes
it serves (a burst of recompiles that stops), steady serving from the cache, then a release
that pads no more (every new prompt length recompiles ``embed`` and ``encode``, and each
request's temperature, a static argument, recompiles ``sample``: a recompile storm), then the
fix (lengths padded to buckets again, one temperature; served from the cache).
"""

from __future__ import annotations

import argparse
import time
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

BATCHES = (1, 8)
BUCKETS = (32, 128)


@jax.jit
def embed(table, tokens):
    return table[tokens].mean(axis=-2)


@jax.jit
def encode(weights, hidden):
    for w in weights:
        hidden = jnp.tanh(hidden @ w)
    return hidden.mean(axis=1)


@partial(jax.jit, static_argnames="temperature")
def sample(pooled, temperature):
    return jnp.argmax(pooled / temperature, axis=-1)


def bucket(length: int) -> int:
    return next(b for b in BUCKETS if b >= length)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long it serves")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    table = jnp.asarray(rng.normal(size=(1000, 64)), jnp.float32)
    weights = [jnp.asarray(rng.normal(0, 0.1, (64, 64)), jnp.float32) for _ in range(4)]
    phase_s = args.seconds / 4
    start = time.monotonic()
    served = 0
    while (now := time.monotonic() - start) < args.seconds:
        phase = int(now // phase_s)
        batch = int(rng.choice(BATCHES))
        length = int(rng.integers(4, 120))
        if phase == 2:  # the release that forgot to pad: every length is a new shape
            padded, temperature = length, round(float(rng.uniform(0.5, 1.5)), 1)
        else:
            padded, temperature = bucket(length), 1.0
        tokens = rng.integers(0, 1000, (batch, padded, 8))
        hidden = encode(weights, embed(table, tokens))
        sample(hidden, temperature=temperature).block_until_ready()
        served += 1
        time.sleep(0.01)  # the next request
    print(f"served {served} requests")


if __name__ == "__main__":
    main()
