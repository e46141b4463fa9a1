"""flax#5548's shape in Flax Linen: the TrainState is re-created each epoch with a new
optax.adam of the same rate (a "restart" of the optimizer), so the state's static tx is a
new object equal in content and the jitted step compiles again every epoch."""

import jax
import jax.numpy as jnp
import optax
from flax import linen as nn
from flax.training import train_state


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(1)(nn.relu(nn.Dense(16)(x)))


model = MLP()
params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 4)))["params"]


@jax.jit
def train_step(state, x, y):
    grads = jax.grad(lambda p: jnp.mean((state.apply_fn({"params": p}, x) - y) ** 2))(state.params)
    return state.apply_gradients(grads=grads)


x = jnp.ones((16, 4))
for epoch in range(4):
    state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-3))
    for _ in range(5):
        state = train_step(state, x, x.sum(1, keepdims=True))
    params = state.params
    print(epoch, float(jax.tree.leaves(params)[0].sum()))
