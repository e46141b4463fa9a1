"""lax.switch over a tuple of branches given as a static argument, and a traced index."""

from functools import partial

import jax
import jax.numpy as jnp

BRANCHES = (jnp.sin, jnp.cos, jnp.tanh)


@partial(jax.jit, static_argnums=0)
def pick(branches, i, x):
    return jax.lax.switch(i, branches, x)


x = jnp.ones(2)
for i in range(3):
    print(round(float(pick(BRANCHES, i, x)[0]), 4))
print(round(float(pick(BRANCHES[:2], 1, x)[0]), 4))
print(round(float(pick((jnp.sin, jnp.cos, jnp.tanh), 2, x)[0]), 4))
