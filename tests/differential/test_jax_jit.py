"""Generated programs with ``jax.jit`` and JAX's own pytrees, watched and probed, against
JAX's log in the same run (see checking.py for what must agree)."""

from __future__ import annotations

from .conftest import Generated
from .strategies import PLAIN_NODES, Dims


def test_arrays_scalars_statics_and_context(generated: Generated) -> None:
    # Shape, dtype, weak type, static values by value and by identity, keyword vs
    # position; x64, matmul precision, f.clear_cache() and jax.clear_caches() between.
    generated(Dims(), 100)


def test_pytrees_with_static_data(generated: Generated) -> None:
    # Containers, register_dataclass with meta fields, custom nodes with and without keys,
    # tree_util.Partial: structure and static data changed, alone or with a leaf.
    generated(Dims(kinds=PLAIN_NODES), 100)


def test_wrappers_of_the_callable(generated: Generated) -> None:
    # A bound method, a partial pre-binding an argument, a callable object: jitted once,
    # jitted again before each call (kept alive, or dropped after it).
    dims = Dims(
        wrappers=("jit", "method", "partial", "callable"),
        handings=("once", "kept", "temporary"),
        kinds=("tuple", "dict"),
    )
    generated(dims, 100)
