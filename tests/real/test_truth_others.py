"""Issue 19, the probe's side: patterns from code nobody here wrote (JAX's own cache-miss
tests, methods, transformations, shardings), each checked against JAX's own
``jax_log_compiles`` / ``jax_explain_cache_misses`` output in the same run."""

from __future__ import annotations

import functools
import itertools
import logging
from collections.abc import Iterator

import jax
import jax.numpy as jnp
import pytest

from jitlab.probe import explain
from jitlab.probe.probe import Probe
from jitlab.records import change_words
from jitlab.records.calls import CallKind
from jitlab.records.changes import ChangeKind

from .conftest import JaxCompileLog, compiled

K = CallKind
C = ChangeKind


@pytest.fixture
def jax_log() -> Iterator[JaxCompileLog]:
    """JAX's own account of the block: its compiles and its cache-miss explanations."""
    handler = JaxCompileLog()
    logger = logging.getLogger("jax")
    before = (jax.config.jax_log_compiles, jax.config.jax_explain_cache_misses)
    logger.addHandler(handler)
    jax.config.update("jax_log_compiles", True)
    jax.config.update("jax_explain_cache_misses", True)
    try:
        yield handler
    finally:
        jax.config.update("jax_log_compiles", before[0])
        jax.config.update("jax_explain_cache_misses", before[1])
        logger.removeHandler(handler)


def misses(log: JaxCompileLog) -> list[str]:
    return [m for m in log.messages if "TRACING CACHE MISS" in m]


def kinds(record) -> list[ChangeKind]:
    return [c.kind for c in record.reason.items]


# -- 6. arguments named as Python binds them ------------------------------------------------
def test_variadic_and_keyword_arguments_are_named_as_python_binds_them(jax_log):
    def g(a, *rest, scale=1.0):
        return a * scale + rest[0] + rest[1]

    probe = Probe(jax.jit(g))
    x = jnp.ones(2)
    probe(x, x, x, scale=2.0)
    assert [leaf.path for leaf in probe.last.signature.leaves] == [
        "a",
        "rest[0]",
        "rest[1]",
        "scale",
    ]
    probe(x, x, x.astype(jnp.int32), scale=2.0)
    assert probe.last.kind is K.RECOMPILE
    (change,) = probe.last.reason.items
    assert (change.kind, change.path) == (C.DTYPE, "rest[1]")
    # JAX names the same argument the same way.
    assert "rest[1]" in misses(jax_log)[-1]
    assert compiled(probe.records) == jax_log.counts["g"] == 2


def test_jax_other_in_tree_is_a_tree_change_at_the_arguments_jax_names(jax_log):
    # JAX's api_test.py test_cache_miss_explanations_other_in_tree.
    @jax.jit
    def f(*args, **kwargs):
        return args[0]

    probe = Probe(f)
    probe(0.0, 1.0, y=(2.0, 2.1))
    assert [leaf.path for leaf in probe.last.signature.leaves] == [
        "args[0]",
        "args[1]",
        "kwargs['y'][0]",
        "kwargs['y'][1]",
    ]
    probe(0.0, (1.0, 1.1), y=2.0)  # same number of leaves, other trees
    assert probe.last.kind is K.RECOMPILE
    assert kinds(probe.last) == [C.TREE_STRUCTURE, C.TREE_STRUCTURE]
    assert {c.path for c in probe.last.reason.items} == {"args[1]", "kwargs['y']"}
    explanation = misses(jax_log)[-1]
    assert "different input pytree" in explanation
    assert "[0][1]" in explanation and "[1]['y']" in explanation  # args[1], kwargs['y']
    assert compiled(probe.records) == jax_log.counts["f"] == 2


# -- 10. methods ------------------------------------------------------------------------------
class Scaler:
    def __init__(self, k: float) -> None:
        self.k = k

    @functools.partial(jax.jit, static_argnums=0)
    def forward(self, x):
        return x * self.k

    @functools.partial(Probe, static_argnums=0)
    def probed(self, x):
        return x * self.k


def test_probe_of_a_jitted_method_bound_to_an_instance_counts_like_jax(jax_log):
    model = Scaler(2.0)
    probe = Probe(model.forward)
    for n in (3, 3, 4):
        out = probe(jnp.ones(n))
    assert float(out[0]) == 2.0
    assert [r.kind for r in probe.records] == [K.COMPILE, K.CACHE_HIT, K.RECOMPILE]
    # jit sees self first: it is the static argument, x the traced one.
    assert [leaf.path for leaf in probe.records[0].signature.leaves] == ["x"]
    assert [name for name, _ in probe.records[0].signature.statics] == ["self"]
    assert [c.kind for c in probe.records[2].reason.items] == [C.SHAPE]
    assert compiled(probe.records) == jax_log.counts["forward"] == 2


def test_probe_decorates_a_method_one_ledger_bound_per_instance(jax_log):
    a, b = Scaler(2.0), Scaler(3.0)
    assert float(a.probed(jnp.ones(3))[0]) == 2.0
    assert float(b.probed(jnp.ones(3))[0]) == 3.0
    assert float(a.probed(jnp.ones(3))[0]) == 2.0
    probe = Scaler.probed
    assert isinstance(probe, Probe) and a.probed.__self__ is a
    assert [r.kind for r in probe.records] == [K.COMPILE, K.RECOMPILE, K.CACHE_HIT]
    # The second instance is a new static self, as JAX's explanation says.
    assert kinds(probe.records[1]) == [C.STATIC_VALUE]
    assert probe.records[1].reason.items[0].path == "self"
    assert compiled(probe.records) == jax_log.counts["probed"] == 2


def test_transformation_change_renders_in_both_languages():
    from jitlab.records.calls import Change

    change = Change(C.TRANSFORMED, "vmap", "x: f32[2]", "x: f32[4,2]")
    assert "vmap" in change_words.render(change, "en") and "vmap" in change_words.render(
        change, "zh"
    )
    assert change_words.render(change, "en") != change_words.render(change, "zh")


# -- 2. shardings compared as JAX's cache compares them; the mesh in context -----------------
def test_equivalent_shardings_are_one_signature_and_a_dtype_change_blames_only_dtype(jax_log):
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((jax.device_count(),), ("x",))
    w = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P()))
    probe = Probe(jax.jit(lambda w: w * 2))
    w2 = probe(w)
    assert w2.sharding.spec != w.sharding.spec  # P(None, None) and P(): not ==, yet ...
    probe(w2)  # ... JAX serves it with the same executable
    probe(w2.astype(jnp.bfloat16))
    assert [r.kind for r in probe.records] == [K.COMPILE, K.CACHE_HIT, K.RECOMPILE]
    assert probe.records[1].card == 0  # the hit is on the card that compiled
    assert [(c.kind, c.path) for c in probe.records[2].reason.items] == [(C.DTYPE, "w")]
    assert "now bf16[8,4] and before f32[8,4]" in misses(jax_log)[-1]
    assert compiled(probe.records) == jax_log.counts["<lambda>"] == 2


def test_spmd_mnist_called_outside_set_mesh_is_a_mesh_context_change(jax_log):
    # JAX's examples/spmd_mnist_classifier_fromscratch.py, shrunk, synthetic data.
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    def predict(params, inputs):
        for w, b in params[:-1]:
            inputs = jnp.tanh(inputs @ w + b)
        w, b = params[-1]
        logits = inputs @ w + b
        return logits - jax.scipy.special.logsumexp(logits, axis=1, keepdims=True)

    def loss(params, batch):
        inputs, targets = batch
        return -jnp.mean(jnp.sum(predict(params, inputs) * targets, axis=1))

    def train_step(params, batch):
        grads = jax.grad(loss)(params, batch)
        return [
            (w - 0.01 * dw, b - 0.01 * db) for (w, b), (dw, db) in zip(params, grads, strict=True)
        ]

    mesh = jax.make_mesh((jax.device_count(),), ("batch",), axis_types=(AxisType.Explicit,))
    sizes = [6, 5, 4, 3]
    params = [(jnp.ones((m, n)) * 0.1, jnp.zeros(n)) for m, n in itertools.pairwise(sizes)]
    params = jax.device_put(params, NamedSharding(mesh, P()))
    batch = jax.device_put((jnp.ones((8, 6)), jnp.ones((8, 3))), NamedSharding(mesh, P("batch")))
    step = Probe(jax.jit(train_step))
    with jax.set_mesh(mesh):
        params = step(params, batch)
        params = step(params, batch)  # the new params are P(None, None): the same executable
    params = step(params, batch)  # outside set_mesh: the mesh in context changed
    assert [r.kind for r in step.records] == [K.COMPILE, K.CACHE_HIT, K.RECOMPILE]
    reason = step.records[2].reason
    assert kinds(step.records[2]) == [C.MESH_CONTEXT]  # no per-leaf sharding change
    assert reason.items[0].before == f"mesh(batch={jax.device_count()})"
    assert reason.items[0].after is None
    assert "outside jax.set_mesh" in change_words.render(reason.items[0], "en")
    assert "jax.set_mesh" in change_words.render(reason.items[0], "zh")
    assert "abstract_mesh_context_manager differs" in misses(jax_log)[-1]
    # JAX's own bullet reads the same, for a call jitlab sees only through JAX's words.
    parsed = explain.parse(misses(jax_log)[-1])
    assert [(c.kind, c.before, c.after) for c in parsed] == [
        (C.MESH_CONTEXT, reason.items[0].before, None)
    ]
    assert compiled(step.records) == jax_log.counts["train_step"] == 2


# -- 1 and 5. transformations of a probed function -------------------------------------------
def test_grad_of_a_probed_jit_is_a_transformation_and_every_compile_is_counted(jax_log):
    probe = Probe(jax.jit(lambda x: jnp.sum(jnp.sin(x))))
    x = jnp.ones(3)
    probe(x)
    jax.grad(probe)(x)
    # JAX compiled the forward pass under linearize and, after the call, its transpose.
    assert jax_log.counts["<lambda>"] == 3
    assert compiled(probe.records) == 3
    assert [r.kind for r in probe.records] == [K.COMPILE, K.RECOMPILE, K.RECOMPILE]
    for record in probe.records[1:]:
        assert kinds(record) == [C.TRANSFORMED]
        assert C.CACHE_CLEARED not in kinds(record)
    assert probe.records[1].reason.items[0].path == "linearize"
    assert probe.records[2].reason.items[0].path == "transpose"
    en = change_words.render(probe.records[1].reason.items[0], "en")
    assert "grad" in en and "new executable" in en
    jax.grad(probe)(x)  # JAX reuses both executables
    assert jax_log.counts["<lambda>"] == 3 and compiled(probe.records) == 3
    assert probe.last.kind is K.CACHE_HIT and kinds(probe.last) == [C.TRANSFORMED]


def test_eager_vmap_records_the_batched_signature_jax_compiled(jax_log):
    probe = Probe(jax.jit(lambda x: x * 2.0))
    probe(jnp.ones(2))
    jax.vmap(probe)(jnp.ones((4, 2)))
    assert [r.kind for r in probe.records] == [K.COMPILE, K.RECOMPILE]
    assert str(probe.last.signature) == "x: f32[4,2]"
    change = probe.last.reason.items[0]
    assert (change.kind, change.path, change.count) == (C.TRANSFORMED, "vmap", 1)
    assert compiled(probe.records) == jax_log.counts["<lambda>"] == 2


def test_eager_scan_body_calling_a_probe_is_traced_not_a_hit(jax_log):
    probe = Probe(jax.jit(lambda x: jnp.sum(x * 2.0)))
    probe(jnp.ones(3))

    def body(carry, row):
        return carry + probe(row), None

    total, _ = jax.lax.scan(body, 0.0, jnp.ones((5, 3)))
    assert float(total) == 30.0
    assert [r.kind for r in probe.records] == [K.COMPILE, K.TRACED]
    assert probe.summary().cache_hits == 0 and probe.summary().traced == 1
    change = probe.last.reason.items[0]
    assert (change.kind, change.path, change.after) == (C.TRANSFORMED, "trace", None)
    # JAX compiled the scan as a whole, and this function once, for the plain call.
    assert jax_log.counts["scan"] == 1
    assert compiled(probe.records) == jax_log.counts["<lambda>"] == 1


def test_a_probe_called_inside_an_outer_jit_is_traced_and_jax_compiles_the_outer(jax_log):
    probe = Probe(jax.jit(lambda x: x + 1.0))
    probe(jnp.ones(3))

    @jax.jit
    def outer(x):
        return probe(x) * 2.0

    outer(jnp.ones(3))
    outer(jnp.ones(3))  # JAX's cache hit on outer: the probe is not even called
    assert [r.kind for r in probe.records] == [K.COMPILE, K.TRACED]
    assert jax_log.counts["outer"] == 1
    assert compiled(probe.records) == jax_log.counts["<lambda>"] == 1


def test_a_probe_of_constants_inside_a_scan_body_is_traced_not_a_hit(jax_log):
    """Concrete arguments, yet staged: the scan traces its body, the call's result is a
    tracer (told by JAX's trace state on the hit path)."""
    probe = Probe(jax.jit(lambda x: x * 3.0))
    const = jnp.ones(2)
    probe(const)

    def body(carry, _):
        return carry + probe(const), None

    total, _ = jax.lax.scan(body, jnp.zeros(2), None, length=4)
    assert float(total[0]) == 12.0
    assert [r.kind for r in probe.records] == [K.COMPILE, K.TRACED]
    assert probe.summary().cache_hits == 0
    assert compiled(probe.records) == jax_log.counts["<lambda>"] == 1


def test_a_second_eager_vmap_is_a_hit_on_the_batched_executable(jax_log):
    probe = Probe(jax.jit(lambda x: x - 1.0))
    batch = jnp.ones((5, 2))
    jax.vmap(probe)(batch)
    jax.vmap(probe)(batch)
    assert [r.kind for r in probe.records] == [K.COMPILE, K.CACHE_HIT]
    assert [str(r.signature) for r in probe.records] == ["x: f32[5,2]"] * 2
    assert [c.count for c in probe.records[1].reason.items] == [0]  # reused, not compiled
    assert compiled(probe.records) == jax_log.counts["<lambda>"] == 1


def test_grad_under_watch_counts_like_jax_and_names_the_transformation(jax_log):
    from jitlab.watching.recorder import watch

    with watch() as recorder:
        f = jax.jit(lambda x: jnp.sum(jnp.cos(x)))
        x = jnp.ones(3)
        f(x)
        jax.grad(f)(x)
        jax.vmap(f)(jnp.ones((4, 3)))
    mine = [c.record for c in recorder.compiles if c.record.function == "<lambda>"]
    assert len(mine) == jax_log.counts["<lambda>"] == 4  # the backward pass counted once
    assert kinds(mine[1]) == [C.TRANSFORMED] and mine[1].reason.items[0].path == "linearize"
    assert str(mine[3].signature) == "x: f32[4,3]" and kinds(mine[3]) == [C.TRANSFORMED]


def test_probe_of_bound_filter_jit_and_nnx_jit_methods_counts_like_jax(jax_log):
    import equinox as eqx
    from flax import nnx

    class Eqx(eqx.Module):
        w: jax.Array

        @eqx.filter_jit
        def apply(self, x):
            return self.w * x

    class Nnx(nnx.Module):
        def __init__(self) -> None:
            self.w = nnx.Param(jnp.ones(3))

        @nnx.jit
        def run(self, x):
            return self.w[...] * x

    for method, name in ((Eqx(jnp.ones(3)).apply, "apply"), (Nnx().run, "run")):
        probe = Probe(method)  # a bound method: the wrapper's own __get__ made it
        for n in (3, 3, 4):
            probe(jnp.ones(n) if n == 3 else jnp.ones((n, 3)))
        assert [r.kind for r in probe.records] == [K.COMPILE, K.CACHE_HIT, K.RECOMPILE], name
        first = [leaf.path for leaf in probe.records[0].signature.leaves]
        assert first[0].startswith("self.w") and first[-1] == "x", first
        assert [(c.kind, c.path) for c in probe.records[2].reason.items] == [(C.SHAPE, "x")]
        assert compiled(probe.records) == jax_log.counts[name] == 2, (name, jax_log.counts)


def test_backward_pass_is_counted_after_the_program_clears_the_listeners(jax_log):
    probe = Probe(jax.jit(lambda x: jnp.sum(x**3)))
    x = jnp.ones(2)
    jax.grad(probe)(x)
    jax.monitoring.clear_event_listeners()  # public: a program may do it
    jax.grad(probe)(x * 2)  # the same shapes: JAX hits both executables
    jax.grad(probe)(jnp.ones(5))  # a new shape: forward and backward compile again
    assert jax_log.counts["<lambda>"] == 4
    assert compiled(probe.records) == 4
    assert [c.path for r in probe.records if r.kind.compiled for c in r.reason.items] == [
        "linearize",
        "transpose",
        "linearize",
        "transpose",
    ]
