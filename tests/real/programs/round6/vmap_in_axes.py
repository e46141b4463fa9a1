"""jax.jit of jax.vmap with two in_axes choices; the same core function jitted both ways."""

import jax
import jax.numpy as jnp


def dot(a, b):
    return jnp.dot(a, b)


rows = jax.jit(jax.vmap(dot, in_axes=(0, None)))
cols = jax.jit(jax.vmap(dot, in_axes=(1, None)))
m, v = jnp.ones((4, 3)), jnp.ones(3)
print(rows(m, v).tolist())
print(cols(m.T, v).tolist())
print(rows(jnp.ones((5, 3)), v).tolist())
