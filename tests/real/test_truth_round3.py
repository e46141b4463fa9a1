"""Truth round three (issue 41): jitlab's account against JAX's own log in the same run.

Each case names its source: the issue's own case, or a test of JAX's repository
(jax-ml/jax at cec06d1, ``tests/api_test.py``, ``tests/pjit_test.py``), of Flax or Optax,
ported to a probe or a watch. The rule behind each issue item is tested with cases of its
own: a Probe looks to JAX like its function wherever JAX takes a callable; JAX's log under
a Probe is the log without it; a dtype is written as JAX writes it; a named axis is named
with its sizes; a pytree change is named at the sub-tree that changed; a jit option is a
cause only where JAX's cache keeps the jits apart.
"""

from __future__ import annotations

import functools
import inspect
import re

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from jax import lax

from jitlab.probe import wrappers
from jitlab.probe.probe import Probe
from jitlab.records.calls import CallKind, CallRecord
from jitlab.records.change_words import reason_text, render
from jitlab.records.changes import ChangeKind
from jitlab.watching.recorder import watch

from .conftest import jax_account, jax_compile_log

K = ChangeKind


def _compiled(records: list[CallRecord]) -> int:
    return sum(1 for r in records if r.kind.compiled)


def _watched(recorder, name: str) -> list[CallRecord]:
    return [c.record for c in recorder.calls if c.record.function == name]


# -- item 2: a Probe looks to JAX exactly like the function it wraps ------------------------
def scaled_sum(x, y):
    """Doc of the probed function."""
    return x * y


def test_a_probe_carries_its_functions_name_module_wrapped_and_signature():
    # Issue 41 item 2 (what functools.wraps gives a wrapper; JAX reads these).
    p = Probe(scaled_sum)
    assert (p.__name__, p.__qualname__, p.__module__) == (
        "scaled_sum",
        "scaled_sum",
        scaled_sum.__module__,
    )
    assert p.__doc__ == scaled_sum.__doc__
    assert inspect.unwrap(p) is scaled_sum
    assert inspect.signature(p) == inspect.signature(scaled_sum)
    assert "Probe 'scaled_sum'" in repr(p)  # its own repr is kept


def test_jit_of_a_probe_is_named_and_counted_as_jax_logs():
    # Issue 41 item 2: jax.jit(Probe(f)) in a watched program. JAX's log names it jit(f) and
    # compiles it twice (two shapes); jitlab names it f, its arguments x and y, and counts
    # every compile of f that JAX logged (the outer jit's and the probe's own).
    with jax_compile_log() as log, watch() as recorder:

        def shifted(x, y):
            return x + y

        p = Probe(shifted)
        outer = jax.jit(p)
        outer(jnp.ones(3), 2.0)
        outer(jnp.ones(4), 2.0)
        outer(jnp.ones(4), 2.0)
        p(jnp.ones(3), 2.0)
    assert "<unnamed function>" not in log.counts
    assert log.counts["shifted"] == 3  # 2 for the outer jit, 1 for the probe's own call
    records = _watched(recorder, "shifted")
    assert _compiled(records) == log.counts["shifted"]
    compiled = [r for r in records if r.kind.compiled]
    assert all(r.signature is not None for r in compiled)
    assert {leaf.path for r in compiled for leaf in r.signature.leaves} == {"x", "y"}
    assert _compiled(p.records) == 1  # the probe's own executable; the rest were staged


def test_jit_of_a_partial_of_a_probe_is_named_as_jax_names_it():
    # jax-ml/jax tests/api_test.py (test_jit_of_partial-style: JAX names a partial by its
    # function): jax.jit(functools.partial(Probe(f), y=…)) reads jit(f) in JAX's log.
    with jax_compile_log() as log:

        def offset(x, y):
            return x - y

        jitted = jax.jit(functools.partial(Probe(offset), y=1.0))
        jitted(jnp.ones(2))
    assert log.counts["offset"] == 1
    assert not any("unnamed" in name for name in log.counts)


# -- item 3: JAX's output under a Probe is JAX's output ---------------------------------------
def _misses_of(log, code_name: str) -> list[str]:
    return [m for m in log.misses if f" {code_name} " in m or f"{code_name} id=" in m]


def test_eval_shape_of_a_probe_logs_what_eval_shape_of_jit_logs():
    # Issue 41 item 3: with the program's explanations on, eval_shape(jax.jit(f)) logs one
    # TRACING CACHE MISS per new shape; eval_shape(Probe(f)) logged two, one at an empty
    # call site. The same code, jitted and probed, in one run.
    def make():
        def halved(x):
            return x / 2

        return halved

    with jax_account() as log:
        plain = jax.jit(make())
        jax.eval_shape(plain, jnp.ones(3))
        jax.eval_shape(plain, jnp.ones(4))
        jax_misses = list(log.misses)
        log.misses.clear()
        probed = Probe(make())
        shapes = [jax.eval_shape(probed, jnp.ones(n)).shape for n in (3, 4)]
        probe_misses = list(log.misses)
    assert shapes == [(3,), (4,)]
    assert len(jax_misses) == 2
    assert len(probe_misses) == len(jax_misses)
    assert not any("TRACING CACHE MISS at :" in m for m in probe_misses)

    # The same words but for the call site's line and the function object's id.
    def words(message: str) -> str:
        return re.sub(r"id=\d+", "id=…", message.split("\n", 1)[1])

    assert [words(m) for m in probe_misses] == [words(m) for m in jax_misses]
    assert all("halved" in m for m in probe_misses)
    assert [r.kind for r in probed.records] == [CallKind.TRACED, CallKind.TRACED]


def test_eval_shape_then_call_share_the_trace_as_with_jit():
    # jax-ml/jax tests/api_test.py test_eval_shape_trace_cache_share: eval_shape(f) then
    # jit(f)(x) miss JAX's tracing cache once. With a Probe in jit's place JAX's log must
    # show as many misses as with jit.
    def make():
        def ident(x):
            return x

        return ident

    inp = np.arange(8)
    with jax_account() as log:
        plain = jax.jit(make())
        jax.eval_shape(plain, inp)
        plain(inp)
        jax_count = len(log.misses)
        log.misses.clear()
        probed = Probe(make())
        jax.eval_shape(probed, inp)
        probed(inp)
        probe_count = len(log.misses)
    assert jax_count == 1
    assert probe_count == jax_count
    assert [r.kind for r in probed.records] == [CallKind.TRACED, CallKind.COMPILE]


def test_a_program_without_explanations_sees_none_under_eval_shape_of_a_probe():
    # The rule from the other side: explanations off, nothing of JAX's explainer reaches
    # the program's log, and jax_explain_cache_misses is left as the program set it.
    before = jax.config.jax_explain_cache_misses
    with jax_compile_log() as log:

        def cubed(x):
            return x**3

        jax.eval_shape(Probe(cubed), jnp.ones(5))
    assert log.misses == []
    assert jax.config.jax_explain_cache_misses == before


# -- items 5 and 6: a dtype is written as JAX writes it ---------------------------------------
_DTYPES = [
    "int4",
    "uint4",
    "int2",
    "uint2",
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3b11fnuz",
    "float4_e2m1fn",
    "bfloat16",
    "uint16",
]


def _dtype(name: str):
    found = getattr(jnp, name, None) or getattr(ml_dtypes, name, None)
    if found is None:
        pytest.skip(f"{name} is not in this JAX")
    return jnp.dtype(found)


def _jax_types(message: str) -> tuple[str, str] | None:
    m = re.search(r"now (\S+?)(?:\(\{\}\))? and before (\S+?)(?:\(\{\}\))?$", message, re.M)
    return (m[1], m[2]) if m else None


@pytest.mark.parametrize("name", _DTYPES)
def test_a_dtype_change_reads_as_jaxs_explanation_writes_it(name):
    # Issue 41 item 6 (int4 spelled long), all sub-byte and odd dtypes: jitlab's type text
    # is the one JAX's own explanation writes (``i4[3]``, ``f8_e4m3fn[3]``), same run.
    dtype = _dtype(name)
    with jax_account() as log:

        def kept(x):
            return x

        p = Probe(kept)
        p(jnp.ones(3, jnp.float32))
        p(jnp.ones(3, dtype))
    record = p.records[-1]
    assert record.kind is CallKind.RECOMPILE
    (change,) = record.reason.items
    jax_says = _jax_types(log.misses[-1])
    assert jax_says is not None, log.misses[-1]
    assert (change.after, change.before) == jax_says
    assert str(record.signature) == f"x: {jax_says[0]}"


def test_float0_reads_as_jax_writes_it():
    # Issue 41 item 5: float0 tangents (jax-ml/jax tests/api_test.py test_jit_vjp_of_int:
    # jax.jit(fn_vjp)(np.zeros((), float0))), two shapes: JAX writes float0[2,2].
    _, fn_vjp = jax.vjp(lambda x, y: x + y, 2, 1)
    with jax_account() as log:

        def passed(x, t):
            return x

        p = Probe(passed)
        p(1.0, np.zeros((3,), jax.dtypes.float0))
        p(1.0, np.zeros((2, 2), jax.dtypes.float0))
        tangents = Probe(fn_vjp)(np.zeros((), jax.dtypes.float0))
    assert str(jax.typeof(np.zeros((2, 2), jax.dtypes.float0))) == "float0[2,2]"
    record = p.records[-1]
    assert reason_text(record.reason) == "t: float0[2,2] ← float0[3]"
    assert _jax_types(log.misses_of("passed")[-1]) == ("float0[2,2]", "float0[3]")
    assert str(record.signature) == "x: ~f32[], t: float0[2,2]"
    assert all(t.dtype == jax.dtypes.float0 for t in tangents)


def test_float0_of_grad_of_an_int_argument():
    # jax-ml/jax tests/api_test.py test_jit_grad_of_int: jax.jit(grad_f)(np.ones(2), 1) with
    # allow_int: its float0 gradient fed back to a probed function reads float0[], as JAX's.
    grad_f = jax.grad(lambda x, i: x[i], argnums=(0, 1), allow_int=True)
    _, grad_i = jax.jit(grad_f)(np.ones(2), 1)

    def took(g):
        return g

    p = Probe(took)
    p(grad_i)
    assert str(p.records[0].signature) == f"g: {jax.typeof(grad_i)}"


# -- item 7: a named axis is named with its sizes -----------------------------------------------
def test_a_vmap_axis_size_change_names_the_axis_and_sizes():
    # Issue 41 item 7: a probed call inside vmap(axis_name="i") with arrays of its own; the
    # axis size changes 3 → 4. JAX compiles again and explains "axis_env_state differs";
    # jitlab named raw `AxisEnv object at 0x…` text.
    c = jnp.ones(3)
    with jax_account() as log:

        def doubled(x):
            return x * 2

        p = Probe(doubled)

        def body(y):
            return p(c).sum() * y

        jax.vmap(body, axis_name="i")(jnp.ones(3))
        jax.vmap(body, axis_name="i")(jnp.ones(4))
    assert log.counts["doubled"] == _compiled(p.records) == 2
    assert "axis_env_state" in log.misses_of("doubled")[-1]
    reason = p.records[-1].reason
    assert reason.items[0].kind is K.TRACING_CONTEXT
    assert reason_text(reason) == "size of named axis i (vmap/pmap axis_name): 4 ← 3"
    assert "AxisEnv" not in reason_text(reason) and "0x" not in reason_text(reason)
    assert reason_text(reason, "zh") == "命名轴 i（vmap/pmap 的 axis_name）的大小变了：4 ← 3"


def test_caches_depend_on_axis_env_as_jax_tests_them():
    # jax-ml/jax tests/api_test.py test_caches_depend_on_axis_env (jax#9187): g =
    # jit(lambda: lax.axis_size("i")) under vmap with axis_size 2 then 3 must not hit.
    def sized():
        return lax.axis_size("i")

    with jax_account() as log:
        p = Probe(sized)
        two = jax.vmap(p, axis_name="i", axis_size=2, out_axes=None)()
        three = jax.vmap(p, axis_name="i", axis_size=3, out_axes=None)()
    assert (int(two), int(three)) == (2, 3)
    assert _compiled(p.records) == log.counts["sized"] == 2
    assert reason_text(p.records[-1].reason) == (
        "size of named axis i (vmap/pmap axis_name): 3 ← 2"
    )


def test_entering_a_named_axis_is_said_so():
    # The rule's other cases: called outside any named axis, then inside one.
    c = jnp.ones(2)
    with jax_account() as log:

        def tripled(x):
            return x * 3

        p = Probe(tripled)
        p(c)
        jax.vmap(lambda y: p(c).sum() * y, axis_name="batch")(jnp.ones(5))
    assert _compiled(p.records) == log.counts["tripled"] == 2
    assert reason_text(p.records[-1].reason) == (
        "called inside named axis batch (size 5), before outside it"
    )


# -- item 8: a pytree that changed is named at its sub-tree -------------------------------------
def _optax():
    return pytest.importorskip("optax")


def _state(tx):
    train_state = pytest.importorskip("flax.training.train_state")
    params = {"w": jnp.ones((2, 2))}
    return train_state.TrainState.create(apply_fn=None, params=params, tx=tx)


def test_a_train_states_optimizer_change_names_the_sub_tree_and_counts():
    # Issue 41 item 8: a Flax TrainState (flax/training/train_state.py) whose optimizer
    # state gained Adam's moments at opt_state[1]: named there, "3 leaves added", short;
    # the full diff kept in the record and shown with full=True.
    optax = _optax()
    with jax_account() as log:

        def loss(state, x):
            return (state.params["w"] * x).sum()

        p = Probe(loss)
        p(_state(optax.chain(optax.clip(1.0), optax.scale(-0.1))), 1.0)
        p(_state(optax.chain(optax.clip(1.0), optax.scale_by_adam())), 1.0)
    assert log.counts["loss"] == _compiled(p.records) == 2
    # The TrainState's tx (a static field) is another optax object too: named beside the
    # sub-tree that grew, as JAX names it (issue 50 rule 1: every difference).
    change, tx = p.records[-1].reason.items
    assert (change.kind, change.path, change.count) == (K.TREE_STRUCTURE, "state.opt_state[1]", 3)
    assert (tx.kind, tx.path) == (K.TREE_STRUCTURE, "state.tx")
    assert "pytree metadata" in log.misses_of("loss")[-1]
    short = reason_text(p.records[-1].reason)
    assert short.startswith("pytree structure changed at state.opt_state[1]: 3 leaves added")
    assert len(short) < 400
    full = render(change, full=True)
    for leaf in (".count: i32[]", ".mu['w']: f32[2,2]", ".nu['w']: f32[2,2]"):
        assert leaf in change.after and leaf in full
    zh = reason_text(p.records[-1].reason, "zh")
    assert "state.opt_state[1]" in zh and "增加 3 个叶子" in zh


def test_the_same_leaves_in_another_structure_name_the_node():
    # optax docs (adam → adamw: one more EmptyState, no new leaf), with the optimizer state
    # passed on its own (a TrainState's tx would change too): the tuple that grew is named.
    optax = _optax()
    w = jnp.ones(3)
    with jax_account() as log:

        def apply(opt_state, x):
            return x

        p = Probe(apply)
        p(optax.adam(0.1).init(w), 1.0)
        p(optax.adamw(0.1).init(w), 1.0)
    assert log.counts["apply"] == _compiled(p.records) == 2
    (change,) = p.records[-1].reason.items
    assert (change.kind, change.path) == (K.TREE_STRUCTURE, "opt_state")
    assert reason_text(p.records[-1].reason).startswith(
        "pytree structure changed at opt_state: the same leaves, another structure"
    )


def test_a_new_optimizer_object_in_a_train_state_names_its_static_field():
    # flax/training/train_state.py: tx is a static field (pytree_node=False); a TrainState
    # made again with a new optax object is another pytree: JAX compiles again. jitlab
    # names state.tx, not the whole tree; the two sgd(0.1) are equal in content (the same
    # code, equal closures), so it is identity-static (optax#353), the function named.
    optax = _optax()
    with jax_account() as log:

        def step(state, x):
            return x

        p = Probe(step)
        p(_state(optax.sgd(0.1)), 1.0)
        p(_state(optax.sgd(0.1)), 1.0)
        p(_state(optax.sgd(0.2)), 1.0)  # the content changed too: no identity claim
    assert log.counts["step"] == _compiled(p.records) == 3
    (change,) = p.records[1].reason.items
    assert (change.kind, change.path) == (K.TREE_STRUCTURE, "state.tx")
    assert change.detail == (
        "identity:optax._src.base.GradientTransformationExtraArgs"
        ";function=optax.transforms._combining.chain.<locals>.init_fn"
        ";node=flax.training.train_state.TrainState;kind=config"
    )
    text = reason_text(p.records[1].reason)
    assert text.startswith("pytree static data state.tx built anew: GradientTransformation")
    assert text.endswith(
        "(equal content, but optax.transforms._combining.chain.<locals>.init_fn in it is a "
        "function made anew, and functions compare by identity: identity-static)"
    )
    (change,) = p.records[2].reason.items
    assert (change.path, change.detail) == ("state.tx", "static")


# -- item 4: a jit option is a cause only where JAX's cache keeps the jits apart ---------------
def _options_named(records: list[CallRecord]) -> list[str]:
    return [c.path for r in records if r.reason for c in r.reason.items if c.kind is K.JIT_OPTIONS]


def test_keep_unused_is_no_cause_where_jax_shares_the_cache():
    # Issue 41 item 4, with jax-ml/jax tests/pjit_test.py test_pjit_keep_unused_true's
    # function: two jits of one function, one keep_unused=True. Where JAX served the second
    # from the first's executable (JAX 0.10), its later shape-only recompile is no option
    # change; where JAX compiled it apart, keep_unused is the cause.
    inp, unused = jnp.arange(4.0), jnp.arange(8.0)
    with jax_account() as log, watch() as recorder:

        def kept(x, y, z, a, b, c):
            return c @ c.T

        plain = jax.jit(kept)
        keeping = jax.jit(kept, keep_unused=True)
        plain(unused, unused, unused, unused, unused, inp)
        before = log.counts["kept"]
        keeping(unused, unused, unused, unused, unused, inp)
        apart = log.counts["kept"] > before
        keeping(unused, unused, unused, unused, unused, jnp.arange(5.0))
    records = _watched(recorder, "kept")
    assert _compiled(records) == log.counts["kept"]
    jax_explained = log.misses_of("kept")[-1]
    if apart:
        assert "keep_unused" in _options_named(records)
    else:
        assert _options_named(records) == []
        assert "now f32[5] and before f32[4]" in jax_explained
        assert reason_text(records[-1].reason) == "c: f32[5] ← f32[4]"


def test_an_option_that_splits_the_cache_is_still_named():
    # The rule's other side (jax-ml/jax tests/api_test.py donate_argnums cases): donation
    # keeps JAX's caches apart, so the second jit compiles and donate_argnums is named.
    with jax_account() as log, watch() as recorder:

        def added(x, y):
            return x + y

        jax.jit(added)(jnp.ones(3), jnp.ones(3))
        jax.jit(added, donate_argnums=0)(jnp.ones(3), jnp.ones(3))
    records = _watched(recorder, "added")
    assert _compiled(records) == log.counts["added"] == 2
    assert _options_named(records) == ["donate_argnums"]


# -- issue 39: JAX 0.11+ jit options read well ------------------------------------------------
def test_compiler_options_read_as_the_dict_they_were_passed_as():
    with jax_account() as log, watch() as recorder:

        def noted(x):
            return x + 1

        jax.jit(noted)(jnp.ones(3))
        jax.jit(noted, compiler_options={"xla_cpu_enable_fast_math": False})(jnp.ones(3))
    records = _watched(recorder, "noted")
    assert _compiled(records) == log.counts["noted"] == 2
    (change,) = [c for c in records[-1].reason.items if c.kind is K.JIT_OPTIONS]
    assert (change.path, change.before, change.after) == (
        "compiler_options",
        "None",
        "{'xla_cpu_enable_fast_math': False}",
    )


def test_jax_enums_in_jit_options_read_by_name():
    # JAX 0.11/0.12: jit(inline=jax.Inline.…) and compiler options holding a
    # jax.CompilerEffortLevel are read as Inline.XLA_EARLY, CompilerEffortLevel.O1.
    if not hasattr(jax, "Inline"):
        pytest.skip("jax.Inline is JAX 0.11+")
    jitted = jax.jit(
        lambda x: x,
        inline=jax.Inline.XLA_EARLY,
        compiler_options={"optimization_level": jax.CompilerEffortLevel.O1},
    )
    options = dict(wrappers._options_text(jitted._jit_info) or ())
    assert options["inline"] == "Inline.XLA_EARLY"
    assert options["compiler_options"] == "{'optimization_level': CompilerEffortLevel.O1}"


def test_an_axis_change_seen_only_through_jaxs_words_has_no_raw_addresses():
    # A function jitted before the watch (seen through JAX's events and words only): JAX
    # writes the axis environments as `AxisEnv object at 0x…`; jitlab says the named axes
    # changed, without the addresses (their sizes are not in JAX's words).
    def quartered(x):
        return x / 4

    jitted = jax.jit(quartered)
    c = jnp.ones(3)
    with jax_account() as log, watch() as recorder:

        def body(y):
            return jitted(c).sum() * y

        jax.vmap(body, axis_name="j")(jnp.ones(3))
        jax.vmap(body, axis_name="j")(jnp.ones(6))
    records = _watched(recorder, "quartered")
    assert _compiled(records) == log.counts["quartered"] == 2
    assert "AxisEnv object at 0x" in log.misses_of("quartered")[-1]
    text = reason_text(records[-1].reason)
    assert "AxisEnv" not in text and "0x" not in text
    assert text == "the named axes in context changed (vmap/pmap axis_name)"


def test_jaxs_own_texts_name_a_jit_of_a_probe_as_a_jit_of_its_function():
    # The rule of item 2 where JAX writes names itself (jax-ml/jax tests/debug_info_test.py
    # checks them): the jaxpr's jit names and the lowered module's name are those of
    # jax.jit(f), and the debug info names the arguments as f's parameters.
    def summed(a, b):
        return a + b

    x = jnp.ones(2)
    plain = jax.jit(summed)
    probed = jax.jit(Probe(summed))
    jaxpr = str(jax.make_jaxpr(probed)(x, x))  # jit(jit(f)): both levels named
    assert jaxpr.count("name=summed") == 2 and "unnamed" not in jaxpr
    lowered = probed.lower(x, x).as_text()
    assert "module @jit_summed" in lowered
    assert plain.lower(x, x).as_text().split("\n", 1)[0] == lowered.split("\n", 1)[0]
    assert probed.trace(x, x).jaxpr.debug_info.arg_names == ("a", "b")
