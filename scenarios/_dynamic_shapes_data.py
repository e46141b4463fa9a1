"""The dynamic-shapes lesson's data and weights, made with numpy so that making them compiles
nothing (``scenarios/dynamic_shapes.py`` imports them): the lesson's file keeps its code."""

from __future__ import annotations

import itertools
from functools import cache

import jax.numpy as jnp
import numpy as np

FEATURES = 64  # features per row: the model's input width
VOCAB = 1000  # token ids of the sequences variants


@cache
def make_params(depth, width=FEATURES, seed=0):
    rng = np.random.default_rng(seed)
    sizes = [FEATURES] + [width] * depth + [1]
    return [
        (
            jnp.asarray(rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_out)), jnp.float32),
            jnp.zeros((n_out,), jnp.float32),
        )
        for n_in, n_out in itertools.pairwise(sizes)
    ]


def make_batch(n, seed=0):
    """A deterministic batch of n rows (numpy, so making it compiles nothing)."""
    rng = np.random.default_rng(seed + n)
    x = rng.normal(size=(n, FEATURES)).astype(np.float32)
    y = np.sin(x[:, 0]).astype(np.float32)
    return x, y


@cache
def make_embedding(seed=0):
    rng = np.random.default_rng(seed)
    return jnp.asarray(rng.normal(size=(VOCAB, FEATURES)), jnp.float32)
