"""jax.default_matmul_precision as a context around calls of one jitted matmul."""

import jax
import jax.numpy as jnp


@jax.jit
def gram(a):
    return a @ a.T


a = jnp.ones((4, 4))
print(float(gram(a)[0, 0]))
with jax.default_matmul_precision("float32"):
    print(float(gram(a)[0, 0]))
    print(float(gram(a)[0, 0]))
with jax.default_matmul_precision("bfloat16"):
    print(float(gram(a)[0, 0]))
print(float(gram(a)[0, 0]))
