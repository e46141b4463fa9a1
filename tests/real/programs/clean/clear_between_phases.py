"""jax.clear_caches() used as JAX's docs suggest, to free memory between two phases: a
large pretraining model is dropped and its programs cleared before fine-tuning a small one;
then evaluation."""

import jax
import jax.numpy as jnp


@jax.jit
def step(w, x):
    g = jax.grad(lambda w: jnp.mean((jnp.tanh(x @ w)) ** 2))(w)
    return w - 0.01 * g


@jax.jit
def evaluate(w, x):
    return jnp.mean(jnp.tanh(x @ w) ** 2)


big = jnp.ones((256, 256)) * 0.01
xb = jnp.ones((64, 256))
for _ in range(20):
    big = step(big, xb)
features = big[:32, :8]
del big, xb
jax.clear_caches()  # the pretraining programs are not needed again

small = features
xs = jnp.ones((16, 32))
for _ in range(40):
    small = step(small, xs)
print(float(evaluate(small, xs)))
