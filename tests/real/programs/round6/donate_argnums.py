"""donate_argnums on an in-place style update, the same function jitted with and without
donation, and a donated buffer's shape changing."""

import jax
import jax.numpy as jnp


def accumulate(acc, x):
    return acc + x


donating = jax.jit(accumulate, donate_argnums=0)
plain = jax.jit(accumulate)
acc = jnp.zeros(4)
for _ in range(3):
    acc = donating(acc, jnp.ones(4))
print(acc.tolist())
print(plain(acc, jnp.ones(4)).tolist())
big = donating(jnp.zeros(6), jnp.ones(6))
print(big.tolist())
both = jax.jit(accumulate, donate_argnames=("acc", "x"))
print(both(jnp.zeros(4), jnp.ones(4)).tolist())
