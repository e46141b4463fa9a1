"""equinox#940 / jax#4274's shape with a lambda: the activation is passed as a static
argument, written as a lambda inside the epoch loop, so each epoch hands jit a new function
object of the same code, equal in content; JAX compiles the same program again and keeps
every one (the lambdas are its cache keys)."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=2)
def step(w, x, act):
    return w - 0.05 * jax.grad(lambda w: jnp.mean(act(x @ w) ** 2))(w)


w = jnp.ones((4, 4)) * 0.3
x = jnp.ones((8, 4))
for epoch in range(12):
    act = lambda h: jnp.tanh(h) * 2.0  # noqa: E731 — made anew each epoch
    for _ in range(5):
        w = step(w, x, act)
    print(epoch, float(w.sum()))
