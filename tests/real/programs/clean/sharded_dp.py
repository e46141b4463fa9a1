"""Data parallelism on eight CPU devices: the batch sharded over a mesh axis, parameters
replicated, one jitted step; the loss read back on the host every few steps."""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = Mesh(jax.devices(), ("data",))
batch_sharding = NamedSharding(mesh, P("data"))
replicated = NamedSharding(mesh, P())


@jax.jit
def step(w, x, y):
    value, g = jax.value_and_grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
    return w - 0.05 * g, value


w = jax.device_put(jnp.zeros((8, 1)), replicated)
key = jax.random.PRNGKey(0)
for i in range(60):
    key, sub = jax.random.split(key)
    x = jax.random.normal(sub, (64, 8))
    x = jax.device_put(x, batch_sharding)
    y = jax.device_put(x.sum(1, keepdims=True), batch_sharding)
    w, value = step(w, x, y)
    if i % 20 == 0:
        print(i, float(value))
