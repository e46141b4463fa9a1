"""jax.jit of bound methods: one per instance, and a method jitted with static self."""

from functools import partial

import jax
import jax.numpy as jnp


class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        return x * self.k

    def __hash__(self):
        return hash(self.k)

    def __eq__(self, other):
        return isinstance(other, Scaler) and other.k == self.k

    @partial(jax.jit, static_argnums=0)
    def static_apply(self, x):
        return x * self.k + 1.0


a, b = Scaler(2.0), Scaler(3.0)
fa = jax.jit(a.apply)
print(fa(jnp.ones(2)).tolist(), fa(jnp.ones(2)).tolist())
fb = jax.jit(b.apply)
print(fb(jnp.ones(2)).tolist())
print(jax.jit(a.apply)(jnp.ones(2)).tolist())
print(a.static_apply(jnp.ones(2)).tolist())
print(Scaler(2.0).static_apply(jnp.ones(2)).tolist())  # equal and hash-equal: a hit
print(b.static_apply(jnp.ones(2)).tolist())
a.k = 5.0  # hash changes with k
print(a.static_apply(jnp.ones(2)).tolist())
