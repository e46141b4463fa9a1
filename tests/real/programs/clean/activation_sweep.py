"""Polynomial features of several orders, each order a small function made in a list
comprehension and passed as a static argument: ten different functions, each compiled
once and used for twenty steps."""

from functools import partial

import jax
import jax.numpy as jnp

FEATURES = [lambda x, k=k: x**k for k in range(1, 11)]


@partial(jax.jit, static_argnums=2)
def step(w, x, feature):
    def loss(w):
        return jnp.mean((feature(x) @ w - jnp.sin(x[:, :1])) ** 2)

    return w - 0.05 * jax.grad(loss)(w)


x = jnp.linspace(-1, 1, 64).reshape(32, 2)
for order, feature in enumerate(FEATURES, 1):
    w = jnp.zeros((2, 1))
    for _ in range(20):
        w = step(w, x, feature)
    print(order, float(w.sum()))
