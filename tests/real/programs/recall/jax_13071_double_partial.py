"""jax#13071's shape: a jax.tree_util.Partial of a Partial, passed as a static argument;
each one made anew hashes by identity, so jit compiles again for an equal value."""

from functools import partial

import jax
import jax.numpy as jnp
import jax.tree_util as jtu


def scale(x, factor):
    return x * factor


inner = jtu.Partial(scale, factor=2.0)


@partial(jax.jit, static_argnums=0)
def apply(fn, x):
    return fn(x)


x = jnp.ones(3)
for _ in range(4):
    x = apply(jtu.Partial(inner), x)  # a new outer Partial each call
print(float(x.sum()))
