"""A width sweep that calls jax.clear_caches() after each trial, so the executables of
finished trials do not pile up in memory: each trial compiles its own width once and
trains with it."""

import jax
import jax.numpy as jnp


@jax.jit
def train_step(params, x, y):
    def loss(p):
        return jnp.mean((jax.nn.relu(x @ p["w1"]) @ p["w2"] - y) ** 2)

    g = jax.grad(loss)(params)
    return jax.tree.map(lambda p, d: p - 0.05 * d, params, g)


x = jnp.ones((32, 8))
y = jnp.zeros((32, 1))
for width in (4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192):
    k1, k2 = jax.random.split(jax.random.PRNGKey(width))
    params = {"w1": jax.random.normal(k1, (8, width)), "w2": jax.random.normal(k2, (width, 1))}
    for _ in range(10):
        params = train_step(params, x, y)
    print(width, float(params["w2"].sum()))
    jax.clear_caches()  # free this trial's programs before the next
