"""Truth round six: rules found by a sixth set of programs in idioms the earlier rounds did
not cover (``tests/real/programs/round6/``, run as programs in ``test_truth_round6_programs.py``),
each checked here in-process against JAX's own ``jax_log_compiles`` and
``jax_explain_cache_misses`` in the same run, with a generated family of the rule (hypothesis)
beside the case that found it. These need only JAX: they run on every JAX of the window.

1. Two transformations of one function with other options (``jax.vmap(f, in_axes=0)`` and
   ``in_axes=1``, ``jax.grad`` of another ``argnums``, ``jax.checkpoint`` with another
   policy) are two functions, as another transformation is (round five, rule 5): never "the
   same code jitted again", never a leaf compared across the two; the options that differ
   are said. The same transformation with the same options made anew is still the
   re-jitting pitfall.
2. Two unequal static values whose texts begin alike never read as "the same text": the
   texts shown part where the values' texts part.
3. An argument whose container changed type (a tuple that became a NamedTuple, a dict, a
   list) with the same leaves is one structure change at that argument, as JAX's
   ``different input pytree … at input path [0][0]`` says, not a new and a gone argument
   per leaf.
4. Calls served from JAX's cache before any compile jitlab saw (an ahead-of-time compile,
   executables made before the probe) mean JAX held an executable: the next compile is a
   recompile. An ahead-of-time compile has the signature its lowering was made for.
5. An exported program run by ``Exported.call`` is no function jitted before the watch.
6. jit options are named as the user passes them (``in_shardings``, ``out_shardings``), not
   by the fields JAX keeps them in (``in_shardings_leaves``, ``user_specified_in_shardings``).
7. JAX's "seen another function defined on the same line; maybe … re-defined repeatedly" is
   relayed as ours only when every earlier function object of the code is gone: one an
   ``lru_cache``'d factory still holds was made alongside, not defined again and dropped.

Found on JAX 0.6-0.8 only: where JAX ties several keys closest it lists each; a compile
heard through JAX's events names one change per place (the first key's), not one per key.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jitlab.probe import _jax
from jitlab.probe.probe import Probe
from jitlab.recordings.reader import read_recording
from jitlab.recordings.summary import summarize
from jitlab.records.calls import CallKind
from jitlab.records.change_words import reason_text
from jitlab.records.changes import ChangeKind
from jitlab.watching.recorder import watch

from ._rules import fresh
from .conftest import jax_account

K = ChangeKind
EXAMPLES = settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _compiled(records):
    return [r for r in records if r.kind.compiled]


def _watched(recorder, name: str):
    return [c.record for c in recorder.calls if c.record.function == name]


def _transformed_pair(face: str, f, first, then, args1, args2):
    """``jax.jit(first)(*args1)`` then ``jax.jit(then)(*args2)``, watched or probed
    (``swap``), with JAX's account: (JAX's log, the compiled records of ``f``'s name)."""
    with jax_account() as log:
        if face == "watch":
            with watch() as recorder:
                jax.jit(first)(*args1)
                jax.jit(then)(*args2)
            records = _watched(recorder, f.__name__)
        else:
            probe = Probe(first)
            probe(*args1)
            probe.swap(then)
            probe(*args2)
            records = probe.records
    return log, _compiled(records)


# -- rule 1: a transformation's options make another function ----------------------------------
def dot(a, b):
    """tests/real/programs/round6/vmap_in_axes.py: one core, batched over rows or columns."""
    return jnp.dot(a, b)


@pytest.mark.parametrize("face", ["watch", "probe"])
def test_vmap_over_other_axes_is_another_function_not_the_same_code_jitted_again(face):
    # jax.jit(jax.vmap(dot, in_axes=(0, None))) then in_axes=(1, None). JAX: "never seen
    # function". Before: "new function object: the same code at … was jitted again (2
    # function objects so far); a: f32[3,4] ← f32[4,3]" — a pitfall that is not there, and
    # a leaf compared across two functions.
    f = fresh(dot, face)
    rows, cols = jax.vmap(f, in_axes=(0, None)), jax.vmap(f, in_axes=(1, None))
    v = jnp.ones(3)
    log, made = _transformed_pair(face, f, rows, cols, (jnp.ones((4, 3)), v), (jnp.ones((3, 4)), v))
    assert len(made) == log.counts[f.__name__] == 2
    assert "never seen function" in log.misses_of(f.__name__)[-1]
    (change,) = made[1].reason.items
    assert change.kind is K.NEW_FUNCTION_OBJECT, reason_text(made[1].reason)
    assert (change.after, change.before) == ("vmap", "vmap")
    assert change.detail == "vmap in_axes: (1, None) ← (0, None)"
    words = reason_text(made[1].reason)
    assert "another function" in words and "jitted again" not in words, words
    assert "选项不同" in reason_text(made[1].reason, "zh")


def _layer(name: str, option: Any):
    """A transformation of a function with one option set (``None``: its defaults)."""

    def make(fun):
        if name == "vmap":
            return jax.vmap(fun, in_axes=option if option is not None else 0)
        if name == "grad":
            return jax.grad(fun, argnums=option if option is not None else 0)
        if name == "value_and_grad":
            return jax.value_and_grad(fun, argnums=option if option is not None else 0)
        policy = {
            None: None,
            "dots": jax.checkpoint_policies.dots_saveable,
            "nothing": jax.checkpoint_policies.nothing_saveable,
        }[option]
        return jax.checkpoint(fun, policy=policy)

    return make


OPTIONS = {
    "vmap": [None, 1, (1, 1)],
    "grad": [None, 1, (0, 1)],
    "value_and_grad": [None, 1],
    "checkpoint": [None, "dots", "nothing"],
}


def two_args(x, y):
    return jnp.sum(jnp.sin(x) * y)


def _inputs(name: str) -> tuple[Any, Any]:
    if name == "vmap":  # a batch over axis 0 or 1 of x; y batched alike
        return (jnp.ones((2, 3)), jnp.ones((2, 3)))
    return (jnp.ones(3), jnp.ones(3))


@EXAMPLES
@given(
    st.sampled_from(sorted(OPTIONS)),
    st.data(),
    st.sampled_from(["watch", "probe"]),
)
def test_a_transformation_with_other_options_is_another_function(name, data, face):
    # The rule on every transformation jitlab reads, with two option values drawn (equal
    # ones: the same transformation made anew, the re-jitting pitfall, said so).
    first, then = data.draw(st.lists(st.sampled_from(OPTIONS[name]), min_size=2, max_size=2))
    f = fresh(two_args, name, face, first, then)
    a, b = _layer(name, first)(f), _layer(name, then)(f)
    x = _inputs(name)
    log, made = _transformed_pair(face, f, a, b, x, x)
    assert len(made) == log.counts[f.__name__] == 2
    (change,) = made[1].reason.items
    assert change.kind is K.NEW_FUNCTION_OBJECT, reason_text(made[1].reason)
    words = reason_text(made[1].reason)
    if first == then:  # the same options: the same code jitted again
        assert change.before is None and change.after is None, words
        assert "jitted again" in words
    else:
        assert (change.after, change.before) == (name, name), words
        assert change.detail.startswith(f"{name} "), words
        assert "another function" in words and "jitted again" not in words, words


# -- rule 2: unequal statics whose texts begin alike ---------------------------------------------
def pick(branches, i, x):
    """tests/real/programs/round6/switch_branches.py: lax.switch over static branches."""
    return jax.lax.switch(i, branches, x)


@pytest.mark.parametrize("face", ["watch", "probe"])
def test_static_tuples_that_differ_past_the_shortened_text_never_read_the_same(face):
    # (sin, cos, tanh) then (sin, cos): JAX compiles again ("Static(val=(…))"). Before:
    # "static branches: (<PjitFunction of <function sin …>>, <PjitF… ← (<PjitFunction of
    # <function sin …>>, <PjitF… (same text, unequal values)" — shortened alike, unequal.
    f = fresh(pick, face)
    three = (jnp.sin, jnp.cos, jnp.tanh)
    calls = [(three, 1, jnp.ones(2)), (three[:2], 1, jnp.ones(2))]
    with jax_account() as log:
        if face == "watch":
            with watch() as recorder:
                jitted = jax.jit(f, static_argnums=0)
                for args in calls:
                    jitted(*args)
            records = _watched(recorder, f.__name__)
        else:
            probe = Probe(f, static_argnums=0)
            for args in calls:
                probe(*args)
            records = probe.records
    made = _compiled(records)
    assert len(made) == log.counts[f.__name__] == 2
    (change,) = made[1].reason.items
    assert (change.kind, change.path) == (K.STATIC_VALUE, "branches")
    assert change.before != change.after
    assert "tanh" in change.before and "tanh" not in change.after, (change.before, change.after)
    assert "same text" not in reason_text(made[1].reason)


def take_static(x, tag):
    return x * len(tag)


@EXAMPLES
@given(
    prefix=st.integers(40, 120),
    tail_a=st.text("abcxyz", min_size=0, max_size=8),
    tail_b=st.text("abcxyz", min_size=0, max_size=8),
    wrap=st.sampled_from(["str", "tuple", "dict"]),
)
def test_unequal_statics_are_never_said_to_read_alike(prefix, tail_a, tail_b, wrap):
    # Two static values whose texts share a long beginning and part anywhere after: the
    # texts a change shows part too (and "same text" is said only of equal texts).
    if tail_a == tail_b:
        tail_b += "q"
    head = "p" * prefix

    def value(tail: str) -> Any:
        text = head + tail
        return {"str": text, "tuple": (head, tail), "dict": {"k": head, "z": tail}}[wrap]

    f = fresh(take_static, wrap)
    probe = Probe(f, static_argnums=1)
    with jax_account() as log:
        for tail in (tail_a, tail_b):
            frozen = value(tail)
            if isinstance(frozen, dict):  # hashable: a tuple of items
                frozen = tuple(frozen.items())
            probe(jnp.ones(2), frozen)
    made = _compiled(probe.records)
    assert len(made) == log.counts[f.__name__] == 2
    changes = made[1].reason.items
    assert changes, reason_text(made[1].reason)
    for change in changes:
        assert change.before != change.after, (change.before, change.after)
    assert "same text" not in reason_text(made[1].reason)


# -- rule 3: a container's type changed at an argument -------------------------------------------
class Pair(NamedTuple):
    a: jax.Array
    b: jax.Array


def combine(p):
    """tests/real/programs/round6/pytree_containers.py: the leaves summed, whatever holds them."""
    return sum(jnp.sum(v) for v in jax.tree_util.tree_leaves(p))


CONTAINERS = {
    "tuple": lambda a, b: (a, b),
    "list": lambda a, b: [a, b],
    "namedtuple": Pair,
    "dict": lambda a, b: {"a": a, "b": b},
    "dict_other_keys": lambda a, b: {"a": a, "c": b},
    "ordered": lambda a, b: OrderedDict(a=a, b=b),
}


@pytest.mark.parametrize("face", ["watch", "probe"])
@pytest.mark.parametrize(("first", "then"), [("tuple", "namedtuple"), ("tuple", "dict")])
def test_a_container_of_another_type_is_one_structure_change_at_the_argument(face, first, then):
    # The program's (one, two) then Pair(one, two). JAX: "at input path [0][0], now <class
    # 'Pair'> and before <class 'tuple'>". Before: "new argument p.a: f32[2]; new argument
    # p.b: f32[3]; argument p[0] gone (was f32[2]); argument p[1] gone (was f32[3])".
    log, made = _containers(face, first, then)
    assert len(made) == log.counts[made[0].function] == 2
    # JAX names the argument's node ("at input path [0][0]"; "at args[0]" before 0.9).
    assert "so their Python types differ" in log.misses_of(made[0].function)[-1]
    (change,) = made[1].reason.items
    assert (change.kind, change.path) == (K.TREE_STRUCTURE, "p"), reason_text(made[1].reason)


def _containers(face: str, first: str, then: str):
    f = fresh(combine, face, first, then)
    one, two = jnp.ones(2), jnp.ones(3)
    calls = [(CONTAINERS[first](one, two),), (CONTAINERS[then](one, two),)]
    with jax_account() as log:
        if face == "watch":
            with watch() as recorder:
                jitted = jax.jit(f)
                for args in calls:
                    jitted(*args)
            records = _watched(recorder, f.__name__)
        else:
            probe = Probe(f)
            for args in calls:
                probe(*args)
            records = probe.records
    return log, _compiled(records)


@EXAMPLES
@given(
    st.lists(st.sampled_from(sorted(CONTAINERS)), min_size=2, max_size=2, unique=True),
    st.sampled_from(["watch", "probe"]),
)
def test_an_argument_whose_container_changed_is_named_at_the_argument(pair, face):
    # Every pair of containers holding the same two leaves: the compile names the argument
    # (JAX's [0][0]) as the one place the tree changed, whatever its leaves' paths read.
    first, then = pair
    log, made = _containers(face, first, then)
    assert len(made) == log.counts[made[0].function] == 2
    changes = made[1].reason.items
    assert {c.path for c in changes} == {"p"}, reason_text(made[1].reason)
    assert {c.kind for c in changes} == {K.TREE_STRUCTURE}, reason_text(made[1].reason)


# -- rule 4: hits before the first compile jitlab saw ---------------------------------------------
def mean_square(w, x):
    """tests/real/programs/round6/aot_then_call.py (JAX's AOT docs' pattern)."""
    return jnp.mean((x @ w) ** 2)


def test_a_compile_after_calls_served_by_an_ahead_of_time_compile_is_a_recompile(tmp_path):
    # jax.jit(f).lower(…).compile(), then f called (JAX serves it from that compile), then
    # called with another batch. JAX: 2 executables. Before: the second was a "compile"
    # (the row read "compiles 2, recompiles 0").
    f = fresh(mean_square)
    path = tmp_path / "run.jsonl"
    with jax_account() as log, watch(path) as recorder:
        jitted = jax.jit(f)
        jitted.lower(jnp.ones(3), jnp.ones((5, 3))).compile()
        jitted(jnp.ones(3), jnp.ones((5, 3)))
        jitted(jnp.ones(3), jnp.ones((7, 3)))
    made = _compiled(_watched(recorder, f.__name__))
    assert len(made) == log.counts[f.__name__] == 2
    assert [r.kind for r in made] == [CallKind.COMPILE, CallKind.RECOMPILE]
    recording, _ = read_recording(path)
    (row,) = [s for s in summarize(recording) if s.function == f.__name__]
    assert (row.executables, row.recompiles) == (2, 1)
    # The ahead-of-time compile's signature is read off its lowering: two signatures.
    assert len(row.signatures) == 2, row.signatures


def test_an_events_only_compile_names_one_change_per_place_where_jax_ties_keys():
    # Three ahead-of-time compiles of one function, filed from JAX's events. JAX 0.6-0.8
    # explain the third with every key tied closest ("Several previous keys are closest":
    # the batch 5 and the batch 7). Before: "x: f32[9,3] ← f32[5,3]; x: f32[9,3] ← f32[7,3]"
    # (one argument changed two ways at once).
    f = fresh(mean_square, "tied")
    with jax_account() as log, watch() as recorder:
        jitted = jax.jit(f)
        for n in (5, 7, 9):
            jitted.lower(jnp.ones(3), jnp.ones((n, 3))).compile()
    made = _compiled(_watched(recorder, f.__name__))
    assert len(made) == log.counts[f.__name__] == 3
    if _jax.VERSION < (0, 9, 0):
        assert "Several previous keys are closest" in log.misses_of(f.__name__)[-1]
    places = [(c.kind, c.path) for c in made[-1].reason.items]
    assert places == [(K.SHAPE, "x")], reason_text(made[-1].reason)


def doubled(x):
    return x * 2.0


@pytest.mark.parametrize("served", [1, 3])
def test_a_probe_of_a_jit_that_held_executables_recompiles(served):
    # The rule on a Probe: a jax.jit whose executables JAX compiled before the probe; the
    # probe's calls hit them, then a new shape compiles: JAX's second executable.
    f = fresh(doubled, served)
    jitted = jax.jit(f)
    with jax_account() as log:
        jitted(jnp.ones(3))
        probe = Probe(jitted)
        for _ in range(served):
            probe(jnp.ones(3))
        probe(jnp.ones(4))
    assert log.counts[f.__name__] == 2
    made = _compiled(probe.records)
    assert [r.kind for r in made] == [CallKind.RECOMPILE], [r.kind for r in probe.records]


# -- rule 5: an exported program is never jitted before the watch --------------------------------
def tanh_affine(x, w):
    return jnp.tanh(x @ w)


@pytest.mark.parametrize("inside", [False, True])
def test_an_exported_program_is_never_said_jitted_before_the_watch(inside, tmp_path):
    # tests/real/programs/round6/export_roundtrip.py: Exported.call, plainly and inside a
    # jitted function. Before: "1 function was jitted before the watch began
    # (call_exported) … start the watch before it is jitted" — inside a watch that began
    # before anything was jitted.
    from jax import export

    f = fresh(tanh_affine, inside)
    spec = (jax.ShapeDtypeStruct((2, 3), jnp.float32), jax.ShapeDtypeStruct((3, 4), jnp.float32))
    path = tmp_path / "run.jsonl"
    with jax_account() as log, watch(path):
        exp = export.export(jax.jit(f))(*spec)
        x, w = jnp.ones((2, 3)), jnp.ones((3, 4))
        if inside:
            jax.jit(lambda a, b: exp.call(a, b) * 2.0)(x, w)
        else:
            exp.call(x, w)
    recording, _ = read_recording(path)
    assert "jitted_before" not in recording.notice_counts, recording.notice_details
    counted = {s.function: s.executables for s in summarize(recording, include_internal=False)}
    name = "<lambda>" if inside else "call_exported"
    assert counted[name] == log.counts[name] == 1


# -- rule 6: jit options as the user passes them --------------------------------------------------
def halved(x):
    return x / 2.0


@pytest.mark.parametrize(
    "options",
    [
        {"in_shardings": "device"},
        {"out_shardings": "device"},
        {"in_shardings": "device", "out_shardings": "device"},
    ],
)
def test_jit_options_are_named_as_the_user_passes_them(options):
    # tests/real/programs/round6/in_out_shardings.py: the same function jitted with and
    # without shardings. Before: "the same function jitted again with another
    # user_specified_in_shardings: False ← True; … in_shardings_leaves: (UnspecifiedValue,)
    # ← (NamedSharding(…),)" — JAX's fields, not the options the user wrote.
    device = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    given_ = {name: device for name in options}
    f = fresh(halved, *sorted(options))
    with jax_account() as log, watch() as recorder:
        jax.jit(f, **given_)(jnp.ones(3))
        jax.jit(f)(jnp.ones(3))
    made = _compiled(_watched(recorder, f.__name__))
    assert len(made) == log.counts[f.__name__]
    named = {c.path for r in made[1:] for c in r.reason.items if c.kind is K.JIT_OPTIONS}
    assert named <= set(options), named
    for r in made:
        words = reason_text(r.reason)
        assert "_leaves" not in words and "user_specified" not in words, words


# -- rule 7: JAX's same-line hint and function objects still alive ---------------------------------
@functools.cache
def make_norm(order: int, tag: str):
    """tests/real/programs/round6/lru_cache_factory.py: one jitted function per option."""

    def norm(x):
        return jnp.sum(jnp.abs(x) ** order) ** (1.0 / order)

    norm.__name__ = norm.__qualname__ = f"norm_{tag}"
    return jax.jit(norm)


@pytest.mark.parametrize("kept", [True, False])
def test_jaxs_same_line_hint_is_relayed_only_for_function_objects_dropped(kept):
    # Two orders called at one line: JAX adds "but seen another function defined on the same
    # line; maybe the function is being re-defined repeatedly". With the factory's cache
    # holding the first (kept), that guess is JAX's, not ours: before, jitlab said "it is
    # probably defined again on every call … so what was compiled for it is never reused",
    # and the lru_cache reused it. Dropped (the cache cleared in between), it is relayed.
    tag = fresh(doubled, kept).__name__
    name = f"norm_{tag}"
    x = jnp.arange(1.0, 4.0)
    with jax_account() as log, watch() as recorder:
        for order in (1, 2):
            if not kept:
                make_norm.cache_clear()
            make_norm(order, tag)(x)
    made = _compiled(_watched(recorder, name))
    assert len(made) == log.counts[name] == 2
    assert any("same line" in m for m in log.misses_of(name))
    (change,) = made[1].reason.items
    assert change.kind is K.NEW_FUNCTION_OBJECT
    words = reason_text(made[1].reason)
    if kept:
        assert "defined again on every call" not in words, words
    else:
        assert "defined again on every call" in words, words
