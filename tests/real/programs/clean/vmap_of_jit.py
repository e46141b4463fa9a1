"""jax.vmap over a jitted function, eagerly and under an outer jit: per-example losses and
an ensemble of five models evaluated at once, each call the same shapes."""

import jax
import jax.numpy as jnp


@jax.jit
def predict(w, x):
    return jnp.tanh(x @ w).sum()


per_example = jax.vmap(predict, in_axes=(None, 0))
ensemble = jax.jit(jax.vmap(predict, in_axes=(0, None)))
key = jax.random.PRNGKey(0)
ws = jax.random.normal(key, (5, 4, 3))
x = jnp.ones((10, 4))
total = 0.0
for i in range(60):
    total += float(per_example(ws[i % 5], x).sum())
    total += float(ensemble(ws, x[i % 10]).sum())
print(total)
