"""keep_unused: the same function jitted with and without it, an unused argument changing."""

import jax
import jax.numpy as jnp


def first(x, unused):
    return x + 1.0


dropping = jax.jit(first)
keeping = jax.jit(first, keep_unused=True)
print(dropping(jnp.ones(2), jnp.ones(3)).tolist())
print(keeping(jnp.ones(2), jnp.ones(3)).tolist())
print(dropping(jnp.ones(2), jnp.ones(5)).tolist())  # unused, yet its type is in the key
print(keeping(jnp.ones(2), jnp.ones(5)).tolist())
print(keeping(jnp.ones(2), jnp.ones(5)).tolist())
