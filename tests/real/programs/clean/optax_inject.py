"""Optax as in its docs: a chain of gradient clipping and AdamW with
optax.inject_hyperparams, the learning rate changed in the optimizer state between epochs
(a traced value: the step compiles once)."""

import jax
import jax.numpy as jnp
import optax

opt = optax.chain(
    optax.clip_by_global_norm(1.0),
    optax.inject_hyperparams(optax.adamw)(learning_rate=1e-2, weight_decay=1e-4),
)


def loss(p, x, y):
    return jnp.mean((jnp.tanh(x @ p["w"] + p["b"]) - y) ** 2)


@jax.jit
def step(p, state, x, y):
    value, g = jax.value_and_grad(loss)(p, x, y)
    updates, state = opt.update(g, state, p)
    return optax.apply_updates(p, updates), state, value


p = {"w": jnp.zeros((4, 2)), "b": jnp.zeros(2)}
state = opt.init(p)
x = jax.random.normal(jax.random.PRNGKey(0), (64, 4))
y = jnp.tanh(x[:, :2])
for epoch in range(8):
    for _ in range(20):
        p, state, value = step(p, state, x, y)
    state[1].hyperparams["learning_rate"] = state[1].hyperparams["learning_rate"] * 0.5
    print(epoch, float(value))
