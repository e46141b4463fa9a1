"""A training step that donates its parameter and optimizer buffers (donate_argnums), as
memory-tight training loops do; the state is always the step's own output."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, donate_argnums=(0, 1))
def step(w, v, x):
    g = jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w)
    v = 0.9 * v + g
    return w - 0.01 * v, v


w = jnp.ones((64, 64))
v = jnp.zeros((64, 64))
x = jnp.ones((32, 64))
for _ in range(100):
    w, v = step(w, v, x)
print(float(w.sum()))
