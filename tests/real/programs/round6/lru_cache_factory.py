"""An lru_cache'd factory of jitted functions: one per option, reused; and the cache cleared."""

import functools

import jax
import jax.numpy as jnp


@functools.cache
def make_norm(order):
    def norm(x):
        return jnp.sum(jnp.abs(x) ** order) ** (1.0 / order)

    return jax.jit(norm)


x = jnp.arange(1.0, 4.0)
for order in (1, 2, 1, 2):
    print(round(float(make_norm(order)(x)), 4))
make_norm.cache_clear()
print(round(float(make_norm(2)(x)), 4))
print(round(float(make_norm(2)(x[:2])), 4))
