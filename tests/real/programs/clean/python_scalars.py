"""A jitted step called with Python scalars: a float learning rate that decays and an int
step number, the same Python types every call (weakly typed, traced: no recompile)."""

import jax
import jax.numpy as jnp


@jax.jit
def step(w, x, lr, t):
    g = jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w)
    warm = jnp.minimum(1.0, (t + 1) / 10)
    return w - lr * warm * g


w = jnp.ones((8, 1))
x = jnp.ones((16, 8))
lr = 0.1
for t in range(300):
    w = step(w, x, lr, t)
    lr *= 0.99
print(float(w.sum()))
