"""Flax NNX: an MLP trained with optax on synthetic data, the last batch partial."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

nnx = pytest.importorskip("flax.nnx")
optax = pytest.importorskip("optax")

from jitlab.probe import wrappers  # noqa: E402
from jitlab.probe.probe import Probe  # noqa: E402
from jitlab.records.calls import CallKind  # noqa: E402
from jitlab.watching.recorder import watch  # noqa: E402

from .conftest import change_paths, compiled  # noqa: E402

K = CallKind


class MLP(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.linear = nnx.Linear(3, 8, rngs=rngs)
        self.out = nnx.Linear(8, 1, rngs=rngs)

    def __call__(self, x):
        return self.out(nnx.relu(self.linear(x)))


def make_train_step():
    @nnx.jit
    def train_step(model, optimizer, x, y):
        def loss_fn(model):
            return jnp.mean((model(x) - y) ** 2)

        loss, grads = nnx.value_and_grad(loss_fn)(model)
        optimizer.update(model, grads)
        return loss

    return train_step


def batches(n: int = 10, size: int = 4):
    """Synthetic data; 10 samples in batches of 4: 4, 4, then a partial batch of 2."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 3)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    for start in range(0, n, size):
        yield jnp.asarray(x[start : start + size]), jnp.asarray(y[start : start + size])


def train(step, epochs: int = 2) -> list[float]:
    model = MLP(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)
    losses = []
    for _ in range(epochs):
        for x, y in batches():
            losses.append(float(step(model, optimizer, x, y)))
    return losses


def test_probe_accepts_nnx_jit_and_counts_like_jax(compile_log):
    step = make_train_step()
    probe = Probe(step)
    assert probe.wrapper.kind == wrappers.NNX_JIT
    train(probe)
    kinds = [r.kind for r in probe.records]
    # Batches 4, 4, 2 per epoch: the partial batch recompiles once, epoch 2 hits both.
    assert kinds == [K.COMPILE, K.CACHE_HIT, K.RECOMPILE, K.CACHE_HIT, K.CACHE_HIT, K.CACHE_HIT]
    assert compiled(probe.records) == compile_log.counts["train_step"] == 2
    paths = [leaf.path for leaf in probe.records[0].signature.leaves]
    # The user's names: the model's attributes, the argument names.
    assert "model.linear.kernel.value" in paths and "x" in paths and "y" in paths
    assert change_paths(probe.records[2].reason) == {"x", "y"}


def test_watch_counts_nnx_training_like_jax(compile_log):
    with watch() as recorder:
        step = make_train_step()  # jitted inside the watch: probed, hits counted
        losses = train(step)
    assert losses[-1] < losses[0]
    mine = [c for c in recorder.compiles if c.record.function == "train_step"]
    assert len(mine) == compile_log.counts["train_step"] == 2
    code = step.fun.__code__
    assert {c.defined_at for c in mine} == {f"{code.co_filename}:{code.co_firstlineno}"}
    # Called from train() in this file, not from flax's or jitlab's code.
    assert all(c.called_from.startswith(__file__) for c in mine)
    stats = [s for s in recorder.stats.values() if s.name == "train_step"]
    assert sum(s.hits or 0 for s in stats) == 4


def test_watch_sees_nnx_jit_made_before_it(compile_log):
    step = make_train_step()  # jitted before the watch: seen through JAX's events
    with watch() as recorder:
        train(step)
    mine = [c for c in recorder.compiles if c.record.function == "train_step"]
    assert len(mine) == compile_log.counts["train_step"] == 2
    assert all(c.called_from.startswith(__file__) for c in mine)
    # optax's eager ops and nnx's bookkeeping are JAX-internal kernels: not listed.
    assert {c.record.function for c in recorder.compiles} == {"train_step"}
    jax.block_until_ready(step)
