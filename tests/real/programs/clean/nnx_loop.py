"""A Flax NNX training loop (nnx.Optimizer, nnx.jit step), as in Flax's tutorial."""

import jax
import jax.numpy as jnp
import optax
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, rngs):
        self.l1 = nnx.Linear(8, 32, rngs=rngs)
        self.l2 = nnx.Linear(32, 1, rngs=rngs)

    def __call__(self, x):
        return self.l2(nnx.relu(self.l1(x)))


model = MLP(nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return jnp.mean((model(x) - y) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


@nnx.jit
def eval_step(model, x, y):
    return jnp.mean((model(x) - y) ** 2)


key = jax.random.PRNGKey(0)
for epoch in range(3):
    for _ in range(30):
        key, sub = jax.random.split(key)
        x = jax.random.normal(sub, (16, 8))
        loss = train_step(model, optimizer, x, x.sum(1, keepdims=True))
    print(epoch, float(eval_step(model, x, x.sum(1, keepdims=True))))
