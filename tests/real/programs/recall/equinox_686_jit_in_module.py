"""equinox#686's shape: an Equinox module holds a jax.jit object made in __init__; the model
is built again for a second optimisation loop, and the filter_jit step compiles again."""

import equinox as eqx
import jax
import jax.numpy as jnp
import optax


def fk(q):
    return jnp.stack([jnp.cos(q[..., 0]), jnp.sin(q[..., 1]), q[..., 2]], axis=-1)


class Trajectory(eqx.Module):
    layer: eqx.nn.Linear
    scale: jax.Array
    forward: object

    def __init__(self, key):
        self.layer = eqx.nn.Linear(1, 3, key=key)
        self.scale = jnp.ones(3)
        self.forward = jax.jit(fk)

    def __call__(self, t):
        return self.forward(self.layer(t) * self.scale)


def loss(model, t, y):
    return jnp.mean((jax.vmap(model)(t) - y) ** 2)


@eqx.filter_jit
def step(model, opt_state, t, y):
    value, grads = eqx.filter_value_and_grad(loss)(model, t, y)
    updates, opt_state = opt.update(grads, opt_state, model)
    return value, eqx.apply_updates(model, updates), opt_state


opt = optax.adam(1e-2)
t = jnp.linspace(0, 1, 16)[:, None]
y = jnp.zeros((16, 3))
for run in range(3):  # a fresh model per run, as in the thread's second loop
    model = Trajectory(jax.random.PRNGKey(run))
    opt_state = opt.init(eqx.filter(model, eqx.is_array))
    for _ in range(5):
        value, model, opt_state = step(model, opt_state, t, y)
print(float(value))
