"""Leave no trace: after a watch, a budget, the pytest fixture or a Probe, the process is as
the user had it — and while they run, what jitlab stands in with behaves like the original."""

from __future__ import annotations

import io
import logging
import subprocess
import sys
import threading

import jax
import jax.numpy as jnp
import pytest

from jitlab.probe import monitor
from jitlab.probe.probe import Probe
from jitlab.watching.budget import budget
from jitlab.watching.recorder import watch
from jitlab.watching.standin import WatchedFunction

pytestmark = pytest.mark.slow


def test_jax_jit_is_the_same_object_after_watch_budget_and_probe(tmp_path):
    from jitlab.probe import _jax

    original = jax.jit
    disable_hooks = (
        _jax.DISABLE_JIT._update_thread_local_hook,
        _jax.DISABLE_JIT._update_global_hook,
    )
    with watch(tmp_path / "a.jsonl"):
        assert jax.jit is not original  # functions jitted inside are probed
        assert monitor.ON_DISPATCH[0] is not None  # the watch's step in the dispatch hook
    assert jax.jit is original
    # The watch's hooks go with it (monitor's own dispatch hook stays: it only observes).
    assert monitor.ON_DISPATCH[0] is None
    assert (
        _jax.DISABLE_JIT._update_thread_local_hook,
        _jax.DISABLE_JIT._update_global_hook,
    ) == disable_hooks
    with budget(5):
        pass
    assert jax.jit is original
    Probe(jax.jit(lambda x: x + 1))(jnp.ones(3))
    assert jax.jit is original


def test_forty_budget_blocks_leave_no_stacked_wrappers():
    original = jax.jit

    def double(x):
        return x * 2

    for _ in range(40):
        with budget(10):
            f = jax.jit(double)  # one function: JAX shares its cache, one compile in all
            f(jnp.ones(2))
    assert jax.jit is original
    assert not isinstance(jax.jit(lambda x: x), WatchedFunction)


def test_a_thousand_blocks_and_nested_blocks_unwind_in_order(tmp_path):
    original = jax.jit
    for _ in range(1000):
        with budget(1):
            pass
    assert jax.jit is original
    with watch(tmp_path / "outer.jsonl") as outer:
        f = jax.jit(lambda x: x - 1)
        f(jnp.ones(4))
        with budget(1) as inner:
            f(jnp.ones(5))  # a recompile both blocks see
        assert len(inner.compiles) == 1
        f(jnp.ones(4))
    assert jax.jit is original
    assert [c.record.kind.value for c in outer.compiles] == ["compile", "recompile"]
    stats = [s for s in outer.stats.values() if s.compiles]
    assert stats[0].hits == 1


def test_blocks_in_two_threads_compose(tmp_path):
    original = jax.jit
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)

    def block(n: int) -> None:
        try:
            for i in range(20):
                with budget(100):
                    barrier.wait(timeout=30)
                    jax.jit(lambda x: x + n)(jnp.ones(i + 1))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=block, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert jax.jit is original


def test_compile_budget_fixture_leaves_jax_jit(compile_budget):
    original = jax.jit
    with compile_budget(3):
        jax.jit(lambda x: x / 2)(jnp.ones(3))
    assert jax.jit is original


def test_sys_stdout_is_the_users_object_and_a_real_stream_meanwhile(tmp_path, capfd):
    mine = sys.stdout
    seen = {}

    def traced(x):
        # Runs while tracing, inside the probed call: whatever stands in must be a stream.
        out = sys.stdout
        seen["encoding"] = out.encoding
        seen["fileno"] = out.fileno()
        seen["buffer"] = out.buffer is not None
        out.reconfigure(line_buffering=True)
        subprocess.run([sys.executable, "-c", "print('from a child')"], stdout=out, check=True)
        print("traced once")
        return x * 3

    with watch(tmp_path / "w.jsonl"):
        assert sys.stdout is mine  # no stand-in for the whole block
        f = jax.jit(traced)
        f(jnp.ones(2))
        assert sys.stdout is mine
    probe = Probe(jax.jit(traced))
    probe(jnp.ones(3))
    assert sys.stdout is mine
    assert seen["fileno"] == mine.fileno()
    assert seen["encoding"] == mine.encoding
    assert "from a child" in capfd.readouterr().out
    assert probe.records[0].stdout[0].text == "traced once"


def test_explain_cache_misses_and_log_compiles_keep_the_users_values(tmp_path):
    assert jax.config.jax_explain_cache_misses is False
    log_compiles = jax.config.jax_log_compiles
    with watch(tmp_path / "w.jsonl"):
        jax.jit(lambda x: x + 2)(jnp.ones(2))
    Probe(jax.jit(lambda x: x + 3))(jnp.ones(2))
    assert jax.config.jax_explain_cache_misses is False
    assert jax.config.jax_log_compiles == log_compiles
    jax.config.update("jax_explain_cache_misses", True)
    try:
        with watch(tmp_path / "w2.jsonl"):
            pass
        assert jax.config.jax_explain_cache_misses is True
    finally:
        jax.config.update("jax_explain_cache_misses", False)


@pytest.fixture
def root_warnings():
    """What a program that configured logging (a handler on the root logger) gets to see."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setLevel(logging.WARNING)
    logging.getLogger().addHandler(handler)
    yield stream
    logging.getLogger().removeHandler(handler)


def test_a_program_with_logging_sees_no_cache_miss_warnings_it_did_not_ask_for(
    tmp_path, root_warnings
):
    with watch(tmp_path / "w.jsonl") as recorder:
        f = jax.jit(lambda x: x * 5)
        f(jnp.ones(2))
        f(jnp.ones(3))  # a recompile JAX explains — to jitlab only
    probe = Probe(jax.jit(lambda x: x * 6))
    probe(jnp.ones(2))
    probe(jnp.ones(3))
    assert "CACHE MISS" not in root_warnings.getvalue()
    # ...yet jitlab got JAX's explanation for both.
    assert recorder.compiles[1].record.reason.jax_explanation
    assert probe.records[1].reason.jax_explanation


def test_when_the_user_asked_for_explanations_they_see_them_at_their_own_line(root_warnings):
    probe = Probe(jax.jit(lambda x: x * 7))
    with jax.explain_cache_misses(True):
        probe(jnp.ones(2))
        probe(jnp.ones(3))  # the miss is at this line of this file
    text = root_warnings.getvalue()
    assert "TRACING CACHE MISS" in text
    assert "test_no_trace.py" in text.split("TRACING CACHE MISS at", 1)[1].splitlines()[0]
    assert "jitlab/probe" not in text and "jitlab/watching" not in text
    assert probe.records[1].reason.jax_explanation


def test_nothing_is_routed_after_a_probe_raises():
    def broken(x):
        raise ValueError("no")

    probe = Probe(jax.jit(broken), keep_going=True)
    mine = sys.stdout
    probe(jnp.ones(2))
    assert sys.stdout is mine
    assert monitor.current() is None
