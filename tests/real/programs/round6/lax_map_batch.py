"""jax.lax.map with its batch_size as a static argument, and over inputs of two lengths."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="batch")
def row_norms(xs, batch):
    return jax.lax.map(lambda r: jnp.sqrt(jnp.sum(r * r)), xs, batch_size=batch)


xs = jnp.arange(24.0).reshape(8, 3)
print(row_norms(xs, batch=None).shape)
print(row_norms(xs, batch=4).shape)
print(row_norms(xs, batch=4).shape)
print(row_norms(xs[:6], batch=4).shape)
print(row_norms(xs, batch=None).shape)
