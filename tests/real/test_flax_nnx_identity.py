"""identity-static of a Flax NNX graph (flax#5548): `nnx.jit` recompiling every epoch because
the model and its `nnx.Optimizer(model, optax.adam(lr))` are built anew each epoch. Their
graphs are equal in content, but the optimizer's static attribute ``tx`` holds optax's
``init``/``update`` closures, new objects that compare by identity. Checked with a Probe
against JAX's own account in the same run (``jax_log_compiles`` and
``jax_explain_cache_misses``), with controls: the fix (``tx`` built once: one compile) and a
learning rate that really changes (a recompile, but no identity claim)."""

from __future__ import annotations

import jax.numpy as jnp
import pytest

nnx = pytest.importorskip("flax.nnx")
optax = pytest.importorskip("optax")

from jitlab.probe.probe import Probe  # noqa: E402
from jitlab.records.calls import CallKind  # noqa: E402
from jitlab.records.change_words import reason_text  # noqa: E402
from jitlab.records.changes import ChangeKind  # noqa: E402
from jitlab.records.diagnoses import IDENTITY_STATIC, sentence, warning_lines  # noqa: E402
from jitlab.watching.recorder import watch  # noqa: E402

from .conftest import compiled, jax_account  # noqa: E402

EPOCHS = 3
ADAM = "optax.transforms._combining.chain.<locals>.init_fn"
EXTRA_ARGS = "optax._src.base.GradientTransformationExtraArgs"


class Discriminator(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.linear = nnx.Linear(3, 2, rngs=rngs)

    def __call__(self, x):
        return self.linear(x)


class WithLambda(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.linear = nnx.Linear(3, 2, rngs=rngs)
        self.activation = lambda y: y * 2  # a new function object for every instance

    def __call__(self, x):
        return self.activation(self.linear(x))


def make_step():
    @nnx.jit
    def train_one_epoch(model, optimizer, x):
        def loss_fn(model):
            return jnp.mean(model(x) ** 2)

        loss, grads = nnx.value_and_grad(loss_fn)(model)
        optimizer.update(model, grads)
        return loss

    return train_one_epoch


def run(build) -> tuple[Probe, list[str], int]:
    """Each epoch: ``build(epoch)`` gives a model and its optimizer, one step on synthetic
    data. The probe, JAX's explanations of the misses, JAX's compile count."""
    probe = Probe(make_step())
    x = jnp.ones((4, 3))
    with jax_account() as log:
        for epoch in range(EPOCHS):
            probe(*build(epoch), x)
    return probe, log.misses_of("train_one_epoch"), log.counts["train_one_epoch"]


def rebuilt(epoch):  # flax#5548's loop: a new module and a new optimizer every epoch
    model = Discriminator(nnx.Rngs(epoch))
    return model, nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)


def test_a_model_and_optimizer_rebuilt_each_epoch_is_identity_static_as_jax_explains():
    probe, misses, jax_compiles = run(rebuilt)
    # JAX compiled every epoch; its explanation: the optimizer's graphdef, whose tx differs.
    assert jax_compiles == compiled(probe.records) == EPOCHS
    kinds = [r.kind for r in probe.records]
    assert kinds == [CallKind.COMPILE] + [CallKind.RECOMPILE] * (EPOCHS - 1)
    recompiles = [m for m in misses if "all previously seen cache keys differ" in m]
    assert len(recompiles) == EPOCHS - 1
    for said in recompiles:
        assert "at input path [0][1]._graphdef" in said  # the second argument: the optimizer
        assert "('tx', Static(value=GradientTransformationExtraArgs(init=<function" in said
    # jitlab: the same attribute, decided on the two objects, the function named.
    for record in probe.records[1:]:
        (change,) = record.reason.items
        assert (change.kind, change.path) == (ChangeKind.TREE_STRUCTURE, "optimizer.tx")
        assert change.detail == (
            f"identity:{EXTRA_ARGS};function={ADAM}"
            ";node=flax.nnx.training.optimizer.Optimizer;graph=nnx;kind=config"
        )
        assert reason_text(record.reason).startswith(
            "Flax NNX graph attribute optimizer.tx built anew: GradientTransformationExtraArgs("
        )
        assert "Flax NNX 图的属性 optimizer.tx 被重新创建" in reason_text(record.reason, "zh")
    (d,) = probe.diagnoses  # once for the function and attribute
    assert d.id == IDENTITY_STATIC and d.function == "train_one_epoch"
    assert d.figures["argument"] == "optimizer.tx" and d.figures["graph"] is True
    assert (d.figures["class"], d.figures["function"]) == (EXTRA_ARGS, ADAM)
    assert d.figures["node"] == "flax.nnx.training.optimizer.Optimizer"
    en, zh = warning_lines(d, "en"), warning_lines(d, "zh")
    assert "optimizer (Optimizer) was built anew: its Flax NNX graph is equal in content" in en[0]
    assert f"the function {ADAM} in it is made anew each time" in en[0]
    assert "nnx.update(optimizer, nnx.state(new))" in en[1] and "optax.adam(lr)" in en[1]
    assert "optimizer（Optimizer）被重新创建了" in zh[0] and "Flax NNX 图" in zh[0]
    assert "nnx.update(optimizer, nnx.state(new))" in zh[1]


def test_the_fix_compiles_once_and_a_changed_learning_rate_is_no_identity_claim():
    tx = optax.adam(1e-3)  # built once, outside the loop: every graph has the same tx

    def fixed(epoch):
        model = Discriminator(nnx.Rngs(epoch))
        return model, nnx.Optimizer(model, tx, wrt=nnx.Param)

    probe, _, jax_compiles = run(fixed)
    assert jax_compiles == compiled(probe.records) == 1 and not probe.diagnoses

    model = Discriminator(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)

    def reset(epoch):  # or: built once, reset in place each epoch (the page's other fix)
        fresh = Discriminator(nnx.Rngs(epoch))
        nnx.update(model, nnx.state(fresh))
        nnx.update(optimizer, nnx.state(nnx.Optimizer(fresh, optax.adam(1e-3), wrt=nnx.Param)))
        return model, optimizer

    probe, _, jax_compiles = run(reset)
    assert jax_compiles == compiled(probe.records) == 1 and not probe.diagnoses

    def sweep(epoch):  # the content really changes: optax's closures hold another lr
        model = Discriminator(nnx.Rngs(epoch))
        return model, nnx.Optimizer(model, optax.adam(1e-3 * (epoch + 1)), wrt=nnx.Param)

    probe, _, jax_compiles = run(sweep)
    assert jax_compiles == compiled(probe.records) == EPOCHS
    for record in probe.records[1:]:
        (change,) = record.reason.items
        assert (change.path, change.detail) == ("optimizer.tx", "static")
    assert not probe.diagnoses  # jitlab cannot call it identity: it says what it saw


def test_a_lambda_made_in_a_modules_init_is_named():
    tx = optax.sgd(0.1)

    def with_lambda(epoch):
        model = WithLambda(nnx.Rngs(epoch))
        return model, nnx.Optimizer(model, tx, wrt=nnx.Param)

    probe, misses, jax_compiles = run(with_lambda)
    assert jax_compiles == compiled(probe.records) == EPOCHS
    assert all("at input path [0][0]._graphdef" in m for m in misses[1:])  # the model's
    (d,) = probe.diagnoses
    lam = f"{__name__}.WithLambda.__init__.<locals>.<lambda>"
    assert d.figures["argument"] == "model.activation"
    assert (d.figures["class"], d.figures["function"]) == (lam, lam)
    assert d.figures["node"] == f"{__name__}.WithLambda" and d.figures["graph"] is True
    assert "model (WithLambda) was built anew" in sentence(d)


class NotAPytree(nnx.Module, pytree=False):  # graph mode only: no signature of jitlab's own
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.linear = nnx.Linear(3, 2, rngs=rngs)

    def __call__(self, x):
        return self.linear(x)


def _not_a_pytree_step():
    @nnx.jit
    def step(model, x):
        return jnp.sum(model(x))

    return step


def _first_then_a_shape(records, misses) -> None:
    """The first compile is one (JAX: "never seen function", its words for every first
    trace), the recompile is x's shape, as JAX explains it."""
    made = [r for r in records if r.kind.compiled]
    assert [r.kind for r in made] == [CallKind.COMPILE, CallKind.RECOMPILE]
    assert made[0].signature is None  # jitlab could not describe a module that is no pytree
    assert "never seen function" in misses[0] and "* at x, now f32[5,3]" in misses[1]
    assert [c.kind for c in made[0].reason.items] == [ChangeKind.FIRST_CALL]
    assert [(c.kind, c.path) for c in made[1].reason.items] == [(ChangeKind.SHAPE, "x")]


def test_a_module_that_is_no_pytree_compiles_first_as_a_first_compile():
    probe, model = Probe(_not_a_pytree_step()), NotAPytree(nnx.Rngs(0))
    with jax_account() as log:
        for rows in (4, 4, 5):
            probe(model, jnp.ones((rows, 3)))
    assert log.counts["step"] == compiled(probe.records) == 2
    _first_then_a_shape(probe.records, log.misses_of("step"))


def test_a_module_that_is_no_pytree_compiles_first_as_a_first_compile_under_watch():
    model = NotAPytree(nnx.Rngs(0))
    with jax_account() as log, watch() as recorder:
        step = _not_a_pytree_step()
        for rows in (4, 4, 5):
            step(model, jnp.ones((rows, 3)))
    records = [c.record for c in recorder.calls if c.record.function == "step"]
    assert log.counts["step"] == compiled(records) == 2
    _first_then_a_shape(records, log.misses_of("step"))
