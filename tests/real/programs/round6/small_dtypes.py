"""Small and odd dtypes into one jitted function: bool, int8, uint8, bfloat16, float16."""

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def count_positive(x):
    return jnp.sum(x > 0)


for dtype in (jnp.bool_, jnp.int8, jnp.uint8, jnp.bfloat16, jnp.float16, jnp.float32):
    print(np.dtype(dtype).name, int(count_positive(jnp.ones(4, dtype))))
print(int(count_positive(np.ones(4, np.int8))))
