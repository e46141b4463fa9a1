"""A training state as a registered dataclass (jax.tree_util.register_dataclass) with a
static, hashable config field (a frozen dataclass), rebuilt each step with
dataclasses.replace; the config is an equal value every time."""

import dataclasses
from functools import partial

import jax
import jax.numpy as jnp


@dataclasses.dataclass(frozen=True)
class Config:
    lr: float = 0.05
    decay: float = 0.999


@partial(jax.tree_util.register_dataclass, data_fields=["w", "step"], meta_fields=["config"])
@dataclasses.dataclass
class State:
    w: jax.Array
    step: jax.Array
    config: Config


@jax.jit
def train(state, x):
    g = jax.grad(lambda w: jnp.mean((x @ w - 1.0) ** 2))(state.w)
    lr = state.config.lr * state.config.decay**state.step
    return dataclasses.replace(state, w=state.w - lr * g, step=state.step + 1)


state = State(jnp.zeros((4, 1)), jnp.array(0), Config())
x = jnp.ones((8, 4))
for epoch in range(5):
    state = dataclasses.replace(state, config=Config())  # read again from a config file
    for _ in range(20):
        state = train(state, x)
    print(epoch, float(state.w.sum()))
