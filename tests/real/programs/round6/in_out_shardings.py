"""jit with in_shardings and out_shardings on a two-device mesh; arguments placed
differently; the same function with other out_shardings."""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:2]), ("d",))
rows = NamedSharding(mesh, P("d"))
whole = NamedSharding(mesh, P())


def double(x):
    return x * 2.0


by_rows = jax.jit(double, in_shardings=rows, out_shardings=whole)
x = jnp.arange(8.0).reshape(4, 2)
print(by_rows(x).sum().item())
print(by_rows(jax.device_put(x, rows)).sum().item())
print(by_rows(jnp.arange(12.0).reshape(6, 2)).sum().item())
gathered = jax.jit(double, out_shardings=rows)
print(gathered(x).sum().item())
print(gathered(jax.device_put(x, rows)).sum().item())
print(gathered(jax.device_put(x, whole)).sum().item())
