"""custom_jvp with nondiff_argnums (a function argument), under jit(grad) and jit(vmap)."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.custom_jvp, nondiff_argnums=(0,))
def app(f, x):
    return f(x)


@app.defjvp
def app_jvp(f, primals, tangents):
    (x,), (t,) = primals, tangents
    return f(x), 2.0 * t


def sq(v):
    return v * v


def cube(v):
    return v * v * v


@jax.jit
def slope(x):
    return jax.grad(lambda v: app(sq, v))(x)


batched = jax.jit(jax.vmap(partial(app, cube)))
print(float(slope(3.0)), float(slope(4.0)), float(slope(jnp.float32(4.0))))
print(batched(jnp.arange(3.0)).tolist())
print(batched(jnp.arange(4.0)).tolist())
