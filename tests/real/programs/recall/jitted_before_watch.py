"""The README's own shape: functions jitted at module level, then `with jitlab.watch()`
around train() (the recording's path is the first argument); the config is built anew each
epoch (jax#4274's identity-compared static) and a validation step prints."""

import sys
from functools import partial

import jax
import jax.numpy as jnp

import jitlab


class Config:
    def __init__(self, scale):
        self.scale = scale


@partial(jax.jit, static_argnums=1)
def step(x, cfg):
    return x * cfg.scale


@jax.jit
def validate(x):
    jax.debug.print("val {v}", v=x.sum())
    return x.sum()


def train():
    x = jnp.ones(4)
    for _epoch in range(3):
        cfg = Config(2.0)
        for _ in range(5):
            x = step(x, cfg)
        validate(x)


with jitlab.watch(sys.argv[1]):
    train()
