"""A training loop run while hunting a NaN, with jax_debug_nans switched on as JAX's docs
advise (JAX then checks every output: a deliberate, temporary slowdown)."""

import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)


@jax.jit
def step(w, x):
    return w - 0.01 * jax.grad(lambda w: jnp.mean(jnp.log1p((x @ w) ** 2)))(w)


w = jnp.ones((8, 2))
x = jnp.ones((32, 8))
for _ in range(300):
    w = step(w, x)
print(float(w.sum()))
