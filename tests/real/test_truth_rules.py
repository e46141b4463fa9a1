"""Issue 50's rules on JAX's own code (its pytrees, ``Partial``, ``BCOO``, ``linearize``,
bound methods, callable objects), watched and probed, against JAX's own log and explainer
in the same run; the same rules on Equinox, Flax NNX, Diffrax and Optax code are in
``test_truth_rules_libraries.py``, their generated families in
``test_truth_rules_generated.py``. These need only JAX: they run on every JAX of the window.

1. A change of a pytree's static data is named even when a leaf changed too; the closest
   earlier program is chosen as JAX chooses it, counting every difference.
2. Every static attribute that changed is named (``model.eval()`` flips two).
3. Arguments are named by the callable JAX traced (a wrapper that binds leading arguments).
4. Never "new function object" where JAX shared its cache: one row per function.
5. Applying a linearized jitted function is another executable, not its first call.
6. Paths and trees read as JAX writes them (``m[0]``; a module by parameter and class).
7. A cleared cache says what cleared it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import pytest

from jitlab.probe.probe import Probe
from jitlab.recordings.reader import read_recording
from jitlab.recordings.summary import summarize
from jitlab.records.calls import CallKind
from jitlab.records.change_words import reason_text
from jitlab.records.changes import ChangeKind
from jitlab.watching.recorder import watch

from ._rules import FACES, fresh, named, run
from .conftest import jax_account

K = ChangeKind
# What JAX's log calls a callable object (its events' name: WrappedFun's own up to 0.8).
UNNAMED = "<unnamed wrapped function>" if jax.__version_info__ < (0, 9) else "<unnamed function>"


# -- rule 1 ------------------------------------------------------------------------------------
def _partial_node(i: int):
    def add(a, b):
        return a + b

    def mul(a, b):
        return a * b

    return jax.tree_util.Partial((add, mul)[i], jnp.ones(3 + i))


def _bcoo_node(i: int):
    from jax.experimental import sparse

    return sparse.BCOO.fromdense(jnp.eye(3 + i))  # its data and indices grow too


class Tagged:
    """A node registered without keys, its tag as aux data (the reporter's custom node)."""

    def __init__(self, a, tag):
        self.a, self.tag = a, tag


jax.tree_util.register_pytree_node(
    Tagged, lambda t: ((t.a,), t.tag), lambda tag, kids: Tagged(kids[0], tag)
)


def _tagged_node(i: int):
    return Tagged(jnp.ones(3 + i), ("x", "y")[i])


def use_node(p):
    return _use(p)


def _use(node):
    if isinstance(node, jax.tree_util.Partial):
        return node(jnp.ones(node.args[0].shape)).sum()
    if isinstance(node, Tagged):
        return node.a.sum()
    return node.data.sum()


NODES = {
    "Partial's function": (_partial_node, "p.func"),
    "a BCOO's dense shape": (_bcoo_node, "p.shape"),
    "custom aux data": (_tagged_node, "p"),
}


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("kind", sorted(NODES))
def test_rule1_static_data_and_a_leaf_both_changed_are_both_named(face, kind):
    # Issue 50 rule 1 over the node kinds it lists: the second call changes the node's
    # static data and its leaves' shapes at once. JAX names the static data (its pytree
    # differs); today jitlab named only the leaf (the structure only when no leaf differs).
    make, static_path = NODES[kind]

    use = fresh(use_node, face, kind)
    log, records = run(face, use, [(make(0),), (make(1),)])
    assert len(records) == log.counts[use.__name__] == 2
    assert "pytree" in log.misses_of(use.__name__)[-1]
    changes = named(records[1])
    assert changes.get(static_path) is K.TREE_STRUCTURE, reason_text(records[1].reason)
    assert any(kind is K.SHAPE for kind in changes.values()), reason_text(records[1].reason)


# -- rule 3 ------------------------------------------------------------------------------------
def weighted(w, scale, x):
    return (w * x).sum() * scale


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("bound", [1, 2])
def test_rule3_a_functools_partial_keeps_the_names_after_its_bound_arguments(face, bound):
    base = fresh(weighted, face, bound)
    fun = functools.partial(base, *(jnp.ones(3), 2.0)[:bound])
    rest = (2.0,) if bound == 1 else ()
    log, records = run(face, fun, [(*rest, jnp.ones(3)), (*rest, jnp.ones((2, 3)))])
    assert len(records) == log.counts[base.__name__] == 2
    assert named(records[1]) == {"x": K.SHAPE}
    assert "at x," in log.misses_of(base.__name__)[-1]  # as JAX names it


# -- rule 4 ------------------------------------------------------------------------------------
class Model:
    def __init__(self, s):
        self.s = s

    def apply(self, x):
        return x * self.s


class Poly:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x**self.k

    def __eq__(self, other):
        return isinstance(other, Poly) and other.k == self.k

    def __hash__(self):
        return hash(self.k)


def _functions(kind: str) -> Callable[[], Any]:
    if kind == "a bound method taken again":
        model = Model(2.0)
        return lambda: model.apply
    return lambda: Poly(2)


@pytest.mark.parametrize("kind", ["a bound method taken again", "an equal callable object"])
def test_rule4_equal_functions_jitted_again_are_one_row_as_jax_counts_them(kind, tmp_path):
    # Issue 50 rule 4: jax.jit(model.apply) twice (a bound method is a new object each
    # time, equal to the last), jax.jit(Poly(2)) twice (equal objects): JAX shares one
    # cache while the first lives. Today: "new function object", and Poly's compiles filed
    # under "<unnamed function>", its hits under "Poly" (two rows).
    function = _functions(kind)
    path = tmp_path / "run.jsonl"
    with jax_account() as log, watch(path):
        first = jax.jit(function())
        first(jnp.ones(3))
        second = jax.jit(function())  # the first alive: JAX shares its cache
        second(jnp.ones(3))  # a hit
        second(jnp.ones(4))  # a new shape: the only change
    jax_name = "apply" if kind.startswith("a bound") else UNNAMED
    assert log.counts[jax_name] == 2
    recording, _ = read_recording(path)
    shown = "apply" if kind.startswith("a bound") else "Poly"
    rows = [s for s in summarize(recording) if not s.internal]
    assert UNNAMED not in {s.function for s in rows}
    (row,) = [s for s in rows if s.function == shown]
    assert (row.executables, row.hits) == (2, 1)
    last = [c.record for c in recording.calls if c.record.kind.compiled][-1]
    assert named(last) == {"x": K.SHAPE}


@pytest.mark.parametrize("kind", ["a bound method taken again", "an equal callable object"])
def test_rule4_a_probe_swapped_to_an_equal_function_is_the_same_function(kind):
    function = _functions(kind)
    with jax_account() as log:
        first = jax.jit(function())
        probe = Probe(first)
        probe(jnp.ones(3))
        probe.swap(jax.jit(function()))  # the first alive (held here): JAX shares its cache
        probe(jnp.ones(3))
        probe(jnp.ones(4))
    jax_name = "apply" if kind.startswith("a bound") else UNNAMED
    assert log.counts[jax_name] == 2
    assert probe.name == ("apply" if kind.startswith("a bound") else "Poly")
    assert [r.kind for r in probe.records] == [
        CallKind.COMPILE,
        CallKind.CACHE_HIT,
        CallKind.RECOMPILE,
    ]
    assert named(probe.records[-1]) == {"x": K.SHAPE}
    del first


def test_rule4_an_equal_function_jax_no_longer_shares_is_still_a_new_function_object():
    # The rule, not a blanket: JAX keys its entries on the function that made them; once
    # it is gone they go too, and an equal function jitted later compiles afresh.
    model = Model(2.0)
    with jax_account() as log, watch() as recorder:
        jax.jit(model.apply)(jnp.ones(3))  # its bound method dies with the statement
        jax.jit(model.apply)(jnp.ones(3))
    assert log.counts["apply"] == 2
    assert "never seen function" in log.misses_of("apply")[-1]
    records = [c.record for c in recorder.calls if c.record.kind.compiled]
    assert records[-1].kind is CallKind.RECOMPILE
    assert K.NEW_FUNCTION_OBJECT in records[-1].reason.kinds()


# -- rule 5 ------------------------------------------------------------------------------------
def wave(x):
    return jnp.sin(x) * x


def _linearize_applied(f, x):
    _, f_lin = jax.linearize(f, x)
    f_lin(jnp.ones(3))
    f_lin(jnp.ones(3))  # the second application hits


def _vjp_applied(f, x):
    _, f_vjp = jax.vjp(f, x)
    f_vjp(jnp.ones(3))


def _jvp(f, x):
    jax.jvp(f, (x,), (jnp.ones(3),))


AFTER = {
    "linearize, then applied": (_linearize_applied, "linear"),
    "vjp, then applied": (_vjp_applied, "transpose"),
    "jvp": (_jvp, None),
}


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("how", sorted(AFTER))
def test_rule5_a_transformed_program_of_a_compiled_function_is_never_its_first_call(face, how):
    # Issue 50 rule 5: f compiled, then linearized (or vjp'd) and the function returned
    # applied: each program JAX makes of f is a recompile of f. Today the linear part
    # applied was filed as f's first compile (watch) or not at all (Probe).
    transform, path = AFTER[how]
    x = jnp.ones(3)
    fun = fresh(wave, face, how)
    with jax_account() as log:
        if face == "watch":
            with watch() as recorder:
                f = jax.jit(fun)
                f(x)
                transform(f, x)
            records = [c.record for c in recorder.calls if c.record.function == fun.__name__]
        else:
            probe = Probe(fun)
            probe(x)
            transform(probe, x)
            records = probe.records
    compiled = [r for r in records if r.kind.compiled]
    assert len(compiled) == log.counts[fun.__name__] >= 2
    assert [r.kind for r in compiled] == [CallKind.COMPILE] + [CallKind.RECOMPILE] * (
        len(compiled) - 1
    )
    if path is not None:
        assert any(
            c.kind is K.TRANSFORMED and c.path == path for r in compiled for c in r.reason.items
        ), [reason_text(r.reason) for r in compiled]


# -- rule 6 ------------------------------------------------------------------------------------
class Keyless:
    def __init__(self, a, b):
        self.a, self.b = a, b


jax.tree_util.register_pytree_node(
    Keyless, lambda k: ((k.a, k.b), None), lambda _, kids: Keyless(*kids)
)


def keyless_sum(m):
    return m.a.sum() + m.b.sum()


@pytest.mark.parametrize("face", FACES)
def test_rule6_a_keyless_nodes_children_read_as_jax_writes_them(face):
    # Issue 50 rule 6: a node registered without keys; JAX writes its children m[0], m[1]
    # (keystr's "<flat index 0>" cleaned, jax/_src/linear_util.py); today m[<flat index 1>].
    calls = [(Keyless(jnp.ones(2), jnp.ones(3)),), (Keyless(jnp.ones(2), jnp.ones(4)),)]
    f = fresh(keyless_sum, face)
    log, records = run(face, f, calls)
    assert len(records) == log.counts[f.__name__] == 2
    assert "* at m[1], now f32[4]" in log.misses_of(f.__name__)[-1]
    assert named(records[1]) == {"m[1]": K.SHAPE}
    assert {leaf.path for leaf in records[1].signature.leaves} == {"m[0]", "m[1]"}


# -- rule 7 ------------------------------------------------------------------------------------
def bump(x):
    return x + 1


@pytest.mark.parametrize("face", FACES)
def test_rule7_a_cleared_cache_says_what_cleared_it(face):
    # Issue 50 rule 7: after f.clear_cache(), not "(jax.clear_caches() or eviction)".
    x = jnp.ones(3)
    fun = fresh(bump, face)
    with jax_account() as log:
        if face == "watch":
            with watch() as recorder:
                f = jax.jit(fun)
                f(x)
                f.clear_cache()
                f(x)
                jax.clear_caches()
                f(x)
            records = [c.record for c in recorder.calls if c.record.function == fun.__name__]
        else:
            f = jax.jit(fun)
            probe = Probe(f)
            probe(x)
            f.clear_cache()
            probe(x)
            jax.clear_caches()
            probe(x)
            records = probe.records
    compiled = [r for r in records if r.kind.compiled]
    assert len(compiled) == log.counts[fun.__name__] == 3
    own, every = (r.reason.items[0] for r in compiled[1:])
    assert (own.kind, own.detail, own.path) == (K.CACHE_CLEARED, "clear_cache()", fun.__name__)
    assert reason_text(compiled[1].reason).startswith(f"{fun.__name__}.clear_cache() emptied")
    assert (every.kind, every.detail) == (K.CACHE_CLEARED, "jax.clear_caches()")
    assert "eviction" not in reason_text(compiled[2].reason)
