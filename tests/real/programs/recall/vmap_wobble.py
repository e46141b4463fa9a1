"""jax#4390's shape under jax.vmap: a jitted per-example loss mapped over whatever batch
the loader yields, unpadded, so each new batch size is another program of the vmapped
function (JAX names no argument: the transformation compiled)."""

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def example_loss(w, x, y):
    return (jnp.dot(x, w) - y) ** 2


batched = jax.vmap(example_loss, in_axes=(None, 0, 0))
rng = np.random.default_rng(1)
w = jnp.ones(6)
total = 0.0
for _ in range(25):
    n = int(rng.integers(5, 300))
    x = rng.normal(size=(n, 6)).astype(np.float32)
    total += float(batched(w, x, x.sum(1)).mean())
print(total)
