"""A jitted Newton solver (jax.lax.while_loop) called with a different tolerance and
starting point each time: floats passed as traced arguments, one program."""

import jax
import jax.numpy as jnp


@jax.jit
def solve(a, x0, tol):
    def cond(state):
        x, i = state
        return (jnp.abs(x * x - a) > tol) & (i < 100)

    def body(state):
        x, i = state
        return x - (x * x - a) / (2 * x), i + 1

    return jax.lax.while_loop(cond, body, (x0, 0))


for k in range(1, 60):
    root, steps = solve(jnp.float32(k), jnp.float32(k), 10.0 ** -(k % 6))
    print(k, float(root), int(steps))
