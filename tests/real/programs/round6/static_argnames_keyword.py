"""static_argnames given by keyword, by position, and left to its default."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("axis", "keepdims"))
def reduce(x, axis=0, keepdims=False):
    return jnp.sum(x, axis=axis, keepdims=keepdims)


x = jnp.ones((2, 3))
print(reduce(x).shape)
print(reduce(x, axis=0).shape)
print(reduce(x, 0).shape)
print(reduce(x, axis=1).shape)
print(reduce(x, 1, True).shape)
print(reduce(x, axis=1, keepdims=True).shape)
