"""jax.named_call and jax.named_scope: names given inside and around a jitted function."""

import jax
import jax.numpy as jnp


def block(x):
    with jax.named_scope("inner"):
        return jnp.sin(x) * 2.0


@jax.jit
def model(x):
    return jax.named_call(block, name="layer0")(x)


named_first = jax.jit(jax.named_call(block, name="first"))
named_second = jax.jit(jax.named_call(block, name="second"))
print(round(float(model(jnp.ones(3)).sum()), 4))
print(round(float(model(jnp.ones(4)).sum()), 4))
print(round(float(named_first(jnp.ones(3)).sum()), 4))
print(round(float(named_second(jnp.ones(3)).sum()), 4))
with jax.named_scope("outer"):
    print(round(float(model(jnp.ones(3)).sum()), 4))
