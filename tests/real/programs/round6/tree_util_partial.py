"""jax.tree_util.Partial as an argument: other functions in it, other bound arrays."""

import jax
import jax.numpy as jnp
from jax.tree_util import Partial


@jax.jit
def apply(fn, x):
    return fn(x)


def add(a, x):
    return a + x


def mul(a, x):
    return a * x


x = jnp.ones(2)
print(apply(Partial(add, jnp.float32(1.0)), x).tolist())
print(apply(Partial(add, jnp.float32(2.0)), x).tolist())
print(apply(Partial(mul, jnp.float32(2.0)), x).tolist())
print(apply(Partial(add, jnp.ones(2)), x).tolist())
