"""An Equinox module with a static field and a non-array field, under eqx.filter_jit."""

import equinox as eqx
import jax
import jax.numpy as jnp


class Layer(eqx.Module):
    weight: jax.Array
    activation: str = eqx.field(static=True)
    gain: float = 1.0

    def __call__(self, x):
        y = self.weight @ x * self.gain
        return jnp.tanh(y) if self.activation == "tanh" else jax.nn.relu(y)


@eqx.filter_jit
def forward(layer, x):
    return layer(x)


w, x = jnp.eye(3), jnp.ones(3)
print(forward(Layer(w, "tanh"), x).tolist())
print(forward(Layer(w * 2, "tanh"), x).tolist())
print(forward(Layer(w, "relu"), x).tolist())
print(forward(Layer(w, "relu", 2.0), x).tolist())  # a Python float: static under filter_jit
print(forward(Layer(w, "relu", 3.0), x).tolist())
print(forward(Layer(w, "relu", jnp.float32(3.0)), x).tolist())
