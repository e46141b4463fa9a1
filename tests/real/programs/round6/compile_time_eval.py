"""jax.ensure_compile_time_eval inside a jitted function: a table built while tracing from a
static size."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def windowed(x, n):
    with jax.ensure_compile_time_eval():
        window = jnp.hanning(n)
        scale = float(window.sum())
    return jnp.convolve(x, window / scale, mode="same")


x = jnp.arange(10.0)
print(round(float(windowed(x, 3).sum()), 3))
print(round(float(windowed(x, 5).sum()), 3))
print(round(float(windowed(x, 3).sum()), 3))
print(round(float(windowed(x[:8], 5).sum()), 3))
