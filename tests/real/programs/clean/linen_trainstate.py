"""Flax Linen with a TrainState (flax.training.train_state): the state carries the
optimizer as a static field; apply_gradients returns a new state with the same tx."""

import jax
import jax.numpy as jnp
import optax
from flax import linen as nn
from flax.training import train_state


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(32)(x))
        return nn.Dense(1)(x)


model = MLP()
params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 8)))["params"]
state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-3))


@jax.jit
def train_step(state, x, y):
    def loss_fn(params):
        return jnp.mean((state.apply_fn({"params": params}, x) - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads), loss


key = jax.random.PRNGKey(1)
for epoch in range(5):
    for _ in range(20):
        key, sub = jax.random.split(key)
        x = jax.random.normal(sub, (32, 8))
        state, loss = train_step(state, x, x.sum(1, keepdims=True))
    print(epoch, float(loss))
