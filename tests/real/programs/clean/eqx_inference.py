"""Equinox with dropout: training steps in training mode, then eqx.nn.inference_mode for
each epoch's validation (a static field: two programs, each compiled once)."""

import equinox as eqx
import jax
import jax.numpy as jnp
import optax


class Net(eqx.Module):
    l1: eqx.nn.Linear
    drop: eqx.nn.Dropout
    l2: eqx.nn.Linear

    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.l1 = eqx.nn.Linear(4, 32, key=k1)
        self.drop = eqx.nn.Dropout(0.1)
        self.l2 = eqx.nn.Linear(32, 1, key=k2)

    def __call__(self, x, key=None):
        return self.l2(self.drop(jax.nn.relu(self.l1(x)), key=key))


@eqx.filter_jit
def loss(model, x, y, keys):
    return jnp.mean((jax.vmap(model)(x, keys) - y) ** 2)


opt = optax.adam(1e-2)


@eqx.filter_jit
def step(model, state, x, y, keys):
    g = eqx.filter_grad(loss)(model, x, y, keys)
    updates, state = opt.update(g, state, eqx.filter(model, eqx.is_array))
    return eqx.apply_updates(model, updates), state


model = Net(jax.random.PRNGKey(0))
state = opt.init(eqx.filter(model, eqx.is_array))
x = jax.random.normal(jax.random.PRNGKey(1), (32, 4))
y = x[:, :1] * 2
key = jax.random.PRNGKey(2)
for epoch in range(6):
    for _ in range(15):
        key, sub = jax.random.split(key)
        model, state = step(model, state, x, y, jax.random.split(sub, 32))
    frozen = eqx.nn.inference_mode(model)
    print(epoch, float(loss(frozen, x, y, jax.random.split(key, 32))))
