"""The persistent compilation cache switched on as JAX's docs show, in a training loop
whose validation step prints with jax.debug.print: every program compiles in well under a
second (JAX's default threshold keeps them out of the cache anyway)."""

import sys

import jax
import jax.numpy as jnp

jax.config.update("jax_compilation_cache_dir", sys.argv[1])


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
    for _ in range(100):
        w = train_step(w, x)
    validate(w, x)
