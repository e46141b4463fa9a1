"""jax#4274 / jax#2813's shape: a callable object (a loss with a weight) passed as a static
argument and built again each epoch; its class defines no __eq__/__hash__."""

from functools import partial

import jax
import jax.numpy as jnp


class WeightedLoss:
    def __init__(self, weight):
        self.weight = weight

    def __call__(self, pred, y):
        return self.weight * jnp.mean((pred - y) ** 2)


@partial(jax.jit, static_argnames="loss_fn")
def step(w, x, y, loss_fn):
    g = jax.grad(lambda w: loss_fn(x @ w, y))(w)
    return w - 0.1 * g


w = jnp.zeros((4, 1))
x = jnp.ones((8, 4))
y = jnp.ones((8, 1))
for _epoch in range(4):
    loss_fn = WeightedLoss(0.5)  # built again each epoch
    for _ in range(3):
        w = step(w, x, y, loss_fn=loss_fn)
print(float(w.sum()))
