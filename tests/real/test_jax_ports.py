"""JAX's own cache-miss tests and doc examples, ported: jitlab's account against JAX's own.

Each case comes from JAX's repository (jax-ml/jax; the source is named in ``Case.source``),
adapted: the calls JAX's test makes, on a fresh ``jax.jit`` of fresh code. Each runs three
ways, each with ``jax_log_compiles`` and ``jax_explain_cache_misses`` on in the same run:

* ``watch``: jitted inside ``jitlab.watch()`` (the block's ``jax.jit`` probes it);
* ``events``: jitted before the watch, seen through JAX's compile events only;
* ``probe``: wrapped in ``jitlab.Probe``.

Every mode asserts that the executables jitlab counts for the function equal the compiles
in JAX's log, and that each compile's reason is the one JAX's explanation supports: the
change kinds and argument paths JAX's text names (``at y, now i32[] and before f32[]``), or,
where jitlab has no signature of its own, ``unknown`` with JAX's words kept. Where jitlab
disagrees with JAX today, the case is a strict xfail naming what each says.
"""

from __future__ import annotations

import functools
import operator
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitlab.probe import _jax, explain
from jitlab.probe.probe import Probe
from jitlab.records.calls import CallKind, CallRecord
from jitlab.records.changes import ChangeKind
from jitlab.watching.recorder import watch

from .conftest import JaxCompileLog, jax_account

K = ChangeKind

# JAX's own tests' words are 0.10's (where they were ported from); older JAX explains in its
# own format, which tests/probe/test_explain_fixtures.py reads on each version.
PORTED_WORDS = _jax.VERSION >= (0, 10, 0)
FIRST = frozenset({(K.FIRST_CALL, "")})
MODES = ("watch", "events", "probe")


@dataclass(frozen=True)
class Compile:
    """One compile JAX made: what JAX's explanation says, and what jitlab must name.

    ``changes``: the (kind, path) pairs jitlab's reason must hold, exactly. ``check``: extra
    test of the reason's changes (for cases where several spellings are right).
    """

    jax_says: tuple[str, ...]
    changes: frozenset[tuple[ChangeKind, str]] | None = None
    check: Callable[[set[tuple[ChangeKind, str]]], bool] | None = None


@dataclass(frozen=True)
class Case:
    source: str  # JAX's test or doc the case is ported from
    name: str  # the jitted function's name, as JAX's log names it
    make: Callable[[], Any]  # a new jax.jit of new code (called inside the watch, or not)
    drive: Callable[[Any], None]  # the calls JAX's test makes
    compiles: tuple[Compile, ...]
    hits: int = 0  # in-memory cache hits jitlab must count (watch and probe modes)
    ordered: bool = True  # False: calls from threads, compiles in any order
    xfail: dict[str, str] = field(default_factory=dict)  # mode -> what differs today


def first(*jax_says: str) -> Compile:
    return Compile(jax_says or ("never seen function",), FIRST)


def change(*pairs: tuple[ChangeKind, str], jax: tuple[str, ...] = ()) -> Compile:
    return Compile(jax, frozenset(pairs))


# -- tests/api_test.py -------------------------------------------------------------------------
def _first_miss():
    @jax.jit
    def first_miss(x):
        return x

    return first_miss


def _in_tree():
    @jax.jit
    def in_tree(*args, **kwargs):
        return args[0]

    return in_tree


def _in_tree_named_as_python_binds(found: set[tuple[ChangeKind, str]]) -> bool:
    # JAX: "at input path [0][1], now <class 'tuple'> and before pytree leaf" and the same at
    # [1]['y']: the second positional argument and the keyword y changed tree.
    paths = {path for _, path in found}
    return (
        any(p.startswith("args[1]") for p in paths)
        and any("y" in p for p in paths)
        and all(p.startswith("args[1]") or "y" in p for p in paths)
    )


def _as_kwarg():
    @jax.jit
    def as_kwarg(x, y):
        return jnp.sin(x) + y

    return as_kwarg


def _static_argnums():
    @functools.partial(jax.jit, static_argnums=(0, 2))
    def static_nums(x, y, z):
        return y

    return static_nums


def _static_argnames():
    @functools.partial(jax.jit, static_argnames="foo")
    def static_names(*, foo):
        return 1

    return static_names


def _other_dtype():
    @jax.jit
    def other_dtype(x, y):
        return x

    return other_dtype


def _weak_type():
    @jax.jit
    def weak(x, y):
        return jnp.sin(x) + y

    return weak


def _other_shape():
    @jax.jit
    def other_shape(x, y):
        return jnp.sin(x) + y

    return other_shape


def _closest():
    @jax.jit
    def closest(x):
        return x

    return closest


def _closest_calls(f):
    for shape in ((1, 2), (10, 20, 30), (1, 2, 3), (10, 2, 30)):
        f(np.ones(shape, dtype=np.float32))


def _tracing_config():
    @jax.jit
    def config_f(x, y):
        return jnp.sin(x) + y

    return config_f


def _tracing_config_calls(f):
    f(0.0, 1.0)
    with jax.numpy_rank_promotion("warn"), jax.default_matmul_precision("high"):
        f(0.0, 1.0)


def _multiple():
    @jax.jit
    def multiple(x):
        return jnp.sin(x)

    return multiple


def _multiple_calls(f):
    f(np.arange(4, dtype=np.float32))
    with jax.numpy_rank_promotion("warn"):
        f(np.arange(8, dtype=np.float32))
    # Matches the second call in shape but not context, the first in context not shape.
    f(np.arange(8, dtype=np.float32))


# -- tests/pjit_test.py ------------------------------------------------------------------------
def _single_device():
    @jax.jit
    def single_device(x):
        return x

    return single_device


def _single_device_calls(f):
    out = f(jnp.arange(16).reshape((8, 2)))
    f(out)  # the output's single-device sharding is the input's: a hit


def _grad_of_jit():
    return jax.jit(lambda x: x * 3)


def _grad_calls(f):
    a = jnp.array(16, dtype=jnp.float32)
    f(a)
    jax.grad(f)(a)
    jax.grad(f)(a)  # pjit_test's testAutodiffCache: the second grad is a hit


# -- docs/jit-compilation.md and docs/debugging/slow_tracing_compilation.md --------------------
def _static_doc():
    def cond(x):
        if x > 0:
            return x
        return 2 * x

    return jax.jit(cond, static_argnums=0)


def _loop_body():
    @jax.jit
    def loop_body(prev_i):
        return prev_i + 1

    return loop_body


def _loop_calls(f):
    i = 0
    while i < 5:
        i = f(i)  # a Python int first, then the weakly typed array it returns


def _sum_case():
    @jax.jit
    def total(i):
        return jnp.sum(i)

    return total


def _threads(f):
    # api_test's test_cache_miss_explanations_are_thread_safe, on 4 threads (JAX's: 10).
    errors: list[BaseException] = []

    def thread(i0: int) -> None:
        try:
            for i in range(i0, 16, 4):
                f(jnp.zeros(i))
        except BaseException as exc:  # reported below, on the main thread
            errors.append(exc)

    threads = [threading.Thread(target=thread, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def _not_cleared_nor_first(found: set[tuple[ChangeKind, str]]) -> bool:
    return not {k for k, _ in found} & {K.CACHE_CLEARED, K.FIRST_CALL, K.UNKNOWN}


def _cleared():
    @jax.jit
    def cleared(x, y):
        return x + y

    return cleared


def _cleared_all():
    @jax.jit
    def cleared_all(x, y):
        return x + y

    return cleared_all


def _clear_own_cache(f):
    # api_test.py::test_jit_cache_clear: f.clear_cache() drops f's executables
    f(1, 2)
    f.clear_cache()
    f(1, 2)


def _clear_all_caches(f):
    # api_test.py::test_clear_cache: jax.clear_caches() drops every cache
    inp = jnp.arange(8)
    f(inp, inp)
    jax.clear_caches()
    f(inp, inp)


def _defaults():
    return jax.jit(lambda x: (x**2).sum())


CASES = [
    Case(
        "api_test.py::test_cache_miss_explanations_first_miss",
        "first_miss",
        _first_miss,
        lambda f: (f(jnp.float32(1.0)), f(jnp.float32(1.0))),
        (first(),),
        hits=1,
    ),
    Case(
        "api_test.py::test_cache_miss_explanations_other_in_tree",
        "in_tree",
        _in_tree,
        lambda f: (f(0.0, 1.0, y=(2.0, 2.1)), f(0.0, (1.0, 1.1), y=2.0)),
        (first(), Compile(("different input pytree",), check=_in_tree_named_as_python_binds)),
    ),
    Case(
        "api_test.py::test_cache_miss_explanations_other_arg_passed_as_kwarg",
        "as_kwarg",
        _as_kwarg,
        lambda f: (f(0.0, 1.0), f(0.0, y=1.0)),
        (first(), change((K.KEYWORD_VS_POSITIONAL, "y"), jax=("different input pytree",))),
    ),
    Case(
        "api_test.py::test_cache_miss_explanations_other_static_argnums",
        "static_nums",
        _static_argnums,
        lambda f: (f(1.0, 2.0, "foo"), f(1.0, 2.0, "bar")),
        (first(), change((K.STATIC_VALUE, "z"), jax=("Static(val='bar')",))),
    ),
    Case(
        "api_test.py::test_cache_miss_explanations_other_static_argnames",
        "static_names",
        _static_argnames,
        lambda f: (f(foo="foo"), f(foo="bar")),
        (first(), change((K.STATIC_VALUE, "foo"), jax=("Static(val='bar')",))),
    ),
    Case(
        "api_test.py::test_cache_miss_explanations_other_dtype",
        "other_dtype",
        _other_dtype,
        lambda f: (f(np.float32(0), np.float32(1)), f(np.float32(0), np.int32(1))),
        (first(), change((K.DTYPE, "y"), jax=("at y, now i32[] and before f32[]",))),
    ),
    Case(
        "api_test.py::test_cache_miss_explanations_other_weak_type",
        "weak",
        _weak_type,
        lambda f: (f(jnp.float32(0.0), jnp.arange(4.0)), f(0.0, jnp.arange(4.0))),
        (
            first(),
            change(
                (K.WEAK_TYPE, "x"),
                jax=("at x, now f32[]{weak_type=True} and before f32[]{weak_type=False}",),
            ),
        ),
    ),
    Case(
        "api_test.py::test_cache_miss_explanations_other_shape",
        "other_shape",
        _other_shape,
        lambda f: (
            f(np.float32(0), np.arange(1, dtype=np.float32)),
            f(np.float32(0), np.arange(2, dtype=np.float32)),
        ),
        (first(), change((K.SHAPE, "y"), jax=("at y, now f32[2] and before f32[1]",))),
    ),
    Case(
        "api_test.py::test_cache_miss_explanations_other_shape_explain_closest",
        "closest",
        _closest,
        _closest_calls,
        (first(), *[change((K.SHAPE, "x"), jax=("different input types",))] * 3),
    ),
    Case(
        "api_test.py::test_cache_miss_explanations_other_tracing_config",
        "config_f",
        _tracing_config,
        _tracing_config_calls,
        (
            first(),
            change(
                (K.TRACING_CONTEXT, "jax_numpy_rank_promotion"),
                (K.TRACING_CONTEXT, "jax_default_matmul_precision"),
                jax=("racing context", "now warn and before", "now high and before"),
            ),
        ),
    ),
    Case(
        "api_test.py::test_cache_miss_explanations_multiple_changes",
        "multiple",
        _multiple,
        _multiple_calls,
        (
            first(),
            # JAX names the closest key's context only; the shape differs from the one
            # executable there was, which JAX's "Compiling jit(multiple) with ... f32[8]" shows.
            change(
                (K.SHAPE, "x"),
                (K.TRACING_CONTEXT, "jax_numpy_rank_promotion"),
                jax=("jax_numpy_rank_promotion differs: now warn",),
            ),
            change(
                (K.TRACING_CONTEXT, "jax_numpy_rank_promotion"),
                jax=("jax_numpy_rank_promotion differs: now allow and before warn",),
            ),
        ),
    ),
    Case(
        "api_test.py::test_cache_miss_explanations_are_thread_safe",
        "total",
        _sum_case,
        _threads,
        (first(), *[change((K.SHAPE, "i"), jax=("different input types",))] * 15),
        ordered=False,
    ),
    Case(
        "pjit_test.py::test_pjit_single_device_sharding_cache",
        "single_device",
        _single_device,
        _single_device_calls,
        (first(),),
        hits=1,
    ),
    Case(
        "pjit_test.py::test_grad_of_pjit_single_device_sharding + testAutodiffCache",
        "<lambda>",
        _grad_of_jit,
        _grad_calls,
        # JAX compiles 3 executables: the call, then two under the first grad (JAX explains
        # no tracing miss for those); the second grad hits. Nothing was cleared.
        (first(), *[Compile((), check=_not_cleared_nor_first)] * 2),
        hits=1,
    ),
    Case(
        "api_test.py::test_jit_cache_clear",
        "cleared",
        _cleared,
        _clear_own_cache,
        (
            first(),
            # Watched, f.clear_cache() is heard and named (issue 50 rule 7); probed, the
            # call reaches Probe.clear_cache (jax.clear_caches()), named by the detail.
            Compile(
                ("never seen function",),
                frozenset({(K.CACHE_CLEARED, "")}),
                check=lambda found: (
                    found in ({(K.CACHE_CLEARED, "")}, {(K.CACHE_CLEARED, "cleared")})
                ),
            ),
        ),
    ),
    Case(
        "api_test.py::test_clear_cache",
        "cleared_all",
        _cleared_all,
        _clear_all_caches,
        (first(), change((K.CACHE_CLEARED, ""), jax=("never seen function",))),
    ),
    Case(
        "api_test.py::test_cache_key_defaults",
        "<lambda>",
        _defaults,
        lambda f: [f(jnp.arange(5.0)) for _ in range(3)],
        (first(),),
        hits=2,
    ),
    Case(
        "docs/jit-compilation.md, 'Marking arguments as static'",
        "cond",
        _static_doc,
        lambda f: (f(10), f(10), f(-10)),
        (first(), change((K.STATIC_VALUE, "x"), jax=("Static(val=-10)",))),
        hits=1,
    ),
    Case(
        "docs/jit-compilation.md, g_inner_jitted's loop_body",
        "loop_body",
        _loop_body,
        _loop_calls,
        (first(),),  # 0 (a weak int) and the weak i32[] it returns share one executable
        hits=4,
    ),
]
IDS = [c.source.split("::")[-1].split(",")[0] for c in CASES]


def _params():
    for case, case_id in zip(CASES, IDS, strict=True):
        for mode in MODES:
            marks = []
            if mode in case.xfail:
                marks.append(pytest.mark.xfail(strict=True, reason=case.xfail[mode]))
            yield pytest.param(case, mode, id=f"{case_id}-{mode}", marks=marks)


@dataclass
class Run:
    records: list[CallRecord]  # every record of the function (compiles; hits where counted)
    log: JaxCompileLog
    hits: int | None


def run(case: Case, mode: str) -> Run:
    """The case's calls, under ``mode``, with JAX's account of the same calls."""
    if mode == "probe":
        with jax_account() as log:
            probe = Probe(case.make())
            case.drive(probe)
        records = [r for r in probe.records if r.function == case.name]
        return Run(records, log, sum(1 for r in records if r.kind is CallKind.CACHE_HIT))
    jitted = None if mode == "watch" else case.make()
    with jax_account() as log, watch() as recorder:
        case.drive(jitted if jitted is not None else case.make())
    calls = [c for c in recorder.calls if c.record.function == case.name]
    # Jitted before the watch: seen through events only. Jitted inside: probed (a compile
    # JAX makes outside the probed call, e.g. grad's backward pass, is filed from events).
    assert all(c.events_only for c in calls) if mode == "events" else not calls[0].events_only
    sites = {c.defined_at for c in calls}
    stats = [s for s in recorder.stats.values() if s.name == case.name and s.defined_at in sites]
    hits = None if mode == "events" else sum(s.hits or 0 for s in stats)
    return Run([c.record for c in calls], log, hits)


_NOW_BEFORE = re.compile(r"\* at (?P<path>\S+), now (?P<now>\S+) and before (?P<before>\S+)")


def _type_text(text: str) -> str:
    # JAX's type text with its sharding ("f32[2]({})") and weak-type suffixes dropped.
    return re.sub(r"\(\{.*$|\{weak_type=\w+\}.*$", "", text)


@pytest.mark.parametrize(("case", "mode"), list(_params()))
def test_jax_port(case: Case, mode: str) -> None:
    result = run(case, mode)
    made = [r for r in result.records if r.kind.compiled]
    jax_compiles = result.log.counts[case.name]
    assert jax_compiles == len(case.compiles), "the port no longer does what JAX's test does"
    assert len(made) == jax_compiles, [str(r.reason) for r in made]
    if result.hits is not None:
        assert result.hits == case.hits
    misses = result.log.misses_of(case.name)
    expected_list = list(case.compiles)
    if not case.ordered:
        _check_unordered(made, misses, mode)
        return
    earlier: list[str] = []  # the types of the executables made so far
    for n, (record, expected) in enumerate(zip(made, expected_list, strict=True)):
        assert record.reason is not None
        found = {(c.kind, c.path) for c in record.reason.items}
        jax_text = record.reason.jax_explanation or ""
        if jax_text:
            assert jax_text in misses, "jitlab kept JAX's explanation word for word"
        if n == 0 and expected.changes == FIRST:
            # Threads: jitlab's first filed need not be the first JAX traced; JAX says
            # "never seen function" once, whichever thread it was.
            assert "never seen function" in (jax_text if case.ordered else "".join(misses))
        elif expected.jax_says and _jax.VERSION >= (0, 11, 0) and explain.says_nothing(jax_text):
            # From 0.11 JAX leaves static arguments out of its comparison and says only
            # "explanation unavailable": no words of its beside jitlab's own reason, which
            # stands on its own measurement; with none (events only), unknown and JAX's words.
            assert any("explanation unavailable" in m for m in misses), misses
            if found == {(K.UNKNOWN, "")}:
                assert mode == "events" and "unavailable" in jax_text, (mode, jax_text)
                continue
            assert not jax_text
            assert any(c.kind is K.STATIC_VALUE for c in record.reason.items), found
        elif (case.ordered or "never seen function" not in jax_text) and PORTED_WORDS:
            # (Threads: the call JAX traced first may be filed after another thread's.)
            assert all(s in jax_text for s in expected.jax_says), jax_text
            assert "explanation unavailable" not in jax_text  # never kept beside our reason
        if mode == "events" and found == {(K.UNKNOWN, "")} and expected.changes != FIRST:
            # No signature of jitlab's own and nothing JAX said that it can read: unknown,
            # with JAX's words kept (when JAX said anything).
            (item,) = record.reason.items
            assert item.detail in jax_text and bool(item.detail) == bool(jax_text)
            continue
        if mode == "events" and expected.changes not in (None, FIRST):
            # JAX's changes, named by JAX's paths where jitlab cannot map them to the user's.
            allowed = {k for k, _ in expected.changes}
            if "different input pytree" in jax_text:
                allowed.add(K.TREE_STRUCTURE)
            if "another function defined on the same line" in jax_text:
                allowed.add(K.NEW_FUNCTION_OBJECT)  # JAX's own hint (its path: the def)
            for kind, path in found:
                if not PORTED_WORDS and _said_by_old_jax(kind, path, jax_text):
                    continue  # JAX's own closest key and words, read as they are
                assert kind in allowed, (found, jax_text)
                if kind is K.NEW_FUNCTION_OBJECT:
                    continue
                assert path in {p for _, p in expected.changes} or (
                    f"input path {path}," in jax_text or f"at {path}," in jax_text
                ), (found, jax_text)
            continue
        if expected.check is not None:
            assert expected.check(found), (found, jax_text)
        else:
            assert found == expected.changes, (found, jax_text)
        for said in _NOW_BEFORE.finditer(jax_text):
            # Where JAX says "at y, now A and before B", jitlab's change at y says B -> A; B
            # is JAX's closest key: in call order jitlab's, else one made earlier.
            for item in record.reason.items:
                if item.path == said["path"] and item.kind in (K.SHAPE, K.DTYPE):
                    assert item.after == _type_text(said["now"])
                    if case.ordered and _jax.VERSION >= (0, 10, 0):
                        assert item.before == _type_text(said["before"])
                    else:  # below 0.10 JAX's "closest key" is its own pick, not jitlab's
                        assert item.before in earlier
        if record.signature is not None:
            earlier.extend(leaf.type_text for leaf in record.signature.leaves)


def _said_by_old_jax(kind: ChangeKind, path: str, jax_text: str) -> bool:
    """Below 0.10 JAX picks its own closest key and words it in its own format: a change read
    from it is right when JAX's text says it (a static value with no position when JAX gives
    none, a keyword JAX names, a type at a path JAX names, a context option at a position)."""
    if kind is K.STATIC_VALUE:
        return "value of static" in jax_text and (
            path == "" or path.rpartition("[")[2].strip("']") in jax_text
        )
    if kind in (K.SHAPE, K.DTYPE, K.WEAK_TYPE):
        return bool(path) and (f"at {path}," in jax_text or f" {path}: " in jax_text)
    if kind is K.TRACING_CONTEXT:
        return "tracing context" in jax_text.lower()
    return False


def _check_unordered(made: list[CallRecord], misses: list[str], mode: str) -> None:
    """Threads: calls start together, so "first" is no order JAX and jitlab share (two
    threads may both trace the function JAX had never seen; jitlab may file either first).
    Every compile is a first call, a new function object where JAX saw one on that line, or
    the shape change of ``i`` (the new type being the one JAX names); the counts are exact."""
    firsts = 0
    for record in made:
        assert record.reason is not None
        jax_text = record.reason.jax_explanation or ""
        assert jax_text in misses
        found = {(c.kind, c.path) for c in record.reason.items}
        if found == FIRST:
            firsts += 1
        elif {k for k, _ in found} == {K.NEW_FUNCTION_OBJECT}:
            assert "another function defined on the same line" in jax_text, jax_text
            firsts += 1
        elif mode == "events" and found == {(K.UNKNOWN, "")}:
            assert record.reason.items[0].detail in jax_text
        else:
            assert found == {(K.SHAPE, "i")}, (found, jax_text)
            said = _NOW_BEFORE.search(jax_text)
            if said is not None:
                assert said["path"] == "i"
                assert record.reason.items[0].after == _type_text(said["now"])
    assert firsts >= 1 and sum("never seen function" in m for m in misses) >= 1


# -- cases that are not one jitted function ----------------------------------------------------
def test_skip_internals_eager_ops_are_not_the_users_and_jax_explains_none():
    """api_test.py::test_cache_miss_explanations_skip_internals: eager ``jnp.sin`` on two
    shapes. JAX explains no miss; jitlab records nothing unless asked, then JAX's count."""
    with jax_account() as log, watch() as hidden:
        for i in range(2):
            jnp.sin(jnp.arange(i + 1, dtype=np.float32))
    assert log.misses == []
    assert log.counts["sin"] == 2
    assert hidden.calls == []
    with jax_account() as log, watch(include_internal=True) as shown:
        for i in range(2):
            jnp.cos(jnp.arange(i + 1, dtype=np.float32))
    cos = [c for c in shown.calls if c.record.function == "cos"]
    assert len(cos) == log.counts["cos"] == 2 and all(c.internal for c in cos)
    assert log.misses == []


def test_no_source_info_builtin_under_watch():
    """api_test.py / debug_info_test.py ``..._no_source_info``: ``jax.jit(operator.add)``
    made inside a watch (the Probe side is ported in tests/probe/test_reasons.py)."""
    with jax_account() as log, watch() as recorder:
        jax.jit(operator.add)(42, 24)
        jax.jit(operator.add)(42.0, 24)
    calls = [c for c in recorder.calls if c.record.function == "add"]
    assert len(calls) == log.counts["add"] == 2
    assert calls[0].record.reason.kinds() == (K.FIRST_CALL,)
    assert {c.kind for c in calls[1].record.reason.items} & {K.WEAK_TYPE, K.DTYPE}


def _unjitted_loop_body(prev_i):
    return prev_i + 1


def _loop_body(prev_i):
    # The "OK" loop's own function: a partial of _unjitted_loop_body is that function to
    # JAX's log and to jitlab's rows (one name and definition), so the case after it would
    # find its executables already counted.
    return prev_i + 1


def _g_inner_jitted_partial(x, n):
    i = 0
    while i < n:
        # docs/jit-compilation.md: "Don't do this! each time the partial returns a function
        # with different hash"
        i = jax.jit(functools.partial(_unjitted_loop_body))(i)
    return x + i


def _g_inner_jitted_lambda(x, n):
    i = 0
    while i < n:
        i = jax.jit(lambda x: _unjitted_loop_body(x))(i)  # docs: "Don't do this!"
    return x + i


def _g_inner_jitted_normal(x, n):
    i = 0
    while i < n:
        i = jax.jit(_loop_body)(i)  # docs: "this is OK"
    return x + i


@pytest.mark.parametrize(
    ("loop", "name", "compiles"),
    [
        (_g_inner_jitted_partial, "_unjitted_loop_body", 5),
        (_g_inner_jitted_lambda, "<lambda>", 5),
        (_g_inner_jitted_normal, "_loop_body", 1),
    ],
    ids=["partial", "lambda", "normal"],
)
def test_doc_jit_called_in_a_loop(loop, name, compiles):
    """docs/jit-compilation.md, 'JIT and caching': jax.jit of a partial, a lambda, the
    function itself, inside a loop of 5 iterations."""
    with jax_account() as log, watch() as recorder:
        loop(10, 5)
    calls = [c for c in recorder.calls if c.record.function == name]
    made = [c for c in calls if c.record.kind.compiled]
    assert len(made) == log.counts[name] == compiles
    assert made[0].record.reason.kinds() == (K.FIRST_CALL,)
    misses = log.misses_of(name)
    for call in made[1:]:
        # JAX: "never seen function ... but seen another function defined on the same line"
        assert call.record.reason.kinds()[0] is K.NEW_FUNCTION_OBJECT
        assert call.record.reason.jax_explanation in misses
        assert "another function defined on the same line" in call.record.reason.jax_explanation
    # Every call is counted: compiles, and hits on the executable JAX shared.
    stats = [s for s in recorder.stats.values() if s.defined_at == made[0].defined_at]
    assert sum(s.compiles for s in stats) + sum(s.hits or 0 for s in stats) == 5


def _add_multiply(a, b, scale):
    return (a + b) * scale


@pytest.mark.parametrize("style", ["lambda", "partial"])
def test_doc_lambda_instead_of_partial(style):
    """docs/debugging/slow_tracing_compilation.md, 'JIT compiling a lambda instead of
    functools.partial'. The doc calls partial the fix; JAX 0.10.2 compiles a new partial of
    another scale again all the same (its log: 3 compiles). jitlab counts what JAX did."""

    def top_function(x, y, scale_factor):
        if style == "lambda":
            return jax.jit(lambda a, b: _add_multiply(a, b, scale=scale_factor))(x, y)
        return jax.jit(functools.partial(_add_multiply, scale=scale_factor))(x, y)

    name = "<lambda>" if style == "lambda" else "_add_multiply"
    with jax_account() as log, watch() as recorder:
        for scale in (1.0, 2.0, 3.0):
            top_function(jnp.ones(3), jnp.ones(3), scale)
    made = [c for c in recorder.calls if c.record.function == name and c.record.kind.compiled]
    assert len(made) == log.counts[name] == 3
    for call in made[1:]:
        assert call.record.reason.kinds()[0] is K.NEW_FUNCTION_OBJECT
        assert "another function defined on the same line" in call.record.reason.jax_explanation


def test_doc_recreated_custom_einsum_and_its_fix():
    """docs/debugging/slow_tracing_compilation.md, 'Dynamically recreating function objects'
    (custom_einsum inside top_function) and the fix (defined once)."""

    def top_function(x, y):
        def custom_einsum(a, b):
            return jnp.einsum("...i,...i->...", a, b)

        return jax.jit(custom_einsum)(x, y)

    def custom_einsum_once(a, b):
        return jnp.einsum("...i,...i->...", a, b)

    def top_fixed(x, y):
        return jax.jit(custom_einsum_once)(x, y)

    x = jnp.ones((2, 3))
    with jax_account() as log, watch() as recorder:
        for _ in range(3):
            top_function(x, x)
            top_fixed(x, x)
    bad = [c for c in recorder.calls if c.record.function == "custom_einsum"]
    assert len(bad) == log.counts["custom_einsum"] == 3
    assert [c.record.reason.items[0].count for c in bad[1:]] == [2, 3]
    assert all(c.record.reason.kinds() == (K.NEW_FUNCTION_OBJECT,) for c in bad[1:])
    good = [c for c in recorder.calls if c.record.function == "custom_einsum_once"]
    assert len(good) == log.counts["custom_einsum_once"] == 1
    (stats,) = [s for s in recorder.stats.values() if s.defined_at == good[0].defined_at]
    assert stats.hits == 2


def _quantize(x):
    scale = jnp.max(jnp.abs(x))
    return jnp.round(x * scale)


def test_doc_eager_python_loop_and_its_fix():
    """docs/debugging/slow_tracing_compilation.md, 'Eager Python loops': jax.tree.map of an
    eager quantize compiles each primitive per shape; jitted, one compile."""
    params = {"a": jnp.ones((2, 3)), "b": jnp.ones(4), "c": jnp.ones((2, 3))}
    with jax_account() as log, watch(include_internal=True) as eager:
        jax.tree.map(_quantize, params)
    kernels = {c.record.function for c in eager.calls}
    assert kernels == {"abs", "_reduce_max", "multiply", "round"}
    for kernel in kernels:
        mine = [c for c in eager.calls if c.record.function == kernel]
        assert len(mine) == log.counts[kernel] == 2  # two shapes: (2, 3) and (4,)
        assert all(c.internal for c in mine)
    with jax_account() as log, watch() as fixed:
        jax.jit(lambda p: jax.tree.map(_quantize, p))(params)
    assert [c.record.function for c in fixed.calls] == ["<lambda>"]
    assert log.counts["<lambda>"] == 1


def test_doc_jit_of_value_dependent_control_flow_is_an_error_and_compiles_nothing():
    """docs/jit-compilation.md, 'Why can't we just JIT everything?': ``jax.jit(f)(10)``
    raises; jitlab records an error, JAX compiled nothing, the same exception reaches us."""

    def f(x):
        if x > 0:
            return x
        return 2 * x

    with jax_account() as log:
        probe = Probe(jax.jit(f))
        with pytest.raises(jax.errors.TracerBoolConversionError):
            probe(10)
    assert log.counts["f"] == 0
    assert [r.kind for r in probe.records] == [CallKind.ERROR]
    with (
        jax_account() as log,
        watch() as recorder,
        pytest.raises(jax.errors.TracerBoolConversionError),
    ):
        jax.jit(f)(10)
    assert [c.record.kind for c in recorder.calls if c.record.function == "f"] == [CallKind.ERROR]
    assert log.counts["f"] == 0


def test_pjit_function_cache_cpp_jit_again_per_call():
    """pjit_test.py::test_pjit_function_cache_cpp: ``jax.jit(f)(inp)`` 10 times is one
    compile; jitlab counts 1 compile and 9 hits on the shared executable."""

    def f(x):
        return x * 2

    inp = jnp.arange(3.0)
    with jax_account() as log, watch() as recorder:
        for _ in range(10):
            jax.jit(f)(inp)
    made = [c for c in recorder.calls if c.record.function == "f" and c.record.kind.compiled]
    assert len(made) == log.counts["f"] == 1
    (stats,) = [s for s in recorder.stats.values() if s.defined_at == made[0].defined_at]
    assert (stats.compiles, stats.hits) == (1, 9)


# JAX 0.8 warns that make_mesh's default axis_types will change (0.9 made it Explicit);
# the test keeps each version's own default, as the code it checks sees it.
@pytest.mark.filterwarnings("ignore:The default axis_types will change:DeprecationWarning")
def test_pjit_no_global_cache_hit_axis_resources():
    """pjit_test.py::test_pjit_no_global_cache_hit_axis_resources, on a 1-device mesh: a
    lambda jitted with shardings per call compiles each time; jitted once, once."""
    mesh = jax.make_mesh((1,), ("x",))
    s = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x"))
    inp = jnp.arange(8.0)
    with jax_account() as log, watch() as recorder:
        for _ in range(4):
            jax.jit(lambda x: x * 2, in_shardings=s, out_shardings=s)(inp)
    made = [c for c in recorder.calls if c.record.function == "<lambda>"]
    assert len(made) == log.counts["<lambda>"] == 4
    assert all(c.record.reason.kinds()[0] is K.NEW_FUNCTION_OBJECT for c in made[1:])

    with jax_account() as log, watch() as recorder:
        pf = jax.jit(lambda x: x * 3, in_shardings=s, out_shardings=s)
        for _ in range(4):
            pf(inp)
    made = [c for c in recorder.calls if c.record.function == "<lambda>"]
    assert len(made) == log.counts["<lambda>"] == 1


def test_jit_global_cache_two_jits_of_one_function():
    """api_test.py::test_jit_global_cache: ``jit(f)(2)`` then ``jit(f)(3)`` runs f's Python
    once (JAX shares one cache per function and options); jitlab: 1 compile, then a hit on
    the executable the other jax.jit made, under watch and under two Probes."""
    ran: list[int] = []

    def f(x):
        ran.append(1)
        return x

    with jax_account() as log, watch() as recorder:
        jax.jit(f)(2)
        jax.jit(f)(3)
    assert len(ran) == log.counts["f"] == 1
    made = [c for c in recorder.calls if c.record.function == "f" and c.record.kind.compiled]
    assert len(made) == 1
    (stats,) = [s for s in recorder.stats.values() if s.defined_at == made[0].defined_at]
    assert (stats.compiles, stats.hits) == (1, 1)

    def g(x):
        ran.append(2)
        return x

    with jax_account() as log:
        first, second = Probe(jax.jit(g)), Probe(jax.jit(g))
        first(2)
        second(3)
    assert ran.count(2) == log.counts["g"] == 1
    assert [r.kind for r in first.records] == [CallKind.COMPILE]
    assert [r.kind for r in second.records] == [CallKind.CACHE_HIT]
    assert second.records[0].reason.kinds() == (K.SHARED_EXECUTABLE,)
