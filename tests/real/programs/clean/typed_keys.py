"""A training step that threads its random key through (new-style typed keys,
jax.random.key, as JAX's docs now recommend): it splits the key, uses one half for
dropout noise and returns the other with the parameters."""

import jax
import jax.numpy as jnp


@jax.jit
def step(w, key, x):
    key, sub = jax.random.split(key)
    keep = jax.random.bernoulli(sub, 0.9, x.shape)
    g = jax.grad(lambda w: jnp.mean(((x * keep) @ w - 1.0) ** 2))(w)
    return w - 0.05 * g, key


w = jnp.zeros((8, 1))
key = jax.random.key(0)
x = jnp.ones((32, 8))
for _ in range(500):
    w, key = step(w, key, x)
print(float(w.sum()))
