"""A functools.partial of an activation, passed as a static argument and made again each
epoch (the shape of jax#4712 and equinox#291: equal statics that jit tells apart)."""

import functools
from functools import partial

import jax
import jax.numpy as jnp


def leaky(x, alpha):
    return jnp.where(x > 0, x, alpha * x)


@partial(jax.jit, static_argnames="act")
def layer(w, x, act):
    return act(x @ w)


w = jnp.ones((4, 4))
x = jnp.ones((2, 4))
for _epoch in range(4):
    act = functools.partial(leaky, alpha=0.1)
    for _ in range(3):
        x = layer(w, x, act=act)
print(float(x.sum()))
