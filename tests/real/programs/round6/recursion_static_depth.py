"""A recursive jitted function with a static depth: each depth calls the one below."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def tower(x, depth):
    if depth == 0:
        return x
    return jnp.sin(tower(x, depth - 1))


print(round(float(tower(1.0, 3)), 4))
print(round(float(tower(1.0, 2)), 4))
print(round(float(tower(1.0, 4)), 4))
print(round(float(tower(jnp.ones(2), 1)[0]), 4))
