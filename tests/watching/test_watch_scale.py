"""Issue 24, the watch side: the lean counting path keeps exact per-function hit counts across
threads, and putting JAX's costly explanations off (monitor.EXPLAIN_AT_ONCE) leaves every
recompile's reason right — for functions jitted inside the watch, before it began, and seen
only through events. Correctness only: the costs are in benchmarks/watch_scale.py."""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from jitlab.probe import _jax, explain, monitor
from jitlab.records.calls import CallKind
from jitlab.records.changes import ChangeKind as K
from jitlab.watching import standin
from jitlab.watching.recorder import watch
from jitlab.watching.standin import WatchedFunction

MANY = monitor.EXPLAIN_AT_ONCE + 3  # more signatures than JAX is asked about at once


def test_hit_counts_are_exact_per_function_across_threads(tmp_path):
    threads, calls = 4, 1500
    path = tmp_path / "run.jsonl"
    with watch(path) as recorder:

        def doubled(x):
            return x * 2

        def plus_one(x):
            return x + 1

        f, g = jax.jit(doubled), jax.jit(plus_one)
        small, big = jnp.ones(2), jnp.ones(3)
        for fn in (f, g):  # two compiled signatures each, before the threads start
            fn(small), fn(big)
        start = threading.Barrier(threads)

        def loop(i: int) -> None:
            start.wait()
            for n in range(calls):
                (f if (n + i) % 3 else g)(small if n % 2 else big)

        workers = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    assert f._cache_size() == 2 and g._cache_size() == 2  # JAX compiled nothing more
    expected_f = sum(1 for i in range(threads) for n in range(calls) if (n + i) % 3)
    expected_g = threads * calls - expected_f
    # By this file's sites: a worker that ran other files holds sites of their own (a
    # recorder counts every site from its start).
    here = str(Path(__file__).resolve())
    hits = {
        s.name: s.hits
        for s in recorder.stats.values()
        if s.name in ("doubled", "plus_one") and (s.defined_at or "").startswith(here)
    }
    assert hits == {"doubled": expected_f, "plus_one": expected_g}
    assert len(recorder.compiles) == 4  # a compile and a recompile each, nothing else
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    last = {line["function"]: line["hits"] for line in lines if line["type"] == "hits"}
    assert last == {"doubled": expected_f, "plus_one": expected_g}


def test_calls_with_keyword_arguments_are_counted_and_their_recompiles_named():
    # The fast path passes keywords on only when there are some: a call with them is still
    # JAX's call, a hit counted as one, a keyword's new shape a recompile saying so.
    with watch() as recorder:

        def scaled(x, *, scale, mode):
            return x * scale if mode == "mul" else x + scale

        f = jax.jit(scaled, static_argnames="mode")
        x = jnp.ones(2)
        for scale, mode in [(jnp.ones(2), "mul")] * 3 + [(jnp.ones(3), "mul")] * 2:
            f(x if scale.shape == (2,) else jnp.ones(3), scale=scale, mode=mode)
        f(x, mode="add", scale=jnp.ones(2))  # keywords out of order: a new static value
    assert f._cache_size() == 3  # JAX compiled these three signatures, nothing more
    records = [c.record for c in recorder.calls]
    assert [r.kind for r in records] == [CallKind.COMPILE] + [CallKind.RECOMPILE] * 2
    changed = [{(c.kind, c.before, c.after) for c in r.reason.items} for r in records[1:]]
    assert (K.SHAPE, "f32[2]", "f32[3]") in changed[0]
    assert any(kind is K.STATIC_VALUE for kind, _, _ in changed[1])
    (stats,) = [s for s in recorder.stats.values() if s.name == "scaled" and s.compiles]
    assert stats.hits == 3  # the 2nd, 3rd and 5th calls


def test_a_recompile_past_the_explained_ones_has_jitlabs_reason():
    with watch() as recorder:
        f = jax.jit(lambda x: x * 2)
        for n in range(1, MANY + 1):
            f(jnp.ones(n))
    assert f._cache_size() == MANY  # each signature really compiled
    records = [c.record for c in recorder.calls]
    assert [r.kind for r in records] == [CallKind.COMPILE] + [CallKind.RECOMPILE] * (MANY - 1)
    for n, record in enumerate(records[1:], start=2):
        assert record.reason is not None
        (change,) = record.reason.items
        assert (change.kind, change.before, change.after) == (K.SHAPE, f"f32[{n - 1}]", f"f32[{n}]")
    if _jax.VERSION >= (0, 10, 0):
        # JAX's own words while it holds few executables of f; past that, jitlab's diff alone.
        explained = [r.reason.jax_explanation is not None for r in records if r.reason]
        assert explained[: monitor.EXPLAIN_AT_ONCE + 1] == [True] * (monitor.EXPLAIN_AT_ONCE + 1)
        assert not any(explained[monitor.EXPLAIN_AT_ONCE + 1 :])


def test_a_user_who_asked_for_explanations_gets_every_one(caplog):
    jax.config.update("jax_explain_cache_misses", True)
    try:
        with caplog.at_level(logging.WARNING), watch() as recorder:
            f = jax.jit(lambda x: x * 3)
            for n in range(1, MANY + 1):
                f(jnp.ones(n))
    finally:
        jax.config.update("jax_explain_cache_misses", False)
    records = [c.record for c in recorder.calls]
    assert len(records) == MANY == f._cache_size()
    assert all(r.reason and r.reason.jax_explanation for r in records)
    logged = [r.getMessage() for r in caplog.records if "TRACING CACHE MISS" in r.getMessage()]
    assert sum(f"f32[{MANY}]" in text for text in logged) == 1  # the last miss, in JAX's log


def test_a_function_jitted_before_the_watch_keeps_jaxs_words():
    # Seen only through its compile events: JAX's words are all there is, never put off.
    def before(x):
        return x - 1

    early = jax.jit(before)
    for n in range(1, MANY + 1):
        early(jnp.ones(n))
    with watch() as recorder:
        early(jnp.ones(MANY + 1))
    assert early._cache_size() == MANY + 1  # it recompiled inside the watch
    (call,) = [c for c in recorder.calls if c.record.function == "before"]
    assert call.events_only and call.record.kind is CallKind.RECOMPILE
    reason = call.record.reason
    assert reason is not None and reason.jax_explanation
    assert K.SHAPE in reason.kinds()


def test_a_function_jitted_before_the_watch_and_again_inside_it():
    # The same Python function jitted again inside the watch shares JAX's tracing cache, which
    # already holds many of its keys: the first compile jitlab sees is still named right.
    def twice(x):
        return x * 5

    early = jax.jit(twice)
    for n in range(1, MANY + 1):
        early(jnp.ones(n))
    with watch() as recorder:
        inside = jax.jit(twice)
        inside(jnp.ones(2))  # JAX's executable for this signature serves it: no compile
        inside(jnp.ones((MANY + 1, 2)))  # a new signature: compiled
        inside(jnp.ones((MANY + 2, 2)))
    assert early._cache_size() == MANY + 2
    records = [c.record for c in recorder.calls if c.record.function == "twice"]
    assert [r.kind.compiled for r in records] == [True, True]
    last = records[-1].reason
    assert last is not None
    (change,) = last.items
    assert (change.kind, change.before, change.after) == (
        K.SHAPE,
        f"f32[{MANY + 1},2]",
        f"f32[{MANY + 2},2]",
    )


def test_explanations_put_off_are_jaxs_own_words_when_made():
    if not _jax.defer_explanations(monitor._deferral_sink, monitor.EXPLAIN_AT_ONCE):
        return  # this JAX explains every miss at once (< 0.10): nothing is put off
    f = jax.jit(lambda x: x / 2)
    for n in range(1, MANY + 1):
        f(jnp.ones(n))
    monitor.install()
    collector = monitor.CallCollector("<lambda>", None, False)
    collector.defer_explain = True
    previous = monitor.begin(collector)
    try:
        f(jnp.ones(MANY + 1))
    finally:
        monitor.end(collector, previous)
    assert f._cache_size() == MANY + 1
    assert collector.traced and collector.deferred  # missed, and the words were put off
    assert not [t for t in collector.explanations if "<lambda>" in t]
    words = monitor.explain_now(collector.deferred)
    assert words is not None and words.startswith("TRACING CACHE MISS")
    assert "all previously seen cache keys differ" in words
    changes = [c for c in explain.parse(words) if c.kind is K.SHAPE]
    assert changes and changes[0].after == f"f32[{MANY + 1}]"


def test_past_eight_executables_jax_is_not_asked_to_explain_the_function():
    """With explanations on, even put off, each miss costs more as JAX's cache grows. Past
    monitor.EXPLAIN_AT_ONCE executables of a watched function its calls run with them off:
    JAX's explainer is not reached for its misses at all, and jitlab's own diff still names
    every change."""
    cell = _jax._tracing_explainer_cell()
    if cell is None:  # below 0.10 there is no hook (and nothing is switched off)
        return
    reached: list[int] = []
    jitlab_explainer = cell.cell_contents

    def counting(keys, fun, *args, **kwargs):
        if getattr(fun, "__name__", "") == "squares":
            reached.append(len(keys))
        return jitlab_explainer(keys, fun, *args, **kwargs)

    cell.cell_contents = counting
    try:
        with watch() as recorder:

            def squares(x):
                return (x * x).sum()

            f = jax.jit(squares)
            sizes = range(1, 15)
            for n in sizes:
                f(jnp.ones(n))
            for n in sizes:  # hits, counted as before
                f(jnp.ones(n))
    finally:
        cell.cell_contents = jitlab_explainer
    assert f._cache_size() == len(sizes)  # every one compiled once
    made = [c.record for c in recorder.calls if c.record.function == "squares"]
    assert len(made) == len(sizes)
    assert made[0].kind is CallKind.COMPILE
    for record, n in zip(made[1:], list(sizes)[1:], strict=True):
        assert record.kind is CallKind.RECOMPILE
        assert [(c.kind, c.after) for c in record.reason.items] == [(K.SHAPE, f"f32[{n}]")]
    # JAX was asked while it held at most EXPLAIN_AT_ONCE executables of it, never after.
    assert reached and len(reached) <= monitor.EXPLAIN_AT_ONCE + 1
    assert all(r.reason.jax_explanation is None for r in made[monitor.EXPLAIN_AT_ONCE + 1 :])
    (stats,) = [
        s
        for s in recorder.stats.values()
        if s.name == "squares" and (s.defined_at or "").startswith(str(Path(__file__).resolve()))
    ]
    assert stats.hits == len(sizes)


# -- events are not routed on the hot path: a call that fires one is found on the stack ---------
def _site_stats(recorder, name: str):
    here = str(Path(__file__).resolve())
    (stats,) = [
        s
        for s in recorder.stats.values()
        if s.name == name and (s.defined_at or "").startswith(here)
    ]
    return stats


def test_another_threads_compiles_leave_this_threads_hits_counted_exactly(monkeypatch):
    # Every event marks monitor.SEEN on all threads: a hit that saw another thread's compile
    # takes the slow path, finds nothing routed to it, and is counted as the hit it was.
    slow = []
    after = WatchedFunction._after

    def counted_after(self, *args, **kwargs):
        slow.append(self.__name__)
        return after(self, *args, **kwargs)

    monkeypatch.setattr(WatchedFunction, "_after", counted_after)
    shapes, calls = 30, 0
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between any two bytecodes, nearly
    try:
        with watch() as recorder:

            def steady(x):
                return x * 3

            def growing(x):
                return x - 1

            f, g = jax.jit(steady), jax.jit(growing)
            x = jnp.ones(2)
            f(x)
            go = threading.Barrier(2)

            def compile_many() -> None:
                go.wait()
                for n in range(1, shapes + 1):
                    g(jnp.ones(n + 10))

            worker = threading.Thread(target=compile_many)
            worker.start()
            go.wait()
            while worker.is_alive() or calls < 1000:
                f(x)
                calls += 1
            worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert "steady" in slow  # hits of f saw g's events: the case under test happened
    assert f._cache_size() == 1 and g._cache_size() == shapes
    steady_stats, growing_stats = _site_stats(recorder, "steady"), _site_stats(recorder, "growing")
    assert (steady_stats.compiles, steady_stats.hits) == (1, calls)
    assert (growing_stats.compiles, growing_stats.hits) == (shapes, 0)


def test_a_call_interrupted_while_jax_traced_it_leaves_nothing_routed():
    # Ctrl-C inside a trace: the call routed to lazily (on JAX's first event) is routed no
    # more; the next watched function's compile is its own, with its reason.
    with watch() as recorder:

        def interrupted(x, stop):
            if stop:
                raise KeyboardInterrupt
            return x + 1

        def after(x):
            return x * 2

        f = jax.jit(interrupted, static_argnums=1)
        g = jax.jit(after)
        f(jnp.ones(2), False)  # a compile: JAX fires events, the call is found on the stack
        with contextlib.suppress(KeyboardInterrupt):
            f(jnp.ones(2), True)
        assert monitor.current() is None  # nothing routed on this thread any more
        g(jnp.ones(3))
        g(jnp.ones(4))
        g(jnp.ones(4))
    stats = _site_stats(recorder, "after")
    assert (stats.compiles, stats.hits) == (2, 1)
    (recompile,) = [
        c.record
        for c in recorder.compiles
        if c.record.function == "after" and c.record.kind is CallKind.RECOMPILE
    ]
    assert [(c.kind, c.before, c.after) for c in recompile.reason.items] == [
        (K.SHAPE, "f32[3]", "f32[4]")
    ]


def test_kernels_of_jax_are_described_only_when_recorded(tmp_path):
    """A kernel JAX compiles for itself (an eager ``jnp.sin``) is not described unless the
    recording keeps such kernels (--include-internal): then its signature is the shape it
    was compiled for."""
    from jitlab.watching.recorder import Recorder

    with Recorder(include_internal=True) as kept:
        for n in (3, 4):
            jnp.sin(jnp.ones(n, jnp.float32) * 7.0)
    described = [c.record.signature for c in kept.calls if c.internal]
    assert described, "eager kernels were compiled and recorded"
    assert any(s is not None and "f32[4]" in str(s) for s in described), described

    with Recorder(include_internal=False) as plain:
        for n in (5, 6):
            jnp.sin(jnp.ones(n, jnp.float32) * 7.0)
    assert not [c for c in plain.calls if c.internal]


# -- the fast path: hooks, not reads, tell a watched call it was no hit -------------------------
def test_calls_with_jit_disabled_are_never_hits_on_their_thread_or_globally():
    # Under jax.disable_jit JAX runs the Python function itself: no event, no Python dispatch
    # of the jitted function. The watch's fast path is closed while any thread may run so.
    with watch() as recorder:

        def eager_here(x):
            return x * 2

        f = jax.jit(eager_here)
        x = jnp.ones(3)
        f(x)  # compiled
        f(x)  # hit 1
        assert standin.FAST_PATH[0]
        with jax.disable_jit():
            assert not standin.FAST_PATH[0]
            f(x), f(x)
        assert standin.FAST_PATH[0]
        jax.config.update("jax_disable_jit", True)
        try:
            f(x)
        finally:
            jax.config.update("jax_disable_jit", False)
        entered, leave = threading.Event(), threading.Event()

        def disabled_in_a_thread() -> None:
            with jax.disable_jit():
                entered.set()
                leave.wait()
                f(x)

        worker = threading.Thread(target=disabled_in_a_thread)
        worker.start()
        entered.wait()
        f(x)  # hit 2: jit runs on this thread, the careful path tells
        assert not standin.FAST_PATH[0]
        leave.set()
        worker.join()
        f(x)  # hit 3
        assert standin.FAST_PATH[0]
    assert not standin.FAST_PATH[0]  # the watch is over
    assert f._cache_size() == 1
    stats = _site_stats(recorder, "eager_here")
    assert (stats.compiles, stats.hits) == (1, 3)


@contextlib.contextmanager
def _other_listeners_put_back() -> Iterator[None]:
    """``jax.monitoring.clear_event_listeners()`` clears the whole process's listeners, other
    test files' too (tests/probe/test_probe.py keeps one for the session): those that were
    there are registered again afterwards (jitlab registers its own itself)."""
    from jax._src import monitoring as jax_monitoring

    events = list(jax_monitoring.get_event_listeners())
    durations = list(jax_monitoring.get_event_duration_listeners())
    try:
        yield
    finally:
        for listener in events:
            if listener not in jax_monitoring.get_event_listeners():
                jax.monitoring.register_event_listener(listener)
        for listener in durations:
            if listener not in jax_monitoring.get_event_duration_listeners():
                jax.monitoring.register_event_duration_secs_listener(listener)


def test_a_compile_after_the_program_cleared_jitlabs_listeners_is_heard():
    # The fast path reads no listener list: JAX's Python dispatch, which every compile goes
    # through first, registers jitlab's listeners again before anything is traced.
    with _other_listeners_put_back(), watch() as recorder:

        def heard(x):
            return x + 2

        f = jax.jit(heard)
        f(jnp.ones(2))
        f(jnp.ones(2))
        jax.monitoring.clear_event_listeners()
        f(jnp.ones(2))  # a hit
        f(jnp.ones(5))  # a compile
        f(jnp.ones(5))
    stats = _site_stats(recorder, "heard")
    assert (stats.compiles, stats.hits) == (2, 3)
    assert f._cache_size() == 2


def test_a_watched_call_that_is_no_hit_is_timed_from_jaxs_dispatch_of_it():
    # The fast path takes no clock: a compile, a failure while tracing and a call inside
    # another's trace are timed from JAX's Python dispatch of them, which comes before the
    # trace (a sleep in the function's body is inside every one of their times), and
    # nothing of theirs is left behind once they are filed.
    pause = 0.05
    with watch() as recorder:

        def slow_to_trace(x, fail=False):
            time.sleep(pause)  # runs while JAX traces, never at a hit
            if fail:
                raise ValueError("refused while tracing")
            return x * 2

        f = jax.jit(slow_to_trace, static_argnames="fail")
        outer = jax.jit(lambda x: f(x) + 1)
        f(jnp.ones(2))  # compile
        f(jnp.ones(2))  # hit
        f(jnp.ones(3))  # recompile
        with contextlib.suppress(ValueError):
            f(jnp.ones(2), fail=True)
        outer(jnp.ones(4))  # f traced inside outer's trace: inlined there
        jax.vmap(f)(jnp.ones((2, 5)))  # a transformation around the call
        assert standin.FAST_PATH[0]  # all of these went by the fast path
    own = [c.record for c in recorder.calls if c.record.function == "slow_to_trace"]
    assert [r.kind for r in own] == [
        CallKind.COMPILE,
        CallKind.RECOMPILE,
        CallKind.ERROR,
        CallKind.RECOMPILE,
    ]
    for record in own:
        assert record.latency_ms >= pause * 1e3
        assert record.latency_ms >= record.trace_ms + record.lower_ms + record.compile_ms
    (stats,) = [s for s in recorder.stats.values() if s.name == "slow_to_trace"]
    assert stats.hits == 1
    assert standin._dispatched_at == {}


def test_a_call_jaxs_cpp_refuses_is_filed_with_no_time_and_leaves_the_next_counted():
    # A donated argument used again: up to 0.10 JAX's C++ refuses it before any Python
    # dispatch (ValueError), an error of no time of its own (0 ms, it takes microseconds);
    # from 0.11 JAX's Python dispatch refuses it (RuntimeError), and the watch times that
    # call as any other it dispatches. Either way the next calls are counted as before.
    # What JAX itself raises differs by backend too (a TPU refuses the buffer at execution:
    # "Donation requested for invalid buffer"), so it is learnt first, without the watch.
    in_cpp = _jax.VERSION < (0, 11, 0)
    plain = jax.jit(lambda x: x + 1, donate_argnums=0)
    x = jnp.ones(3)
    plain(x)
    if not x.is_deleted():
        return  # this backend kept it: nothing to refuse
    with pytest.raises(Exception) as refused:
        plain(x)
    jax.clear_caches()
    with watch() as recorder:
        f = jax.jit(lambda x: x + 1, donate_argnums=0)
        x = jnp.ones(3)
        y = f(x)  # compile; x is donated
        with pytest.raises(refused.type) as watched:
            f(x)
        f(y)  # a hit
    assert str(watched.value) == str(refused.value)  # the program sees what JAX raises
    records = [c.record for c in recorder.calls]
    assert [r.kind for r in records] == [CallKind.COMPILE, CallKind.ERROR]
    assert records[1].trace_ms == 0.0 and records[1].compile_ms == 0.0  # nothing compiled
    if in_cpp:
        assert records[1].latency_ms == 0.0
    else:
        assert records[1].latency_ms > 0.0
    (stats,) = [s for s in recorder.stats.values() if s.compiles]
    assert stats.hits == 1
    assert standin._dispatched_at == {}
