"""jax#39289's shape: a debug print left in the hot training step; JAX gives a program with
host callbacks no fast-path entry, so every step is dispatched in Python."""

import jax
import jax.numpy as jnp


@jax.jit
def step(w, x):
    grads = jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w)
    jax.debug.print("grad norm {g}", g=jnp.linalg.norm(grads))
    return w - 0.01 * grads


w = jnp.ones((8, 1))
x = jnp.ones((32, 8))
for _ in range(400):
    w = step(w, x)
print(float(w.sum()))
