"""An ensemble of eight models trained at once: parameters stacked, the step jax.vmap'd
and jitted, with per-model random keys split every step (typed keys, jax.random.key)."""

import jax
import jax.numpy as jnp


def init(key):
    return {"w": jax.random.normal(key, (3, 1)) * 0.1}


def step(p, key, x, y):
    noise = 0.01 * jax.random.normal(key, x.shape)
    g = jax.grad(lambda p: jnp.mean(((x + noise) @ p["w"] - y) ** 2))(p)
    return jax.tree.map(lambda a, b: a - 0.1 * b, p, g)


train = jax.jit(jax.vmap(step, in_axes=(0, 0, None, None)))
keys = jax.random.split(jax.random.key(0), 8)
params = jax.vmap(init)(keys)
x = jnp.linspace(-1, 1, 48).reshape(16, 3)
y = x @ jnp.array([[1.0], [-2.0], [0.5]])
key = jax.random.key(1)
for _ in range(80):
    key, sub = jax.random.split(key)
    params = train(params, jax.random.split(sub, 8), x, y)
print(params["w"].mean(0).ravel().tolist())
