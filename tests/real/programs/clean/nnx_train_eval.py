"""Flax NNX with Dropout and BatchNorm: model.train() for each epoch's steps, model.eval()
for its validation, both through nnx.jit (the mode is a static attribute of the graph:
two programs each, compiled once and reused every epoch), and a method jitted with
nnx.jit on the module itself."""

import jax
import jax.numpy as jnp
import optax
from flax import nnx


class Net(nnx.Module):
    def __init__(self, rngs):
        self.l1 = nnx.Linear(8, 32, rngs=rngs)
        self.bn = nnx.BatchNorm(32, rngs=rngs)
        self.drop = nnx.Dropout(0.2, rngs=rngs)
        self.l2 = nnx.Linear(32, 1, rngs=rngs)

    def __call__(self, x):
        return self.l2(self.drop(nnx.relu(self.bn(self.l1(x)))))

    @nnx.jit
    def score(self, x, y):
        return jnp.mean((self(x) - y) ** 2)


model = Net(nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param)


@nnx.jit
def train_step(model, optimizer, x, y):
    loss, grads = nnx.value_and_grad(lambda m: jnp.mean((m(x) - y) ** 2))(model)
    optimizer.update(model, grads)
    return loss


@nnx.jit
def eval_step(model, x, y):
    return jnp.mean((model(x) - y) ** 2)


key = jax.random.PRNGKey(0)
for epoch in range(6):
    model.train()
    for _ in range(15):
        key, sub = jax.random.split(key)
        x = jax.random.normal(sub, (32, 8))
        train_step(model, optimizer, x, x.sum(1, keepdims=True))
    model.eval()
    print(epoch, float(eval_step(model, x, x.sum(1, keepdims=True))), float(model.score(x, x)))
