"""jax.eval_shape of a jitted function before calling it, and lower() for a report."""

import jax
import jax.numpy as jnp


@jax.jit
def outer_product(a, b):
    return a[:, None] * b[None, :]


print(jax.eval_shape(outer_product, jnp.ones(3), jnp.ones(4)).shape)
print(outer_product(jnp.ones(3), jnp.ones(4)).shape)
print(len(outer_product.lower(jnp.ones(2), jnp.ones(2)).as_text()) > 0)
print(outer_product(jnp.ones(2), jnp.ones(2)).shape)
