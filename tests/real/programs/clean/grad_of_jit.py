"""jax.grad and jax.value_and_grad of a jitted loss, called from a plain Python loop (no
outer jit): JAX traces the jitted loss under its transformations, once per signature."""

import jax
import jax.numpy as jnp


@jax.jit
def loss(w, x, y):
    return jnp.mean((jnp.tanh(x @ w) - y) ** 2)


grad_fn = jax.grad(loss)
value_and_grad_fn = jax.value_and_grad(loss)
w = jnp.full((5, 1), 0.1)
x = jnp.linspace(-1, 1, 80).reshape(16, 5)
y = jnp.sin(x.sum(1, keepdims=True))
for i in range(100):
    if i % 10 == 0:
        value, g = value_and_grad_fn(w, x, y)
        print(i, float(value))
    else:
        g = grad_fn(w, x, y)
    w = w - 0.1 * g
print(float(loss(w, x, y)))
