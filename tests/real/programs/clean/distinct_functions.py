"""A program of twelve jitted functions (init, losses, metrics, an optimizer, a logger's
statistics), each compiled once for its one signature and called many times."""

import jax
import jax.numpy as jnp


@jax.jit
def init(key):
    return jax.random.normal(key, (8, 4)) * 0.1


@jax.jit
def mse(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def mae(w, x, y):
    return jnp.mean(jnp.abs(x @ w - y))


@jax.jit
def huber(w, x, y):
    r = jnp.abs(x @ w - y)
    return jnp.mean(jnp.where(r < 1, 0.5 * r**2, r - 0.5))


@jax.jit
def grads(w, x, y):
    return jax.grad(mse)(w, x, y)


@jax.jit
def sgd(w, g):
    return w - 0.05 * g


@jax.jit
def momentum(v, g):
    return 0.9 * v + g


@jax.jit
def norm(g):
    return jnp.linalg.norm(g)


@jax.jit
def clip(g):
    return g / jnp.maximum(1.0, jnp.linalg.norm(g))


@jax.jit
def accuracy(w, x, y):
    return jnp.mean(jnp.sign(x @ w) == jnp.sign(y))


@jax.jit
def stats(w):
    return jnp.stack([w.mean(), w.std(), w.min(), w.max()])


@jax.jit
def ema(avg, w):
    return 0.99 * avg + 0.01 * w


w = init(jax.random.PRNGKey(0))
v = jnp.zeros_like(w)
avg = w
x = jax.random.normal(jax.random.PRNGKey(1), (64, 8))
y = jnp.stack([x[:, i] - x[:, i + 1] for i in range(4)], 1)
for i in range(100):
    g = clip(grads(w, x, y))
    v = momentum(v, g)
    w = sgd(w, v)
    avg = ema(avg, w)
    if i % 20 == 0:
        print(i, float(mse(w, x, y)), float(mae(w, x, y)), float(huber(w, x, y)))
        print(float(norm(g)), float(accuracy(avg, x, y)), stats(w).tolist())
