"""dynamic-shapes, pitfall and fix: real recompiles, and a padded loss that is still right."""

from __future__ import annotations

import sys

import jax
import numpy as np
import pytest

from jitlab.lab.discovery import scenarios
from jitlab.lab.engine import Run

SCENARIO = scenarios()["dynamic-shapes"]
module = sys.modules[SCENARIO.__module__]


def test_pitfall_recompiles_on_every_new_batch_size():
    run = Run(SCENARIO, "pitfall")
    kinds = [run.step({"batch_size": n, "depth": 1}).kind.value for n in (8, 8, 16, 8, 32, 8)]
    assert kinds == ["compile", "cache_hit", "recompile", "cache_hit", "recompile", "cache_hit"]
    assert run.last_probe.function._cache_size() == 3
    assert len(run.cards) == 3
    assert run.records[5].card == 0  # batch 8 pulls the first card again


@pytest.mark.parametrize("n", [1, 5, 8, 13, 100])
def test_masked_loss_equals_the_unpadded_loss(n: int):
    params = module.make_params(2)
    x, y = module.make_batch(n)
    x_padded, y_padded, mask = module.pad_to_bucket(x, y)
    assert x_padded.shape[0] == module.bucket_size(n) >= n
    plain = float(jax.jit(module.mlp_loss)(params, x, y))
    padded = float(jax.jit(module.masked_mlp_loss)(params, x_padded, y_padded, mask))
    np.testing.assert_allclose(padded, plain, rtol=1e-5)


def test_bucket_sizes_are_powers_of_two_up_to_the_maximum():
    assert [module.bucket_size(n) for n in (1, 2, 3, 4, 5, 1000, 1024)] == [
        1,
        2,
        4,
        4,
        8,
        1024,
        1024,
    ]


def test_fix_compiles_once_per_bucket_and_reset_empties_the_card_holder():
    run = Run(SCENARIO, "fix")
    for n in (3, 4, 2, 7, 8, 5):
        run.step({"batch_size": n, "depth": 1})
    compiled = [r.params["batch_size"] for r in run.records if r.kind.compiled]
    assert compiled == [3, 2, 7]  # buckets 4, 2, 8
    assert len(run.cards) == 3
    run.reset()
    record = run.step({"batch_size": 3, "depth": 1})
    assert record.kind.value == "compile" and len(run.cards) == 1
