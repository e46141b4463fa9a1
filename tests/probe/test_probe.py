"""The probe against real JAX: every kind, every reason, exact attribution."""

from __future__ import annotations

import functools
import gc
import sys
import threading
import weakref

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitlab import CallKind, Probe
from jitlab.records.change_words import reason_words
from jitlab.records.changes import ChangeKind

# One listener for the whole test session that sees every event (the probe must never
# clear it): used to cross-check what the probe attributed to its function.
_seen: list[tuple[str, float, str | None, int]] = []
_recording = threading.Event()


def _spy(event: str, duration: float, **kwargs: object) -> None:
    if _recording.is_set():
        _seen.append((event, duration * 1e3, kwargs.get("fun_name"), threading.get_ident()))


jax.monitoring.register_event_duration_secs_listener(_spy)


def kinds(probe: Probe) -> list[str]:
    return [r.kind.value for r in probe.records]


def test_seed_sequence_compiles_hits_and_recompiles():
    @jax.jit
    def total(x):
        return jnp.sum(x)

    probe = Probe(total)
    for n in (8, 8, 16, 8, 32, 8):
        assert float(probe(jnp.ones(n))) == n
    assert kinds(probe) == [
        "compile",
        "cache_hit",
        "recompile",
        "cache_hit",
        "recompile",
        "cache_hit",
    ]
    # JAX's own cache agrees: three executables.
    assert total._cache_size() == 3
    assert [c.signature.leaves[0].shape for c in probe.ledger.cards] == [(8,), (16,), (32,)]
    compile_, hit, recompile = probe.records[0], probe.records[1], probe.records[2]
    assert compile_.trace_ms > 0 and compile_.lower_ms > 0 and compile_.compile_ms > 0
    assert hit.trace_ms == hit.lower_ms == hit.compile_ms == 0
    assert hit.card == 0 and probe.records[5].card == 0
    assert "x: f32[16] ← f32[8]" in reason_words(recompile.reason)
    assert "f32[16]" in recompile.reason.jax_explanation  # JAX's raw words, kept as they are
    assert reason_words(probe.records[4].reason) in (
        ("x: f32[32] ← f32[16]",),
        ("x: f32[32] ← f32[8]",),
    )
    ledger = probe.ledger
    assert ledger.counts[CallKind.RECOMPILE] == 2 and ledger.counts[CallKind.CACHE_HIT] == 3
    assert ledger.cards[0].hits == 3
    assert ledger.time_lost_ms == pytest.approx(
        sum(r.trace_ms + r.lower_ms + r.compile_ms for r in probe.records)
    )


def test_weak_type_change_recompiles_and_is_named():
    probe = Probe(lambda y: y * 2)
    probe(1.0)
    probe(jnp.float32(1.0))
    assert kinds(probe) == ["compile", "recompile"]
    (change,) = reason_words(probe.records[1].reason)
    assert change.startswith("weak type of y changed")
    assert probe.records[0].signature.leaves[0].weak_type is True


def test_dtype_change_is_named():
    probe = Probe(lambda x: x + 1)
    probe(jnp.ones(4, jnp.float32))
    probe(jnp.ones(4, jnp.int32))
    assert kinds(probe) == ["compile", "recompile"]
    assert reason_words(probe.records[1].reason) == ("x: i32[4] ← f32[4]",)


def test_static_argument_value_change():
    probe = Probe(lambda x, n: jnp.repeat(x, n), static_argnames=("n",))
    out = probe(jnp.array([1, 2]), n=3)
    assert out.tolist() == [1, 1, 1, 2, 2, 2]
    probe(jnp.array([1, 2]), n=2)
    probe(jnp.array([1, 2]), n=3)
    assert kinds(probe) == ["compile", "recompile", "cache_hit"]
    assert reason_words(probe.records[1].reason) == ("static n: 2 ← 3",)
    assert probe.records[0].signature.statics == (("n", "3"),)
    assert probe.records[2].card == 0
    assert probe.function._cache_size() == 2


def test_static_argnums_of_an_already_jitted_function_are_read():
    jitted = jax.jit(lambda x, n: x * n, static_argnums=(1,))
    probe = Probe(jitted)
    probe(jnp.ones(2), 2)
    probe(jnp.ones(2), 5)
    assert reason_words(probe.records[1].reason) == ("static n: 5 ← 2",)


def test_new_function_object_each_call():
    probe = Probe(lambda x: x * 2)
    probe(jnp.ones(3))
    for factor in (2, 2):
        probe.swap(functools.partial(lambda x, k: x * k, k=factor))
        probe(jnp.ones(3))
    assert kinds(probe) == ["compile", "recompile", "recompile"]
    assert "new function object" in reason_words(probe.records[1].reason)
    assert "never seen function" in probe.records[2].reason.jax_explanation
    assert len(probe.ledger.cards) == 3


def test_swap_files_under_the_function_object_called_now():
    """The probe's filing is handed each function object it calls: the keys and signatures
    of its records carry that object's generation, new on a new object, kept on the same."""
    probe = Probe(lambda x: x * 2)
    probe(jnp.ones(3))
    assert probe.generation == 0 and probe.last.signature.function == 0
    probe.swap(lambda x: x * 3)  # a new function object
    probe(jnp.ones(3))
    assert probe.generation == 1 and probe.last.signature.function == 1
    probe.swap(probe.function)  # the same one again: JAX's cache is shared
    probe(jnp.ones(4))
    assert probe.generation == 1 and probe.last.signature.function == 1
    assert kinds(probe) == ["compile", "recompile", "recompile"]
    assert reason_words(probe.records[2].reason) == ("x: f32[4] ← f32[3]",)


def test_pytree_structure_change_is_named():
    probe = Probe(lambda d: sum(d.values()))
    probe({"a": jnp.ones(2)})
    probe({"a": jnp.ones(2), "b": jnp.ones(2)})
    assert kinds(probe) == ["compile", "recompile"]
    assert any("d['b']" in change for change in reason_words(probe.records[1].reason))


def test_error_is_recorded_and_reraised():
    probe = Probe(lambda x, n: jnp.repeat(x, n))  # n traced: repeat needs it static
    with pytest.raises(jax.errors.ConcretizationTypeError):
        probe(jnp.array([1, 2]), 3)
    (record,) = probe.records
    assert record.kind is CallKind.ERROR
    assert record.error.type == "ConcretizationTypeError"
    assert isinstance(record.error.exception, jax.errors.ConcretizationTypeError)
    assert record.lower_ms == record.compile_ms == 0  # failed while tracing


def test_error_kept_when_asked_and_the_function_still_works():
    probe = Probe(lambda x: jnp.dot(x, x), keep_going=True)
    assert probe(jnp.ones((2, 3))) is None
    assert probe.last.kind is CallKind.ERROR and probe.last.error.type == "TypeError"
    assert float(probe(jnp.ones(3))) == 3.0
    assert kinds(probe) == ["error", "compile"]


def test_a_runtime_error_on_a_hit_is_an_error_not_a_hit():
    # The executable is cached; its host callback fails while it runs.
    def check(v):
        if v < 0:
            raise ValueError("negative portion")
        return v

    def f(x):
        return jax.pure_callback(check, jax.ShapeDtypeStruct((), x.dtype), x.sum())

    probe = Probe(f, keep_going=True)
    probe(jnp.ones(3))
    probe(jnp.ones(3))
    assert probe(-jnp.ones(3)) is None
    assert probe.last.kind is CallKind.ERROR
    probe(jnp.ones(3))
    assert kinds(probe) == ["compile", "cache_hit", "error", "cache_hit"]
    assert probe.summary().cache_hits == 2
    (card,) = probe.ledger.cards
    assert card.hits == 2


@jax.tree_util.register_pytree_node_class
class _Checked:
    """A result that fails when waited for, as an asynchronous device error does (on CPU
    JAX raises those at dispatch, so a user's result type stands in for the device)."""

    def __init__(self, value):
        self.value = value

    def tree_flatten(self):
        return (self.value,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)

    def block_until_ready(self):
        if float(self.value.block_until_ready()) < 0:
            raise FloatingPointError("negative portion")
        return self


def test_a_hit_that_fails_while_waited_for_is_an_error_and_counted_once():
    # The probe files a steady hit before it waits for the device: a failure while
    # waiting must turn that hit into the error it is, not count both.
    probe = Probe(jax.jit(lambda x: _Checked(x.sum())), keep_going=True)
    for sign in (1, 1, -1, 1):
        probe(sign * jnp.ones(3))
    assert kinds(probe) == ["compile", "cache_hit", "error", "cache_hit"]
    assert [r.index for r in probe.records] == [0, 1, 2, 3]
    assert probe.records[2].error.type == "FloatingPointError"
    counts = probe.ledger.counts
    assert counts[CallKind.CACHE_HIT] == 2 and counts[CallKind.ERROR] == 1
    assert probe.summary().calls == 4
    (card,) = probe.ledger.cards
    assert card.hits == 2


def test_trace_time_and_runtime_output_are_told_apart():
    def f(x):
        print("tracing f")
        jax.debug.print("running with {}", x[0])
        return x * 2

    probe = Probe(f)
    for value in (1.0, 2.0, 3.0):
        probe(jnp.full(3, value))
    first, second, third = probe.records
    assert [(line.when, line.text) for line in first.stdout] == [
        ("trace", "tracing f"),
        ("runtime", "running with 1.0"),
    ]
    assert [(line.when, line.text) for line in third.stdout] == [("runtime", "running with 3.0")]
    assert second.kind is CallKind.CACHE_HIT


def test_stdout_is_routed_only_for_calls_jax_dispatches_in_python(monkeypatch):
    # A cache hit runs in C++ alone and prints nothing: the probe leaves sys.stdout as it is.
    # A miss, a call with a host callback, or one under disable_jit is routed and captured.
    from jitlab.probe import monitor

    def traced(x):
        print("tracing")
        return x + 1

    def calls_back(x):
        jax.debug.print("value {}", x[0])
        return x * 2

    probe, talker = Probe(traced), Probe(calls_back)
    routes: list[object] = []
    route = monitor._route_stdout

    def counting(collector):  # the routes of these two probes' calls
        if collector.source is not None and collector.source() in (probe, talker):
            routes.append(collector)
        route(collector)

    monkeypatch.setattr(monitor, "_route_stdout", counting)
    mine = sys.stdout
    probe(jnp.ones(3))
    assert len(routes) == 1 and probe.records[0].stdout[0].text == "tracing"
    for _ in range(50):
        probe(jnp.ones(3))
    assert len(routes) == 1  # fifty hits: never routed
    assert probe.ledger.cards[0].hits == 50 and sys.stdout is mine
    probe(jnp.ones(4))  # a recompile: routed again
    assert len(routes) == 2 and probe.records[-1].stdout[0].text == "tracing"
    with jax.disable_jit():
        probe(jnp.ones(4))
    assert len(routes) == 3 and probe.records[-1].stdout[0].text == "tracing"
    for value in (1.0, 2.0, 3.0):
        talker(jnp.full(2, value))
    assert len(routes) == 6  # its hits reach Python: the callback's line is the call's
    assert talker.records[-1].kind is CallKind.CACHE_HIT
    assert [line.text for line in talker.records[-1].stdout] == ["value 3.0"]
    assert sys.stdout is mine


def test_other_functions_compiling_inside_the_call_are_not_attributed():
    @jax.jit
    def inner_user(x):
        # Runs eagerly while f is traced, so it compiles its own kernels inside our call.
        with jax.ensure_compile_time_eval():
            scale = jnp.ones(7).sum()
        return x * scale

    probe = Probe(inner_user)
    _seen.clear()
    _recording.set()
    try:
        probe(jnp.ones(3))
    finally:
        _recording.clear()
    record = probe.records[0]
    ours = {e: ms for e, ms, name, _ in _seen if name in ("inner_user", "jit(inner_user)")}
    others = [name for _, _, name, _ in _seen if name not in ("inner_user", "jit(inner_user)")]
    assert others, "the eager jnp.ones inside the trace should have compiled something"
    assert record.trace_ms == pytest.approx(ours["/jax/core/compile/jaxpr_trace_duration"])
    assert record.lower_ms == pytest.approx(ours["/jax/core/compile/jaxpr_to_mlir_module_duration"])
    assert record.compile_ms == pytest.approx(ours["/jax/core/compile/backend_compile_duration"])


def test_other_threads_are_not_attributed():
    """A function with the same name compiling on another thread never reaches our record."""

    def same_name(x):
        return jnp.sin(x) * 3

    other = jax.jit(same_name)
    ready, stop = threading.Event(), threading.Event()

    def hammer():
        n = 1
        ready.set()
        while not stop.is_set():
            other(np.ones(n, np.float32)).block_until_ready()  # a new shape: compiles
            n += 1

    worker = threading.Thread(target=hammer)
    worker.start()
    ready.wait()
    probe = Probe(lambda x: x + 1, name="mine")
    try:
        for n in (5, 5, 6):
            probe(jnp.ones(n))
    finally:
        stop.set()
        worker.join()
    assert kinds(probe) == ["compile", "cache_hit", "recompile"]


def test_listeners_are_registered_once_and_others_survive():
    Probe(lambda x: x)
    Probe(lambda x: x)
    from jax._src import monitoring as jax_monitoring

    listeners = jax_monitoring.get_event_duration_listeners()
    assert _spy in listeners
    from jitlab.probe import monitor

    assert listeners.count(monitor._on_duration) == 1


def test_jitlab_hears_jax_through_one_listener_of_each_kind():
    # One door: the backward pass's listener (and the notebook's live view) are the
    # monitor's listeners, so clearing JAX's lists and reviving the monitor revives them all.
    from jitlab.probe import _jax, monitor

    probe = Probe(lambda x: jnp.sum(x**3))
    jax.grad(probe)(jnp.ones(2))  # follows the backward pass: listens to its compiles

    def jitlabs(listeners: list) -> list:
        return [f for f in listeners if getattr(f, "__module__", "").startswith("jitlab")]

    assert jitlabs(_jax.duration_listeners()) == [monitor._on_duration]
    assert jitlabs(_jax.event_listeners()) == [monitor._on_event]
    # ... and heard through the monitor, the backward pass's compile is filed as its own
    assert [c.path for r in probe.records for c in r.reason.items] == ["linearize", "transpose"]


def test_clear_cache_empties_the_card_holder():
    probe = Probe(lambda x: x * 3)
    probe(jnp.ones(2))
    probe.clear_cache()
    assert probe.ledger.cards == []
    probe(jnp.ones(2))
    assert kinds(probe) == ["compile", "recompile"]
    assert probe.records[1].reason.kinds() == (ChangeKind.CACHE_CLEARED,)


def test_result_is_returned_ready():
    probe = Probe(lambda x: (x * 2, {"s": x.sum()}))
    out = probe(jnp.arange(3.0))
    assert out[0].tolist() == [0.0, 2.0, 4.0] and float(out[1]["s"]) == 3.0


def test_already_jitted_function_refuses_jit_options():
    with pytest.raises(TypeError, match="already jitted"):
        Probe(jax.jit(lambda x: x), static_argnums=0)


def test_one_probe_called_from_two_threads_counts_every_call():
    probe = Probe(lambda x: jnp.cos(x) + 1)
    probe(jnp.ones(4))  # compile once up front

    def hammer(n: int) -> None:
        for _ in range(200):
            probe(jnp.ones(n))

    threads = [threading.Thread(target=hammer, args=(n,)) for n in (4, 4, 5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    counts = probe.ledger.counts
    assert sum(counts.values()) == 601 == len(probe.records)
    assert counts[CallKind.COMPILE] == 1 and counts[CallKind.RECOMPILE] == 1
    assert counts[CallKind.CACHE_HIT] == 599
    assert sorted(r.index for r in probe.records) == list(range(601))


def test_prints_from_another_thread_are_not_credited_to_the_call_in_flight():
    started, release = threading.Event(), threading.Event()

    def slow(x):
        started.set()
        release.wait(10)  # tracing is paused here while another thread prints
        return x + 1

    probe = Probe(slow)

    def chat() -> None:
        started.wait(10)
        print("gui says hi")
        release.set()

    chatter = threading.Thread(target=chat)
    chatter.start()
    probe(jnp.ones(2))
    chatter.join()
    assert probe.records[0].stdout == ()


def test_adopting_a_record_made_elsewhere_files_it_and_its_card():
    donor = Probe(lambda x: x * 7, name="elsewhere")
    donor(jnp.ones(3))
    donor(jnp.ones(3))
    probe = Probe(lambda x: x * 7, name="here")
    compiled, hit = donor.records
    first = probe.adopt(compiled)
    again = probe.adopt(compiled)  # the same signature: still one card
    probe.adopt(hit)
    assert [r.index for r in probe.records] == [0, 1, 2]
    assert {r.function for r in probe.records} == {"here"}
    assert len(probe.ledger.cards) == 1 and first.card == again.card == 0
    assert probe.ledger.counts[CallKind.COMPILE] == 2
    assert probe.ledger.counts[CallKind.CACHE_HIT] == 1
    assert probe.ledger.compile_ms == pytest.approx(2 * compiled.compile_ms)


def test_a_writer_that_took_stdout_during_a_call_still_prints_after_it(capfd):
    # Another thread (the GUI's) may take sys.stdout while a probed call routes it, and write
    # after the call ended and the router stood down: its text reaches the real stdout.
    held: list[object] = []

    def traced(x):
        held.append(sys.stdout)  # the router, while this compile is routed
        return x + 1

    probe = Probe(traced)
    probe(jnp.ones(3))
    assert held and held[0] is not sys.stdout  # it was the router, now stood down
    print("after the call", file=held[0])
    held[0].flush()
    assert "after the call" in capfd.readouterr().out


def _summed(probe, x):
    return probe(x).sum()


def _freed_by_reference_counting(held: list) -> bool:
    """Is the one object in ``held`` gone the moment the list lets it go, the cyclic
    collector off (no cycle keeps it)?"""
    gone = weakref.ref(held[0])
    collecting = gc.isenabled()
    gc.disable()
    try:
        held.clear()
        return gone() is None
    finally:
        if collecting:
            gc.enable()


def test_a_probe_staged_under_checkpoint_is_freed_once_dropped():
    """Followed weakly for jax.checkpoint's eager run (filed there as its program under
    remat): a probe the program dropped is not kept for a later compile of its name."""
    probe = Probe(lambda x: x * 3)
    jax.checkpoint(probe)(jnp.ones(3))
    assert [r.kind for r in probe.records] == [CallKind.TRACED, CallKind.COMPILE]
    assert probe.records[-1].reason.kinds() == (ChangeKind.TRANSFORMED,)
    held = [probe]
    del probe
    assert _freed_by_reference_counting(held)


def test_a_probe_is_freed_by_reference_counting_alone():
    """No cycle keeps a probe alive (its filing and collectors hold it weakly): once the
    program drops it, grad's backward pass can no longer be filed as its call."""
    probe = Probe(lambda x: x * 2)
    probe(jnp.ones(3))
    probe(jnp.ones(4))
    jax.grad(functools.partial(_summed, probe))(jnp.ones(3))  # and its backward pass
    held = [probe]
    del probe
    assert _freed_by_reference_counting(held)
