"""Issue 50's rules on the code the reporter ran with Equinox, Flax NNX, Diffrax and Optax,
watched and probed, against JAX's own log and explainer in the same run (the same rules
on JAX's own code: ``test_truth_rules.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import pytest

from jitlab.probe.probe import Probe
from jitlab.records.change_words import reason_text
from jitlab.records.changes import ChangeKind
from jitlab.watching.recorder import watch

from ._rules import FACES, fresh, named, run
from .conftest import jax_account

eqx = pytest.importorskip("equinox")
nnx = pytest.importorskip("flax.nnx")
optax = pytest.importorskip("optax")
diffrax = pytest.importorskip("diffrax")

K = ChangeKind


# -- rule 1 ------------------------------------------------------------------------------------
class Act(eqx.Module):
    w: jax.Array
    act: str = eqx.field(static=True)


def act_sum(m, x):
    return m.w.sum() + x


@pytest.mark.parametrize("face", FACES)
def test_rule1_a_static_field_is_named_beside_a_leaf_that_changed_too(face):
    # Issue 50 rule 1 (Equinox field(static=True)). The fourth call's leaf m.w is f32[3], as
    # in the first program: only act changed, and JAX says so ("pytree metadata"); today
    # jitlab blamed m.w (f32[3] ← f32[4]), picking the second program as the closest. The
    # fifth changes both: both are named.
    calls = [
        (Act(jnp.ones(3), "a"), 1.0),
        (Act(jnp.ones(4), "a"), 1.0),
        (Act(jnp.ones(4), "b"), 1.0),
        (Act(jnp.ones(3), "b"), 1.0),
        (Act(jnp.ones(5), "c"), 1.0),
    ]
    f = fresh(act_sum, face)
    log, records = run(face, f, calls)
    assert len(records) == log.counts[f.__name__] == 5
    misses = log.misses_of(f.__name__)
    assert all("pytree metadata" in m for m in misses[-3:])  # JAX names the static data
    assert named(records[2]) == {"m.act": K.TREE_STRUCTURE}
    assert named(records[3]) == {"m.act": K.TREE_STRUCTURE}  # not m.w: a real cause only
    assert named(records[4]) == {"m.w": K.SHAPE, "m.act": K.TREE_STRUCTURE}
    act = next(c for c in records[4].reason.items if c.path == "m.act")
    assert (act.after, act.detail) == ("'c'", "static")


# -- rule 2 ------------------------------------------------------------------------------------
class Net(nnx.Module):
    def __init__(self, rngs):
        self.lin = nnx.Linear(4, 4, rngs=rngs)
        self.bn = nnx.BatchNorm(4, rngs=rngs)
        self.drop = nnx.Dropout(0.5, rngs=rngs)

    def __call__(self, x):
        return self.drop(self.bn(self.lin(x)))


def forward(model, x):
    return model(x)


@pytest.mark.parametrize("face", FACES)
def test_rule2_model_eval_names_every_static_attribute_it_flipped(face):
    # Issue 50 rule 2: model.eval() sets BatchNorm.use_running_average and
    # Dropout.deterministic; today only the first was named.
    model = Net(nnx.Rngs(0))
    x = jnp.ones((2, 4))
    fun = fresh(forward, face)
    with jax_account() as log:
        if face == "watch":
            with watch() as recorder:
                fwd = nnx.jit(fun)
                fwd(model, x)
                model.eval()
                fwd(model, x)
            records = [c.record for c in recorder.calls if c.record.function == fun.__name__]
        else:
            probe = Probe(nnx.jit(fun))
            probe(model, x)
            model.eval()
            probe(model, x)
            records = probe.records
    records = [r for r in records if r.kind.compiled]
    assert len(records) == log.counts[fun.__name__] == 2
    changes = records[1].reason.items
    assert {c.path for c in changes} == {
        "model.bn.use_running_average",
        "model.drop.deterministic",
    }
    assert all((c.before, c.after) == ("False", "True") for c in changes)


# -- rule 3 ------------------------------------------------------------------------------------
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return jnp.mean((model(x) - y) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


def loss_of(model, x, y):
    return jnp.mean((model(x) - y) ** 2)


STEPS = {1: loss_of, 2: train_step}  # by how many leading arguments jit_partial binds


def _jit_partial(step: Callable[..., Any], bound: int):
    model = nnx.Linear(2, 3, rngs=nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.sgd(1e-3), wrt=nnx.Param)
    return nnx.jit_partial(step, *(model, optimizer)[:bound], graph=False)


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("bound", [1, 2])
def test_rule3_nnx_jit_partial_names_the_batch_by_its_own_parameter(face, bound):
    # Issue 50 rule 3: nnx.jit_partial(train_step, model, optimizer) (or a loss with the
    # model bound) is called (x, y); today x read as "optimizer" (or "model"), the names
    # shifted by the bound arguments.
    fun = fresh(STEPS[bound], face, bound)
    with jax_account() as log:
        if face == "watch":
            with watch() as recorder:
                step = _jit_partial(fun, bound)  # made inside: its inner jax.jit is watched
                step(jnp.ones((4, 2)), jnp.ones((4, 3)))
                step(jnp.ones((8, 2)), jnp.ones((8, 3)))
            records = [c.record for c in recorder.calls if c.record.function == fun.__name__]
        else:
            probe = Probe(_jit_partial(fun, bound))
            probe(jnp.ones((4, 2)), jnp.ones((4, 3)))
            probe(jnp.ones((8, 2)), jnp.ones((8, 3)))
            records = probe.records
    records = [r for r in records if r.kind.compiled]
    assert len(records) == log.counts[fun.__name__] == 2
    assert named(records[1]) == {"x": K.SHAPE, "y": K.SHAPE}, reason_text(records[1].reason)


# -- rule 6 ------------------------------------------------------------------------------------
class Scaled(eqx.Module):
    scale: float = eqx.field(static=True)
    kind: str = eqx.field(static=True, default="plain")


def solve_like(solver, y):
    return y * solver.scale


@pytest.mark.parametrize("face", FACES)
def test_rule6_a_module_passed_as_an_argument_is_named_by_parameter_and_field(face):
    # Issue 50 rule 6: an Equinox module with static fields only, passed as a plain
    # argument (a solver): its field is named, never a treedef (CustomNode(Scaled[...])).
    calls = [
        (Scaled(1.0), jnp.ones(2)),
        (Scaled(2.0), jnp.ones(2)),
        (Scaled(2.0, "fast"), jnp.ones(2)),
    ]
    f = fresh(solve_like, face)
    log, records = run(face, f, calls)
    assert len(records) == log.counts[f.__name__] == 3
    assert named(records[1]) == {"solver.scale": K.TREE_STRUCTURE}
    assert named(records[2]) == {"solver.kind": K.TREE_STRUCTURE}
    for record in records[1:]:
        assert "CustomNode" not in reason_text(record.reason)


def _vector_field(t, y, args):
    return -y


def integrate(solver, y0):
    term = diffrax.ODETerm(_vector_field)
    return diffrax.diffeqsolve(term, solver, 0.0, 0.2, 0.1, y0, max_steps=4).ys


@pytest.mark.parametrize("face", FACES)
def test_rule6_a_diffrax_solver_of_another_class_is_named_by_parameter_and_class(face):
    # The reporter's case: diffrax.Tsit5() then diffrax.Dopri5() as a plain argument; today
    # "pytree structure changed at y0[0] … CustomNode(Dopri5[(Missing,)], [None])".
    calls = [(diffrax.Tsit5(), jnp.ones(2)), (diffrax.Dopri5(), jnp.ones(2))]
    f = fresh(integrate, face)
    log, records = run(face, f, calls)
    assert len(records) == log.counts[f.__name__] == 2
    (change,) = records[1].reason.items
    assert (change.kind, change.path, change.detail) == (K.TREE_STRUCTURE, "solver", "class")
    assert (change.before, change.after) == ("Tsit5", "Dopri5")
    text = reason_text(records[1].reason)
    assert text == "solver is of another class: Dopri5 ← Tsit5"
    assert "另一个类" in reason_text(records[1].reason, "zh")
