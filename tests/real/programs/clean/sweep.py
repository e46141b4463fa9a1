"""An architecture sweep: each width is a new model, trained for a few steps."""

import jax
import jax.numpy as jnp


def init(key, width):
    k1, k2 = jax.random.split(key)
    return {
        "w1": jax.random.normal(k1, (8, width)) * 0.1,
        "b1": jnp.zeros(width),
        "w2": jax.random.normal(k2, (width, 1)) * 0.1,
    }


def loss(params, x, y):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    return jnp.mean((h @ params["w2"] - y) ** 2)


@jax.jit
def train_step(params, x, y):
    g = jax.grad(loss)(params, x, y)
    return jax.tree.map(lambda p, d: p - 0.05 * d, params, g)


x = jnp.ones((32, 8))
y = jnp.zeros((32, 1))
for width in (4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256):
    params = init(jax.random.PRNGKey(width), width)
    for _ in range(20):
        params = train_step(params, x, y)
    print(width, float(loss(params, x, y)))
