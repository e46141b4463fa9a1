"""lax.scan with its unroll as a static argument and sequences of two lengths."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="unroll")
def running_max(xs, unroll=1):
    def body(carry, x):
        m = jnp.maximum(carry, x)
        return m, m

    return jax.lax.scan(body, -jnp.inf, xs, unroll=unroll)[1]


xs = jnp.array([1.0, 3.0, 2.0, 5.0, 4.0, 0.0])
print(running_max(xs).tolist())
print(running_max(xs, unroll=2).tolist())
print(running_max(xs, unroll=True).tolist())
print(running_max(xs[:4], unroll=2).tolist())
print(running_max(xs, unroll=1).tolist())
