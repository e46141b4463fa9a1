"""custom_vjp with nondiff_argnums (a clipping gradient, JAX's custom derivative docs), its
clip bound a static argument of the jitted step."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.custom_vjp, nondiff_argnums=(0,))
def clip_gradient(bound, x):
    return x


def clip_fwd(bound, x):
    return x, None


def clip_bwd(bound, _, g):
    return (jnp.clip(g, -bound, bound),)


clip_gradient.defvjp(clip_fwd, clip_bwd)


@partial(jax.jit, static_argnums=0)
def clipped_grad(bound, x):
    return jax.grad(lambda v: jnp.sum(clip_gradient(bound, v) ** 3))(x)


x = jnp.array([0.5, 2.0, -3.0])
print(clipped_grad(1.0, x).tolist())
print(clipped_grad(1.0, x).tolist())
print(clipped_grad(5.0, x).tolist())
print(clipped_grad(1, x).tolist())
