"""Weak types: a Python float, a NumPy float32, a NumPy float64, a jnp array, a Python int
and a NumPy int into one jitted function."""

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def axpy(a, x):
    return a * x + 1


x = jnp.ones(3)
for a in (2.0, 3.0, np.float32(2.0), jnp.float32(2.0), np.float64(2.0), 2, np.int32(2), True):
    y = axpy(a, x)
    print(type(a).__name__, y.dtype, float(y[0]))
