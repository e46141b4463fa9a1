"""flax.struct.dataclass with a pytree_node=False field that changes between calls."""

import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class Config:
    scale: jax.Array
    mode: str = struct.field(pytree_node=False)
    depth: int = struct.field(pytree_node=False, default=1)


@jax.jit
def run(cfg, x):
    for _ in range(cfg.depth):
        x = x * cfg.scale if cfg.mode == "mul" else x + cfg.scale
    return x


x = jnp.ones(3)
print(run(Config(jnp.float32(2.0), "mul"), x).tolist())
print(run(Config(jnp.float32(3.0), "mul"), x).tolist())
print(run(Config(jnp.float32(2.0), "add"), x).tolist())
print(run(Config(jnp.float32(2.0), "add", depth=3), x).tolist())
print(run(Config(jnp.float32(2.0), "mul").replace(depth=2), x).tolist())
