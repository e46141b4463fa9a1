"""Mixed precision with rematerialisation: float32 parameters cast to bfloat16 inside a
jitted step whose blocks are wrapped in jax.checkpoint."""

import jax
import jax.numpy as jnp


@jax.checkpoint
def block(w, h):
    return jax.nn.relu(h @ w.astype(jnp.bfloat16))


@jax.jit
def step(ws, x):
    def loss(ws):
        h = x.astype(jnp.bfloat16)
        for w in ws:
            h = block(w, h)
        return jnp.mean(h.astype(jnp.float32) ** 2)

    value, g = jax.value_and_grad(loss)(ws)
    return [w - 0.01 * d for w, d in zip(ws, g, strict=True)], value


ws = [jnp.eye(16) for _ in range(4)]
x = jnp.ones((8, 16))
for _ in range(40):
    ws, value = step(ws, x)
print(float(value))
