"""shard_map on a two-device CPU mesh: inputs sharded and replicated, and a second mesh."""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

try:
    from jax import shard_map
except ImportError:
    from jax.experimental.shard_map import shard_map

mesh = Mesh(np.array(jax.devices()[:2]), ("i",))


@jax.jit
@partial(shard_map, mesh=mesh, in_specs=P("i"), out_specs=P())
def total(x):
    return jax.lax.psum(jnp.sum(x), "i")


x = jnp.arange(8.0)
print(float(total(x)))
sharded = jax.device_put(x, NamedSharding(mesh, P("i")))
print(float(total(sharded)))
print(float(total(sharded)))
replicated = jax.device_put(x, NamedSharding(mesh, P()))
print(float(total(replicated)))
print(float(total(jnp.arange(6.0))))
