"""dynamic-shapes, the real-world faces: last batch, serving queue, sequences, nonzero.

Real JAX throughout, through the engine; the original pitfall/fix variants are checked too
so the extension is proven not to change them.
"""

from __future__ import annotations

import numpy as np
import pytest

from jitlab.lab.discovery import scenarios
from jitlab.lab.engine import Run
from jitlab.records.calls import CallKind
from jitlab.records.change_words import reason_words

COMPILE, RECOMPILE, HIT, ERROR = (
    CallKind.COMPILE,
    CallKind.RECOMPILE,
    CallKind.CACHE_HIT,
    CallKind.ERROR,
)


@pytest.fixture(scope="module")
def cls():
    return scenarios()["dynamic-shapes"]


@pytest.fixture(scope="module")
def module(cls):
    import sys

    return sys.modules[cls.__module__]


def kinds(run):
    return [r.kind for r in run.records]


def test_original_variants_unchanged(cls):
    for variant, expected in (
        ("pitfall", [COMPILE, HIT, RECOMPILE, HIT, RECOMPILE, HIT]),
        ("fix", [COMPILE, HIT, RECOMPILE, HIT, RECOMPILE, HIT]),
    ):
        run = Run(cls, variant)
        run.play({"batch_size": n, "depth": 1} for n in (8, 8, 16, 8, 32, 8))
        assert kinds(run) == expected, variant
    fix = Run(cls, "fix")
    fix.play({"batch_size": n, "depth": 1} for n in (5, 6, 7, 8))
    assert kinds(fix) == [COMPILE, HIT, HIT, HIT]  # all pad to the bucket of 8


# 10 rows in batches of 4: 4, 4, then 2; the next epoch starts with 4 again.
EPOCH = {"batch_size": 4, "dataset_size": 10, "depth": 1}


def test_last_batch_raw_recompiles_at_every_epoch_end(cls):
    run = Run(cls, "last-batch-raw")
    run.play([EPOCH] * 6)
    assert kinds(run) == [COMPILE, HIT, RECOMPILE, HIT, HIT, HIT]
    assert "x: f32[2,64] ← f32[4,64]" in reason_words(run.records[2].reason)
    assert run.scenario.facts()["rows"] == 2  # call 6 is the second epoch's short batch


def test_last_batch_drop_one_shape_but_rows_lost(cls):
    run = Run(cls, "last-batch-drop")
    run.play([EPOCH] * 5)
    assert kinds(run) == [COMPILE, HIT, HIT, HIT, HIT]
    shapes = {leaf.shape for r in run.records if r.signature for leaf in r.signature.leaves}
    assert (4, 64) in shapes and (2, 64) not in shapes
    facts = run.scenario.facts()
    assert facts["batches_per_epoch"] == 2
    assert facts["rows_dropped_per_epoch"] == 2


def test_last_batch_pad_one_shape_every_row_used(cls):
    run = Run(cls, "last-batch-pad")
    run.play([EPOCH] * 3)
    assert kinds(run) == [COMPILE, HIT, HIT]
    facts = run.scenario.facts()
    assert facts["rows"] == 2 and facts["padded_rows"] == 2
    assert facts["rows_dropped_per_epoch"] == 0


def test_padded_last_batch_loss_equals_unpadded(module):
    params = module.make_params(2)
    x, y = module.make_batch(10)
    short_x, short_y = x[8:], y[8:]
    raw = float(module.mlp_loss(params, short_x, short_y))
    padded = float(
        module.train_step_pad(module.masked_mlp_loss, params, short_x, short_y, batch_size=4)
    )
    assert padded == pytest.approx(raw, rel=1e-5)


def test_serve_queue_at_most_three_shapes(cls):
    run = Run(cls, "serve-queue")
    arrivals = (3, 1, 12, 40, 90, 2, 7, 16, 5)
    run.play({"batch_size": n, "depth": 1} for n in arrivals)
    compiled = [r for r in run.records if r.kind.compiled]
    assert len(compiled) <= 3
    shapes = {leaf.shape[0] for r in compiled for leaf in r.signature.leaves if leaf.path == "x"}
    assert shapes <= {4, 16, 64}
    assert kinds(run).count(HIT) >= len(arrivals) - 3
    # Requests are neither lost nor invented: everything arrived is served or waiting.
    facts = run.scenario.facts()
    assert facts["served"] + facts["still_waiting"] == facts["waiting_before"]


def test_sequences_bucket_beats_padding_to_longest(cls):
    lengths = (13, 17, 21, 30, 33, 40, 64, 9)
    raw = Run(cls, "sequences-raw")
    raw.play({"seq_len": n} for n in lengths)
    bucket = Run(cls, "sequences-bucket")
    bucket.play({"seq_len": n} for n in lengths)
    assert sum(r.kind.compiled for r in raw.records) == len(set(lengths))
    # 16, 32, 64 buckets: 9 and 13 → 16; 17…30 → 32; 33…64 → 64.
    assert sum(r.kind.compiled for r in bucket.records) == 3
    assert bucket.scenario.facts()["padded_length"] == 16


def test_masked_mean_ignores_padding(module):
    embedding = module.make_embedding()
    sentences = [[5, 6, 7], [8]]
    tight = module.pad_sequences(sentences, 3)
    loose = module.pad_sequences(sentences, 16)
    np.testing.assert_allclose(
        np.asarray(module.encode(embedding, *tight)),
        np.asarray(module.encode(embedding, *loose)),
        rtol=1e-5,
    )


def test_nonzero_without_size_fails_inside_jit(cls):
    run = Run(cls, "nonzero")
    record = run.step({"batch_size": 8})
    assert record.kind is ERROR
    assert record.error.type == "ConcretizationTypeError"
    assert "size" in record.error.message


def test_nonzero_with_size_has_a_fixed_shape(cls, module):
    run = Run(cls, "nonzero-size")
    results = []
    for _ in range(3):
        run.step({"batch_size": 8})
    assert kinds(run) == [COMPILE, HIT, HIT]  # different data, same shape
    for seed in range(3):
        x, _ = module.make_batch(8, seed=seed)
        out = np.asarray(module.positive_rows_sized(x))
        results.append(out)
        expected = np.flatnonzero(x[:, 0] > 0)
        assert out.shape == (8,)
        np.testing.assert_array_equal(out[: len(expected)], expected)
        assert (out[len(expected) :] == -1).all()
    assert len({int((r >= 0).sum()) for r in results}) > 1  # the match count really varies


def test_code_shown_is_code_that_runs(cls):
    scenario = cls()
    for variant in cls.variant_ids():
        assert scenario.source(variant).strip(), variant
    assert "size=x.shape[0]" in scenario.source("nonzero-size")
    assert "drop_last" in scenario.source("last-batch-drop")
