"""An epoch as one jax.lax.scan over minibatches with an Optax state in the carry, jitted
once; the data reshuffled each epoch (the same shapes)."""

import jax
import jax.numpy as jnp
import optax

opt = optax.sgd(0.05, momentum=0.9)


def loss(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def epoch(w, state, xs, ys):
    def body(carry, batch):
        w, state = carry
        value, g = jax.value_and_grad(loss)(w, *batch)
        updates, state = opt.update(g, state, w)
        return (optax.apply_updates(w, updates), state), value

    (w, state), values = jax.lax.scan(body, (w, state), (xs, ys))
    return w, state, values.mean()


key = jax.random.PRNGKey(0)
x = jax.random.normal(key, (640, 6))
y = x @ jnp.arange(6.0)[:, None]
w = jnp.zeros((6, 1))
state = opt.init(w)
for e in range(10):
    perm = jax.random.permutation(jax.random.PRNGKey(e), 640)
    xs, ys = x[perm].reshape(20, 32, 6), y[perm].reshape(20, 32, 1)
    w, state, value = epoch(w, state, xs, ys)
    print(e, float(value))
