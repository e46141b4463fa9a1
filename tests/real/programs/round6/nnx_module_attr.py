"""A Flax NNX module under nnx.jit whose plain Python attribute changes between calls."""

import jax.numpy as jnp
from flax import nnx


class Dropoutish(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(3, 2, rngs=rngs)
        self.mode = "train"

    def __call__(self, x):
        y = self.linear(x)
        return y * 0.5 if self.mode == "train" else y


@nnx.jit
def forward(model, x):
    return model(x)


model = Dropoutish(nnx.Rngs(0))
x = jnp.ones((1, 3))
print(forward(model, x).shape)
print(forward(model, x).shape)
model.mode = "eval"
print(forward(model, x).shape)
model.mode = "train"
print(forward(model, x).shape)
print(forward(model, jnp.ones((2, 3))).shape)
