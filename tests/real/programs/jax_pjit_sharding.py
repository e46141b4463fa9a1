"""Sharding cases of JAX's tests/pjit_test.py (jax-ml/jax), on 8 CPU devices:

* test_cache_miss_explanations_sharding_mismatch: ``mismatch(x, y)`` called with x a NumPy
  array, then with x sharded on a 2-device mesh (JAX: "at x, now f32[8]({Auto: ('x',)}) and
  before f32[8]({})");
* testAutodiffCache: ``jax.grad`` of a jitted ``sin_sum`` with ``in_shardings=P('x')``,
  twice: the second grad compiles nothing;
* equivalent shardings: ``doubled`` of an array placed with ``P()`` on an Explicit mesh hits
  on its own output (``P(None, None)``, the same sharding to JAX's cache), then recompiles
  for a dtype change of that output.
"""

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
s = NamedSharding(mesh, P("x"))


@jax.jit
def mismatch(x, y):
    return x * y


np_inp = np.arange(8, dtype=np.float32)
y = jax.device_put(np_inp, s)
print(mismatch(np_inp, y).sum())
print(mismatch(jax.device_put(np_inp, s), y).sum())


@jax.jit(in_shardings=s, out_shardings=None)
def sin_sum(x):
    return jnp.sin(x).sum()


x16 = jnp.arange(16, dtype=jnp.float32)
print(jax.grad(sin_sum)(x16).sum())  # warms the cache
print(jax.grad(sin_sum)(x16).sum())  # no compile


@jax.jit
def doubled(w):
    return w * 2


explicit = jax.make_mesh((2,), ("x",))  # Explicit axes (0.10's default): outputs P(None, None)
w = jax.device_put(jnp.ones((8, 4)), NamedSharding(explicit, P()))
w2 = doubled(w)
print(w2.sharding.spec, doubled(w2).sum())  # a hit: P(None, None) is P() to JAX's cache
print(doubled(w2.astype(jnp.bfloat16)).sum())  # a dtype change, nothing else
