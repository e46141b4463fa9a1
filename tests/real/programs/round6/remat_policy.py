"""jax.checkpoint with a policy chosen by a static argument (the remat docs' policies)."""

from functools import partial

import jax
import jax.numpy as jnp

POLICIES = {
    "nothing": jax.checkpoint_policies.nothing_saveable,
    "dots": jax.checkpoint_policies.dots_saveable,
}


def layer(w, x):
    return jnp.tanh(w @ x)


@partial(jax.jit, static_argnames="policy")
def grad_of_stack(w, x, policy):
    body = jax.checkpoint(layer, policy=POLICIES[policy])

    def loss(w):
        h = x
        for _ in range(3):
            h = body(w, h)
        return jnp.sum(h)

    return jax.grad(loss)(w)


w = jnp.eye(4) * 0.5
x = jnp.ones(4)
for policy in ("nothing", "dots", "nothing", "dots"):
    print(policy, round(float(grad_of_stack(w, x, policy=policy).sum()), 4))
print(round(float(grad_of_stack(w, x, "dots").sum()), 4))
