"""Cases of JAX's tests/compilation_cache_test.py (jax-ml/jax), in one program:

* test_persistent_cache_hit_logging: ``jit(lambda x: x + 1)(1)`` twice with the persistent
  cache on and its thresholds at 0: the second lambda (a new function object) is loaded
  from the persistent cache;
* test_persistent_cache_miss_logging_with_no_explain: the program did not ask for
  explanations, so JAX's "Writing ... to persistent compilation cache" and "Not writing
  persistent cache entry" messages stay below WARNING: nothing on stderr.

The cache folder is the first argument (a fresh one per run).
"""

import sys

import jax

jax.config.update("jax_compilation_cache_dir", sys.argv[1])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def plus_one():
    return jax.jit(lambda x: x + 1)


print(plus_one()(1))
print(plus_one()(1))  # a new function object, same program: a persistent-cache load
jax.config.update("jax_persistent_cache_min_compile_time_secs", 1e5)
print(jax.jit(lambda x: x**2)(3))  # "Not writing persistent cache entry": too fast
