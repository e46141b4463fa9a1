"""Pytrees of one content in other containers: a NamedTuple vs a tuple, a dict whose keys
came in another order, an OrderedDict, a None leaf, a list vs a tuple."""

from collections import OrderedDict
from typing import NamedTuple

import jax
import jax.numpy as jnp


class Pair(NamedTuple):
    a: jax.Array
    b: jax.Array


@jax.jit
def combine(p):
    leaves = jax.tree_util.tree_leaves(p)
    return sum(jnp.sum(v) for v in leaves)


one, two = jnp.ones(2), jnp.ones(3)
print(float(combine((one, two))))
print(float(combine(Pair(one, two))))
print(float(combine([one, two])))
print(float(combine({"a": one, "b": two})))
print(float(combine({"b": two, "a": one})))  # sorted keys: the same tree
print(float(combine(OrderedDict(b=two, a=one))))
print(float(combine(OrderedDict(a=one, b=two))))
print(float(combine((one, None))))
print(float(combine((one, two, None))))
