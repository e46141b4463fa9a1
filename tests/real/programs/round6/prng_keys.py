"""New-style typed keys and old-style uint32 keys into one jitted sampler; a split key."""

import jax


@jax.jit
def sample(key, mu):
    return mu + jax.random.normal(key, (3,))


old = jax.random.PRNGKey(0)
new = jax.random.key(0)
print(sample(old, 0.0).shape)
print(sample(new, 0.0).shape)
print(sample(jax.random.split(new)[0], 0.0).shape)
print(sample(jax.random.key(1, impl="rbg"), 0.0).shape)
