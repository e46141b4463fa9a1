"""Equinox: a filter_jit step with a static Python leaf and a float hyperparameter."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

eqx = pytest.importorskip("equinox")

from jitlab.probe import wrappers  # noqa: E402
from jitlab.probe.probe import Probe  # noqa: E402
from jitlab.records.calls import CallKind  # noqa: E402
from jitlab.watching.recorder import watch  # noqa: E402

from .conftest import change_paths, compiled  # noqa: E402

K = CallKind


def make_model():
    # eqx.nn.MLP holds its activation function as a leaf: static for filter_jit.
    return eqx.nn.MLP(3, 1, width_size=8, depth=1, key=jax.random.key(0))


def make_step():
    @eqx.filter_jit
    def step(model, x, y, lr, n_inner):
        # lr is a Python float and n_inner a Python int: both static for filter_jit.
        def loss(m):
            return jnp.mean((jax.vmap(m)(x) - y) ** 2)

        for _ in range(n_inner):
            grads = eqx.filter_grad(loss)(model)
            model = jax.tree_util.tree_map(
                lambda p, g: p - lr * g if eqx.is_array(p) else p, model, grads
            )
        return model, loss(model)

    return step


def data(n: int = 6):
    x = jnp.linspace(-1.0, 1.0, 3 * n).reshape(n, 3)
    return x, x.sum(axis=1, keepdims=True)


def run(step):
    model = make_model()
    x, y = data()
    for lr in (0.1, 0.1, 0.05):  # a new float value: a new static value, a recompile
        model, _ = step(model, x, y, lr, 1)
    model, _ = step(model, x, y, 0.05, 1)
    return model


def test_probe_filter_jit_keeps_static_leaves_static(compile_log):
    step = make_step()
    probe = Probe(step)
    assert probe.wrapper.kind == wrappers.FILTER_JIT
    run(probe)
    kinds = [r.kind for r in probe.records]
    assert kinds == [K.COMPILE, K.CACHE_HIT, K.RECOMPILE, K.CACHE_HIT]
    assert compiled(probe.records) == compile_log.counts["step"] == 2
    signature = probe.records[0].signature
    paths = [leaf.path for leaf in signature.leaves]
    assert "model.layers[0].weight" in paths and "x" in paths
    statics = dict(signature.statics)
    # Static Python leaves, named by the user's parameters and attribute paths.
    assert {"lr", "n_inner", "model.activation"} <= set(statics)
    assert not any("dynamic" in p for p in [*paths, *statics])
    assert change_paths(probe.records[2].reason) == {"lr"}


def test_watch_filter_jit_made_inside_names_the_users_def(compile_log):
    with watch() as recorder:
        step = make_step()
        run(step)
    mine = [c for c in recorder.compiles if c.record.function == "step"]
    assert len(mine) == compile_log.counts["step"] == 2
    code = step.__wrapped__.__code__
    assert {c.defined_at for c in mine} == {f"{code.co_filename}:{code.co_firstlineno}"}
    assert all(c.called_from.startswith(__file__) for c in mine)
    signature = mine[0].record.signature.to_json()
    paths = [leaf["path"] for leaf in signature["args"]] + list(signature["static"])
    assert "model.layers[0].weight" in paths and "lr" in paths
    assert not any("dynamic" in p for p in paths)
    stats = [s for s in recorder.stats.values() if s.name == "step"]
    assert sum(s.hits or 0 for s in stats) == 2


def test_watch_filter_jit_made_before_counts_like_jax(compile_log):
    step = make_step()
    with watch() as recorder:
        run(step)
    mine = [c for c in recorder.compiles if c.record.function == "step"]
    assert len(mine) == compile_log.counts["step"] == 2
    assert all(c.called_from.startswith(__file__) for c in mine)


def test_filter_pmap_is_refused_with_a_reason():
    with pytest.raises(TypeError, match="does not know"):
        Probe(eqx.filter_pmap(lambda x: x))
