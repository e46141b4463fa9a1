"""Jitted helpers called inside a jitted step (inlined into its program) and also eagerly
at set-up and for logging, each with its own one signature."""

import jax
import jax.numpy as jnp


@jax.jit
def normalize(x):
    return (x - x.mean(0)) / (x.std(0) + 1e-6)


@jax.jit
def layer(w, x):
    return jax.nn.gelu(x @ w)


@jax.jit
def step(ws, x):
    def loss(ws):
        h = normalize(x)
        for w in ws:
            h = layer(w, h)
        return jnp.mean(h**2)

    g = jax.grad(loss)(ws)
    return [w - 0.01 * d for w, d in zip(ws, g, strict=True)]


x = normalize(jax.random.normal(jax.random.PRNGKey(0), (32, 8)))
ws = [jnp.eye(8) * 0.5 for _ in range(3)]
for i in range(50):
    ws = step(ws, x)
    if i % 10 == 0:
        print(i, float(layer(ws[0], x).mean()))
