"""Ahead of time: jax.jit(f).lower(...).compile(), then calling the jitted f with the same
and with other types."""

import jax
import jax.numpy as jnp


def loss(w, x):
    return jnp.mean((x @ w) ** 2)


jitted = jax.jit(loss)
compiled = jitted.lower(jnp.ones(3), jnp.ones((5, 3))).compile()
print(round(float(compiled(jnp.ones(3), jnp.ones((5, 3)))), 4))
print(round(float(jitted(jnp.ones(3), jnp.ones((5, 3)))), 4))
print(round(float(jitted(jnp.ones(3), jnp.ones((7, 3)))), 4))
shape = jax.ShapeDtypeStruct((9, 3), jnp.float32)
jitted.lower(jax.ShapeDtypeStruct((3,), jnp.float32), shape).compile()
print(round(float(jitted(jnp.ones(3), jnp.ones((9, 3)))), 4))
