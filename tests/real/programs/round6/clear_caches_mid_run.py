"""jax.clear_caches() and f.clear_cache() between calls of two jitted functions."""

import jax
import jax.numpy as jnp


@jax.jit
def square(x):
    return x * x


@jax.jit
def cube(x):
    return x * x * x


x = jnp.ones(3)
print(square(x).tolist(), cube(x).tolist())
square.clear_cache()
print(square(x).tolist(), cube(x).tolist())
jax.clear_caches()
print(square(x).tolist(), cube(x).tolist())
print(square(x).tolist(), cube(x).tolist())
