"""A step counter passed as a static argument (to pick a warm-up branch in Python), so
every step is a new static value and compiles a new program."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=2)
def step(w, x, t):
    lr = 0.1 * min(1.0, (t + 1) / 50)
    return w - lr * jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w)


w = jnp.ones((4, 1))
x = jnp.ones((8, 4))
for t in range(20):
    w = step(w, x, t)
print(float(w.sum()))
