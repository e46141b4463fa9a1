"""Equinox as in its tutorials: a Module whose method is wrapped with eqx.filter_jit, the
model called through eqx.filter_jit(model), and a filter_jit training step taking the
model, with eqx.partition / eqx.combine to freeze part of it."""

import equinox as eqx
import jax
import jax.numpy as jnp
import optax


class Model(eqx.Module):
    encoder: eqx.nn.Linear
    head: eqx.nn.MLP
    scale: float = eqx.field(static=True)

    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.encoder = eqx.nn.Linear(6, 16, key=k1)
        self.head = eqx.nn.MLP(16, 1, 16, 1, activation=jax.nn.gelu, key=k2)
        self.scale = 0.5

    def __call__(self, x):
        return self.head(jax.nn.tanh(self.encoder(x))) * self.scale

    @eqx.filter_jit
    def loss(self, x, y):
        return jnp.mean((jax.vmap(self)(x) - y) ** 2)


model = Model(jax.random.PRNGKey(0))
frozen = jax.tree.map(lambda _: False, model)
frozen = eqx.tree_at(lambda m: m.head, frozen, replace=jax.tree.map(eqx.is_array, model.head))
opt = optax.adam(1e-2)
state = opt.init(eqx.filter(model, frozen))


@eqx.filter_jit
def step(model, state, x, y):
    train, fixed = eqx.partition(model, frozen)

    def loss(train):
        m = eqx.combine(train, fixed)
        return jnp.mean((jax.vmap(m)(x) - y) ** 2)

    g = eqx.filter_grad(loss)(train)
    updates, state = opt.update(g, state, train)
    return eqx.combine(eqx.apply_updates(train, updates), fixed), state


forward = eqx.filter_jit(model)
key = jax.random.PRNGKey(1)
for i in range(60):
    key, sub = jax.random.split(key)
    x = jax.random.normal(sub, (32, 6))
    y = jnp.cos(x[:, :1])
    model, state = step(model, state, x, y)
    if i % 10 == 0:
        print(i, float(model.loss(x, y)), float(forward(x[0]).sum()))
