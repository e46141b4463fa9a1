"""A small program whose recording holds each kind of line: compiles, recompiles for a
shape, a dtype, a weak type and a static value, an error, and cache hits.

``format_1_0.jsonl`` is its recording by jitlab before recording formats had versions
(``jitlab watch --out format_1_0.jsonl -- python format_1_0_program.py``)."""

import contextlib
from functools import partial

import jax
import jax.numpy as jnp


@jax.jit
def scaled(x):
    return x * 2


@partial(jax.jit, static_argnames="n")
def power(x, n):
    return x**n


@jax.jit
def broken(x):
    return x.reshape(3)


for size in (4, 4, 8, 8, 16):
    scaled(jnp.ones(size))
scaled(jnp.ones(16, dtype=jnp.int32))
scaled(2.0)
for n in (2, 2, 3):
    power(jnp.ones(3), n=n)
with contextlib.suppress(TypeError):
    broken(jnp.ones(4))
