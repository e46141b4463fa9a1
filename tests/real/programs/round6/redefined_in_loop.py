"""A function defined, decorated with jax.jit, inside a loop; then a lambda per iteration."""

import jax
import jax.numpy as jnp

total = 0.0
for i in range(3):

    @jax.jit
    def step(x):
        return x + 1.0

    total += float(step(jnp.float32(i)))
print(total)
for i in range(3):
    total += float(jax.jit(lambda x: x * 2.0)(jnp.float32(i)))
print(total)
