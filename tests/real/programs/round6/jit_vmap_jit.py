"""jit inside vmap inside jit: the inner jitted function traced per batch shape."""

import jax
import jax.numpy as jnp


@jax.jit
def inner(v):
    return jnp.dot(v, v)


@jax.jit
def outer(m):
    return jax.vmap(inner)(m) + 1.0


print(outer(jnp.ones((2, 3))).tolist())
print(outer(jnp.ones((2, 3))).tolist())
print(outer(jnp.ones((4, 3))).tolist())
print(jax.vmap(inner)(jnp.ones((2, 3))).tolist())
print(float(inner(jnp.ones(3))))
