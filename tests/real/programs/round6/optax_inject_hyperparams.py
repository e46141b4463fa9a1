"""optax.inject_hyperparams: a learning rate set between steps, as a Python float and as an
array (optax docs, "Changing hyperparameters during training")."""

import jax
import jax.numpy as jnp
import optax

params = {"w": jnp.ones(3), "b": jnp.zeros(())}
opt = optax.inject_hyperparams(optax.adam)(learning_rate=0.1)
state = opt.init(params)


def loss(p, x):
    return jnp.sum((x @ p["w"] + p["b"]) ** 2)


@jax.jit
def train_step(p, s, x):
    g = jax.grad(loss)(p, x)
    updates, s = opt.update(g, s, p)
    return optax.apply_updates(p, updates), s


x = jnp.ones((4, 3))
for _ in range(3):
    params, state = train_step(params, state, x)
state.hyperparams["learning_rate"] = 0.01  # a Python float: weak type
params, state = train_step(params, state, x)
state.hyperparams["learning_rate"] = jnp.asarray(0.01)  # a strong f32 again
params, state = train_step(params, state, x)
print(round(float(params["b"]), 4))
