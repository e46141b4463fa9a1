"""The bodies of the generated functions: every leaf summed to one float32 scalar (so any
arguments fit, and grad, jvp and linearize around the call apply), with a transformation
inside where the program asks for one."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax


def _leaves(trees: Any) -> list[Any]:
    return [jnp.asarray(leaf, jnp.float32) for leaf in jax.tree_util.tree_leaves(trees)]


def _sum(values: list[Any]) -> Any:
    total = jnp.float32(0)
    for value in values:
        total = total + value
    return total


def plain(trees: Any) -> Any:
    return _sum([jnp.sum(leaf) for leaf in _leaves(trees)])


def inner_vmap(trees: Any) -> Any:
    return _sum([jnp.sum(jax.vmap(jnp.sin)(jnp.ravel(leaf))) for leaf in _leaves(trees)])


def inner_scan(trees: Any) -> Any:
    def step(carry: Any, value: Any) -> tuple[Any, None]:
        return carry + value, None

    return _sum([lax.scan(step, jnp.float32(0), jnp.ravel(leaf))[0] for leaf in _leaves(trees)])


def inner_remat(trees: Any) -> Any:
    summed = jax.checkpoint(lambda v: jnp.sum(jnp.sin(v)))
    return _sum([summed(leaf) for leaf in _leaves(trees)])


def inner_grad(trees: Any) -> Any:
    squares = jax.grad(lambda v: jnp.sum(v * v))
    return _sum([jnp.sum(squares(leaf)) for leaf in _leaves(trees)])


def named(trees: Any) -> Any:
    """Only under ``vmap(..., axis_name="i")``: a sum over the named axis."""
    return lax.psum(plain(trees), "i")


BODIES = {
    "sum": plain,
    "vmap": inner_vmap,
    "scan": inner_scan,
    "remat": inner_remat,
    "grad": inner_grad,
    "named": named,
}
