"""The persistent compilation cache in a temporary folder: a compile, jax.clear_caches(),
then the same program again (loaded from disk) and a new shape (compiled)."""

import sys
import tempfile

import jax
import jax.numpy as jnp

folder = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
jax.config.update("jax_compilation_cache_dir", folder)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


@jax.jit
def softplus_sum(x):
    return jnp.sum(jnp.logaddexp(x, 0.0))


print(round(float(softplus_sum(jnp.ones(8))), 4))
jax.clear_caches()
print(round(float(softplus_sum(jnp.ones(8))), 4))
print(round(float(softplus_sum(jnp.ones(16))), 4))
