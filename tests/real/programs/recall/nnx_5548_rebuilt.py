"""flax#5548's shape: each epoch builds a new model and a new nnx.Optimizer(model,
optax.adam(lr)) and trains it with an nnx.jit step; the optimizer's tx holds optax's
init/update closures, new each epoch, so nnx.jit compiles every epoch and keeps every
program alive."""

import jax.numpy as jnp
import optax
from flax import nnx


class Model(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(3, 2, rngs=rngs)

    def __call__(self, x):
        return self.linear(x)


@nnx.jit
def train_step(model, optimizer, x):
    def loss_fn(model):
        return jnp.mean(model(x) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


x = jnp.ones((4, 3))
for epoch in range(10):
    model = Model(nnx.Rngs(epoch))
    optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
    for _ in range(2):
        loss = train_step(model, optimizer, x)
print(float(loss))
