"""jax.export: serialize, deserialize and call an exported function; then jit its call.
(Serializing needs the flatbuffers package; without it the exported object is called as is.)"""

import jax
import jax.numpy as jnp
from jax import export


def affine(x, w):
    return jnp.tanh(x @ w)


exp = export.export(jax.jit(affine))(
    jax.ShapeDtypeStruct((2, 3), jnp.float32), jax.ShapeDtypeStruct((3, 4), jnp.float32)
)
try:
    again = export.deserialize(exp.serialize())
except ImportError:  # no flatbuffers
    again = exp
x, w = jnp.ones((2, 3)), jnp.ones((3, 4)) * 0.1
print(round(float(again.call(x, w).sum()), 4))
print(round(float(again.call(x, w).sum()), 4))
print(round(float(exp.call(x, w).sum()), 4))


@jax.jit
def twice(x, w):
    return again.call(x, w) * 2.0


print(round(float(twice(x, w).sum()), 4))
print(round(float(twice(x + 1.0, w).sum()), 4))
