"""A training loop whose validation step prints with jax.debug.print (four calls)."""

import jax
import jax.numpy as jnp


@jax.jit
def train_step(w, x):
    return w - 0.01 * jax.grad(lambda w: jnp.sum((x @ w) ** 2))(w)


@jax.jit
def validate(w, x):
    loss = jnp.sum((x @ w) ** 2)
    jax.debug.print("val loss {l}", l=loss)
    return loss


w = jnp.ones((16, 16))
x = jnp.ones((64, 16))
for _epoch in range(4):
    for _ in range(200):
        w = train_step(w, x)
    validate(w, x)
