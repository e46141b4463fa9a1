"""jax#31319's shape: a progress logger with jax.debug.callback inside the hot training step
(every step calls back into Python), so JAX dispatches every step in Python."""

import jax
import jax.numpy as jnp

seen = []


@jax.jit
def step(w, x):
    loss, g = jax.value_and_grad(lambda w: jnp.mean((x @ w) ** 2))(w)
    jax.debug.callback(lambda v: seen.append(float(v)), loss)
    return w - 0.01 * g


w = jnp.ones((8, 1))
x = jnp.ones((16, 8))
for _ in range(400):
    w = step(w, x)
jax.effects_barrier()
print(len(seen), float(w.sum()))
