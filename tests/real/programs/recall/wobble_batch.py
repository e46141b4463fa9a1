"""jax#4390's shape ("warn when there are too many recompilations"): a loss jitted once and
called on batches of whatever length the data loader yields, none padded, so JAX compiles
for every new length."""

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def loss(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


rng = np.random.default_rng(0)
w = jnp.zeros((8, 1))
for _ in range(30):
    n = int(rng.integers(8, 200))  # the last batch of each file, a filtered batch, ...
    x = rng.normal(size=(n, 8)).astype(np.float32)
    y = x.sum(1, keepdims=True)
    w = w - 0.01 * jax.grad(loss)(w, x, y)
print(float(loss(w, x, y)))
