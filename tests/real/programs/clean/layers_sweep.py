"""A depth sweep: the layer count is a static int that sets the program's shape."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="depth")
def forward(w, x, depth):
    for _ in range(depth):
        x = jnp.tanh(x @ w)
    return x.sum()


w = jnp.eye(8) * 0.5
x = jnp.ones((4, 8))
for depth in range(1, 12):
    for _ in range(10):
        out = forward(w, x, depth=depth)
    print(depth, float(out))
