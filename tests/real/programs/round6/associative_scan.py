"""jax.lax.associative_scan with reverse as a static keyword and another axis."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("reverse", "axis"))
def cumulative(x, reverse=False, axis=0):
    return jax.lax.associative_scan(jnp.add, x, reverse=reverse, axis=axis)


x = jnp.arange(12.0).reshape(3, 4)
print(cumulative(x)[-1].tolist())
print(cumulative(x, reverse=True)[0].tolist())
print(cumulative(x, axis=1)[:, -1].tolist())
print(cumulative(x, False, 0)[-1].tolist())
print(cumulative(x, reverse=False)[-1].tolist())
