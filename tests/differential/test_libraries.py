"""Generated programs with Flax and Equinox: their pytrees as plain jax.jit arguments, and
their own jit wrappers (each test skips where its library is not installed)."""

from __future__ import annotations

import pytest

from .conftest import Generated
from .strategies import Dims


def test_flax_struct_and_nnx_modules_as_arguments(generated: Generated) -> None:
    pytest.importorskip("flax")
    # flax.struct with pytree_node=False fields; NNX modules (Params, static attributes).
    generated(Dims(kinds=("struct", "nnx", "dict")), 50)


def test_equinox_modules_as_arguments(generated: Generated) -> None:
    pytest.importorskip("equinox")
    # Equinox modules with field(static=True), inside containers too.
    generated(Dims(kinds=("eqx", "tuple")), 50)


def test_nnx_jit_and_jit_partial(generated: Generated) -> None:
    pytest.importorskip("flax")
    # nnx.jit (NNX graphs among the arguments) and nnx.jit_partial (a module pre-bound).
    dims = Dims(wrappers=("nnx.jit", "nnx.jit_partial"), kinds=("nnx", "dict"))
    generated(dims, 50)


def test_equinox_filter_jit(generated: Generated) -> None:
    pytest.importorskip("equinox")
    # eqx.filter_jit: arrays traced, every other leaf (Python scalars too) static.
    generated(Dims(wrappers=("eqx.filter_jit",), kinds=("eqx", "tuple")), 50)
