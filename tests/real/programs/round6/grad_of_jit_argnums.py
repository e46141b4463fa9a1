"""jax.jit(jax.grad(f, argnums=...)) for two argnums, and value_and_grad with has_aux."""

import jax
import jax.numpy as jnp


def loss(w, b, x):
    y = x @ w + b
    return jnp.sum(y * y), y.shape[0]


gw = jax.jit(jax.grad(lambda w, b, x: loss(w, b, x)[0], argnums=0))
gb = jax.jit(jax.grad(lambda w, b, x: loss(w, b, x)[0], argnums=(0, 1)))
vg = jax.jit(jax.value_and_grad(loss, has_aux=True))
w, b, x = jnp.ones(3), jnp.float32(0.5), jnp.ones((2, 3))
print(gw(w, b, x).tolist())
print([v.tolist() for v in gb(w, b, x)])
print(vg(w, b, x)[0][1])
print(vg(w, b, jnp.ones((4, 3)))[0][1])
print(vg(w, 0.5, x)[0][1])
