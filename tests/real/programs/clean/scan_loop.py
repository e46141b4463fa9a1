"""A training loop written with lax.scan over the steps of an epoch."""

import jax
import jax.numpy as jnp


def loss(w, batch):
    x, y = batch
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def epoch(w, xs, ys):
    def body(w, batch):
        loss_value, g = jax.value_and_grad(loss)(w, batch)
        return w - 0.1 * g, loss_value

    return jax.lax.scan(body, w, (xs, ys))


key = jax.random.PRNGKey(0)
xs = jax.random.normal(key, (50, 16, 4))
ys = xs @ jnp.arange(4.0)[:, None]
w = jnp.zeros((4, 1))
for _ in range(5):
    w, losses = epoch(w, xs, ys)
print(float(losses[-1]))
