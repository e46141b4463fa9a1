"""fori_loop with a traced trip count (one program) and with a static one (one per count)."""

from functools import partial

import jax
import jax.numpy as jnp


@jax.jit
def power_traced(x, n):
    return jax.lax.fori_loop(0, n, lambda i, v: v * x, jnp.ones_like(x))


@partial(jax.jit, static_argnums=1)
def power_static(x, n):
    return jax.lax.fori_loop(0, n, lambda i, v: v * x, jnp.ones_like(x))


@jax.jit
def halve_until(x):
    return jax.lax.while_loop(lambda v: v > 1.0, lambda v: v / 2.0, x)


x = jnp.float32(1.5)
for n in (2, 3, 4):
    print(float(power_traced(x, n)), float(power_static(x, n)))
print(float(power_static(x, 3)))
print(float(halve_until(10.0)), float(halve_until(jnp.float32(100.0))))
