"""Flax's examples/nnx_toy_examples/01_functional_api.py (google/flax), shrunk: nnx.split
into graphdef / params / counts, a plain jax.jit train_step and test_step, 30 steps on the
example's synthetic sine data (seeded; no plot). The example's Count variable, mutated
inside the trace, is left out: Flax 0.12 refuses that mutation (TraceContextError)."""

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

rng = np.random.default_rng(0)
X = np.linspace(-jnp.pi, jnp.pi, 100)[:, None]
Y = 0.8 * jnp.sin(X) + 0.1 + rng.normal(0, 0.1, size=X.shape)


def dataset(batch_size):
    while True:
        idx = rng.choice(len(X), size=batch_size)
        yield X[idx], Y[idx]


class Linear(nnx.Module):
    def __init__(self, din: int, dout: int, *, rngs: nnx.Rngs):
        self.w = nnx.Param(jax.random.uniform(rngs.params(), (din, dout)))
        self.b = nnx.Param(jnp.zeros((dout,)))

    def __call__(self, x):
        return x @ self.w[...] + self.b[...]


class MLP(nnx.Module):
    def __init__(self, din, dhidden, dout, *, rngs: nnx.Rngs):
        self.linear1 = Linear(din, dhidden, rngs=rngs)
        self.linear2 = Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x):
        return self.linear2(jax.nn.relu(self.linear1(x) * 0.5))


graphdef, params = nnx.split(MLP(din=1, dhidden=16, dout=1, rngs=nnx.Rngs(0)), nnx.Param)


@jax.jit
def train_step(params, batch):
    x, y = batch

    def loss_fn(params):
        model = nnx.merge(graphdef, params)
        return jnp.mean((y - model(x)) ** 2)

    grad = jax.grad(loss_fn)(params)
    return jax.tree.map(lambda w, g: w - 0.1 * g, params, grad)


@jax.jit
def test_step(params: nnx.State, batch):
    x, y = batch
    model = nnx.merge(graphdef, params)
    return {"loss": jnp.mean((y - model(x)) ** 2)}


total_steps = 30
for step, batch in enumerate(dataset(32)):
    params = train_step(params, batch)
    if step % 10 == 0:
        logs = test_step(params, (X, Y))
        print(f"step: {step}, loss: {logs['loss']:.5f}")
    if step >= total_steps - 1:
        break

model = nnx.merge(graphdef, params)
print("prediction at 0:", f"{float(model(jnp.zeros((1, 1)))[0, 0]):.5f}")
