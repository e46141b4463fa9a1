"""An Equinox training loop (eqx.nn.MLP, optax, filter_jit step), as in Equinox's docs."""

import equinox as eqx
import jax
import jax.numpy as jnp
import optax

model = eqx.nn.MLP(8, 1, 32, 2, key=jax.random.PRNGKey(0))
opt = optax.adam(1e-3)
state = opt.init(eqx.filter(model, eqx.is_inexact_array))


@eqx.filter_jit
def step(model, state, x, y):
    def loss(m):
        return jnp.mean((jax.vmap(m)(x) - y) ** 2)

    loss_value, g = eqx.filter_value_and_grad(loss)(model)
    updates, state = opt.update(g, state, eqx.filter(model, eqx.is_inexact_array))
    return eqx.apply_updates(model, updates), state, loss_value


key = jax.random.PRNGKey(1)
for _ in range(60):
    key, sub = jax.random.split(key)
    x = jax.random.normal(sub, (16, 8))
    model, state, loss_value = step(model, state, x, x.sum(1, keepdims=True))
print(float(loss_value))
