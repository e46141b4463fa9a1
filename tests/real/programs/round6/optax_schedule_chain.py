"""optax.chain with clipping and a schedule; the optimizer rebuilt with another learning rate
and the step jitted over it as a static argument."""

from functools import partial

import jax
import jax.numpy as jnp
import optax


def make(lr):
    return optax.chain(
        optax.clip_by_global_norm(1.0), optax.sgd(optax.linear_schedule(lr, 0.0, 10))
    )


@partial(jax.jit, static_argnums=0)
def update(opt, params, state, g):
    updates, state = opt.update(g, state, params)
    return optax.apply_updates(params, updates), state


params = jnp.ones(3)
g = jnp.full(3, 2.0)
opt = make(0.1)
state = opt.init(params)
for _ in range(2):
    params, state = update(opt, params, state, g)
opt = make(0.1)  # an equal optimizer, a new object
params, state = update(opt, params, state, g)
print([round(v, 4) for v in params.tolist()])
