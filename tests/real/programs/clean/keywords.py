"""A jitted step always called the same way with keyword arguments (and a static keyword
for the mode, one value per phase)."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("mode",))
def apply(w, *, x, mode="train"):
    h = x @ w
    return jnp.tanh(h) if mode == "train" else jnp.sign(h)


w = jnp.ones((4, 4)) * 0.1
x = jnp.ones((8, 4))
for epoch in range(10):
    for _ in range(10):
        w = w - 0.01 * apply(w, x=x, mode="train").mean()
    print(epoch, float(apply(w, x=x, mode="eval").sum()))
