"""A watch recorder printed at a plain Python prompt: where it writes, whether it records,
the functions it watched and their totals; printing it changes nothing."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jitlab.watching.recorder import Recorder, watch


def test_repr_names_the_functions_and_totals(tmp_path):
    assert repr(Recorder(None)) == (
        "<Recorder (no file, stopped): functions=0 compiles=0 recompiles=0 hits=- errors=0>"
    )
    with watch():  # a function an earlier watch saw: nothing of it in the next one
        early = jax.jit(lambda x: x - 1)
        early(jnp.ones(2))
    path = tmp_path / "run.jsonl"
    with watch(path) as recorder:
        f = jax.jit(lambda x: x + 1)
        g = jax.jit(lambda x: x * 3)
        for n in (2, 2, 3, 2):
            f(jnp.ones(n))
        g(jnp.ones(2))
        shown = repr(recorder)
        assert shown == repr(recorder)  # printing it again: the same (nothing moved)
    assert shown == (
        f"<Recorder ({path}, recording): functions=2 compiles=2 recompiles=1 hits=2 errors=0>"
    )
    assert f._cache_size() == 2  # JAX's own count for f: a compile and a recompile
    assert repr(recorder).startswith(f"<Recorder ({path}, stopped): functions=2")
    assert len(recorder.compiles) == 3


def test_a_half_built_recorder_still_prints():
    recorder = Recorder.__new__(Recorder)
    assert repr(recorder).startswith("<Recorder at 0x")
