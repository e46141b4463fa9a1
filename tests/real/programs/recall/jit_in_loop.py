"""The pitfall JAX's FAQ names first: jax.jit applied to a lambda inside the loop, so each
iteration jits a new function object and compiles the same program again (the old one is
dropped at once)."""

import jax
import jax.numpy as jnp

w = jnp.ones((32, 32)) * 0.01
x = jnp.ones((16, 32))
for _ in range(12):
    step = jax.jit(lambda w, x: w - 0.01 * jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w))
    w = step(w, x)
print(float(w.sum()))
