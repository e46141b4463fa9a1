"""JAX's tests/pjit_test.py (jax-ml/jax) test_pjit_different_device_recompilation, on 2 CPU
devices: ``on_device`` called with an array committed to device 0, then with one committed
to device 1. JAX compiles twice (the executable is built for its device)."""

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=2")

import jax
import jax.numpy as jnp


@jax.jit
def on_device(x):
    return x


a = jax.device_put(jnp.array([1.0, 2.0, 3.0]), jax.devices()[0])
b = jax.device_put(jnp.array([4.0, 5.0, 6.0]), jax.devices()[1])
print(on_device(a), on_device(b))
