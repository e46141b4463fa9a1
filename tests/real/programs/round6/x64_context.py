"""x64 toggled mid-program with the enable_x64 context; a Python float and an int go in."""

import jax
import jax.numpy as jnp

try:
    from jax.experimental import enable_x64
except ImportError:  # newer JAX: jax.enable_x64
    enable_x64 = jax.enable_x64


@jax.jit
def poly(x):
    return x * x + 1


print(poly(1.5).dtype)
with enable_x64():
    print(poly(1.5).dtype)
    print(poly(2).dtype)
    print(poly(jnp.float32(1.5)).dtype)
print(poly(1.5).dtype)
print(poly(2).dtype)
