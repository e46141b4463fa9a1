"""A plain Optax training loop (an MLP, adam, a jitted step made once)."""

import jax
import jax.numpy as jnp
import optax


def init(key):
    k1, k2 = jax.random.split(key)
    return {"w1": jax.random.normal(k1, (8, 32)) * 0.1, "w2": jax.random.normal(k2, (32, 1)) * 0.1}


def loss(p, x, y):
    return jnp.mean((jnp.tanh(x @ p["w1"]) @ p["w2"] - y) ** 2)


opt = optax.adamw(optax.cosine_decay_schedule(1e-2, 100))
params = init(jax.random.PRNGKey(0))
state = opt.init(params)


@jax.jit
def step(params, state, x, y):
    loss_value, g = jax.value_and_grad(loss)(params, x, y)
    updates, state = opt.update(g, state, params)
    return optax.apply_updates(params, updates), state, loss_value


key = jax.random.PRNGKey(1)
for _ in range(100):
    key, sub = jax.random.split(key)
    x = jax.random.normal(sub, (32, 8))
    params, state, loss_value = step(params, state, x, x.sum(1, keepdims=True))
print(float(loss_value))
