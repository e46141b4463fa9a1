"""A jitted closure over a Python value that changes: made once (the value is baked in) and
made again per value."""

import jax
import jax.numpy as jnp

factor = 2.0


@jax.jit
def scaled(x):
    return x * factor


print(scaled(jnp.ones(2)).tolist())
factor = 3.0
print(scaled(jnp.ones(2)).tolist())  # still 2.0: baked in at trace time
for k in (1.0, 2.0, 3.0):

    def times_k(x):
        return x * k  # noqa: B023 (the point: a closure per value)

    print(jax.jit(times_k)(jnp.ones(2)).tolist())
