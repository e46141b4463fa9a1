"""jax.jit of functools.partial objects: the same partial, a new equal one per call, and a
partial passed as a static argument."""

import functools
from functools import partial

import jax
import jax.numpy as jnp


def scale(x, k):
    return x * k


same = jax.jit(partial(scale, k=2.0))
for _ in range(3):
    print(same(jnp.ones(2)).tolist())
for _ in range(3):
    print(jax.jit(partial(scale, k=2.0))(jnp.ones(2)).tolist())


def apply(fn, x):
    return fn(x)


apply_static = jax.jit(apply, static_argnums=0)
print(apply_static(partial(scale, k=3.0), jnp.ones(2)).tolist())
print(apply_static(partial(scale, k=3.0), jnp.ones(2)).tolist())
print(apply_static(partial(scale, k=4.0), jnp.ones(2)).tolist())
print(apply_static(functools.partial(jnp.multiply, 3.0), jnp.ones(2)).tolist())
