"""A probed call's runtime output and runtime errors are the call's, on every backend.

On a TPU (a GPU, a CPU mesh) JAX runs host callbacks — ``jax.debug.print``, ``debug.callback``,
``pure_callback`` — on its runtime's threads, not the caller's, and a call with nothing to
wait on returns before they have run. These tests run on the default backend's devices
(:func:`spread`): in the accelerator check on the chip, on CPU in this process (one device:
callbacks run inline, on the calling thread) and on a mesh of two CPU devices, where the
runtime runs them on its own threads after the call returns
(``tests/probe/test_runtime_output_on_a_mesh.py`` runs this file there).
"""

from __future__ import annotations

import threading
import time

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import io_callback
from jax.sharding import AxisType, NamedSharding, PartitionSpec

from jitlab import CallKind, Probe
from jitlab.probe import probe as probe_module

# Long enough that a call which does not wait for its callbacks has returned (and closed its
# window) before the line is written: the probe's own wait is what makes it the call's.
LATE_S = 0.1


def spread(value: float, size: int = 4) -> jax.Array:
    """``size`` copies of ``value`` per device, sharded over every device of the default
    backend (one device: placed on it)."""
    devices = jax.devices()
    x = jnp.full(size * len(devices), value, jnp.float32)
    if len(devices) < 2:
        return jax.device_put(x, devices[0])
    mesh = jax.make_mesh((len(devices),), ("x",), axis_types=(AxisType.Auto,))
    return jax.device_put(x, NamedSharding(mesh, PartitionSpec("x")))


def _refused_by_jax(function, x) -> Exception | None:
    """What plain ``jax.jit`` raises compiling and running ``function`` on ``x``, if anything."""
    try:
        jax.jit(function)(x)
        jax.effects_barrier()
    except Exception as error:  # JAX's own refusal, whatever its class on this version
        return error
    return None


def lines(record) -> list[tuple[str, str]]:
    return [(line.when, line.text) for line in record.stdout]


def test_every_runtime_line_of_five_calls_is_its_calls():
    # The side-effects lesson's fix: one trace-time line, then one runtime line a call.
    def step(x):
        print("tracing step")
        jax.debug.print("step sees {}", x.sum())
        return x * 2

    probe = Probe(step)
    for value in (1.0, 2.0, 3.0, 4.0, 5.0):
        probe(spread(value))
    size = spread(0.0).size
    assert [r.kind for r in probe.records] == [CallKind.COMPILE] + [CallKind.CACHE_HIT] * 4
    assert lines(probe.records[0]) == [
        ("trace", "tracing step"),
        ("runtime", f"step sees {size:.1f}"),
    ]
    for value, record in zip((2.0, 3.0, 4.0, 5.0), probe.records[1:], strict=True):
        assert lines(record) == [("runtime", f"step sees {value * size:.1f}")]


def test_a_line_printed_while_the_probe_waits_for_the_result_is_the_calls():
    # The TPU's case: the runtime prints on its own thread before the result is ready, after
    # the probe has seen the call was a hit. The hit is filed with its line.
    def late(total):
        time.sleep(LATE_S)
        print(f"late {total}")

    def step(x):
        jax.debug.callback(late, x.sum())
        return x * 2

    probe = Probe(step)
    for value in (1.0, 2.0, 3.0):
        probe(spread(value))
    size = spread(0.0).size
    assert [r.kind for r in probe.records] == [CallKind.COMPILE] + [CallKind.CACHE_HIT] * 2
    for value, record in zip((1.0, 2.0, 3.0), probe.records, strict=True):
        assert lines(record) == [("runtime", f"late {value * size}")]
    (card,) = probe.ledger.cards
    assert card.hits == 2 and [r.index for r in probe.records] == [0, 1, 2]


def test_a_late_callback_line_is_the_calls_when_the_probe_waits():
    # A function called for its effects alone returns nothing to wait on: its callback may
    # print after the call returned. The probe waits for the call's effects, not only its
    # result.
    def late(total):
        time.sleep(LATE_S)
        print(f"late {total}")

    def log(x):
        jax.debug.callback(late, x.sum())

    probe = Probe(log)
    for value in (1.0, 2.0, 3.0):
        probe(spread(value))
    size = spread(0.0).size
    assert [r.kind for r in probe.records] == [CallKind.COMPILE] + [CallKind.CACHE_HIT] * 2
    for value, record in zip((1.0, 2.0, 3.0), probe.records, strict=True):
        assert lines(record) == [("runtime", f"late {value * size}")]


def test_a_callback_error_on_a_hit_with_nothing_to_wait_on_is_the_calls_error():
    # The executable is cached; its callback fails while it runs, after the call returned
    # (nothing to wait on): the error is still this call's, not a hit's, nor a later call's.
    def check(total):
        if total < 0:
            raise ValueError("negative portion")

    def checked(x):
        jax.debug.callback(check, x.sum())

    probe = Probe(checked, keep_going=True)
    for sign in (1.0, 1.0, -1.0, 1.0):
        probe(spread(sign))
    assert [r.kind for r in probe.records] == [
        CallKind.COMPILE,
        CallKind.CACHE_HIT,
        CallKind.ERROR,
        CallKind.CACHE_HIT,
    ]
    assert probe.records[2].error is not None
    (card,) = probe.ledger.cards
    assert card.hits == 2 and probe.summary().cache_hits == 2


def test_a_failed_hit_returns_what_any_failed_call_returns():
    # A callback with a result fails on a hit. Where the runtime reports it with the result
    # (a TPU: the array comes back and its use raises JaxRuntimeError) the probe's own wait
    # meets it: with keep_going the call returns None, as a call failing at dispatch does,
    # never an array that raises when used; without it, the error is raised from the call.
    def check(total):
        if total < 0:
            raise ValueError("negative portion")
        return total

    def checked(x):
        return jax.pure_callback(check, jax.ShapeDtypeStruct((), x.dtype), x.sum())

    kept = Probe(checked, keep_going=True)
    assert [kept(spread(sign)) is None for sign in (1.0, 1.0, -1.0)] == [False, False, True]
    assert [r.kind for r in kept.records][-1] is CallKind.ERROR
    raising = Probe(checked)
    raising(spread(1.0))
    raising(spread(1.0))
    with pytest.raises(Exception, match="negative portion"):
        raising(spread(-1.0))
    assert raising.records[-1].kind is CallKind.ERROR


def test_a_line_from_another_python_thread_is_never_the_calls(capsys):
    # While the call's callback runs (its window open), another of the program's threads
    # prints through JAX's own callback code (an eager jax.debug.print): the program's line,
    # not the call's.
    running, printed = threading.Event(), threading.Event()

    def hold(total):
        running.set()
        printed.wait(timeout=30)

    def step(x):
        jax.debug.callback(hold, x.sum())
        return x * 2

    def other():
        running.wait(timeout=30)
        jax.debug.print("the program's other thread")
        printed.set()

    probe = Probe(step)
    thread = threading.Thread(target=other)
    thread.start()
    probe(spread(1.0))
    thread.join()
    assert probe.records[0].kind is CallKind.COMPILE
    assert lines(probe.records[0]) == []
    assert "the program's other thread" in capsys.readouterr().out


def test_an_earlier_calls_late_line_is_not_the_next_probed_calls():
    # The program called an unprobed function and did not wait for it; its callback prints
    # late. The next probed call waits for those earlier effects before its window opens.
    def late(total):
        time.sleep(LATE_S)
        print(f"earlier {total}")

    @jax.jit
    def log(x):
        jax.debug.callback(late, x.sum())

    def step(x):
        jax.debug.print("step {}", x.sum())
        return x * 2

    probe = Probe(step)
    probe(spread(1.0))  # compiled before the test proper
    log(spread(1.0))
    jax.effects_barrier()  # compiled and run: its next call is a hit
    log(spread(2.0))  # not waited for
    probe(spread(3.0))
    size = spread(0.0).size
    assert lines(probe.records[-1]) == [("runtime", f"step {3.0 * size:.1f}")]


def test_only_calls_jax_runs_in_python_wait_for_effects(monkeypatch):
    # A plain hit (C++'s fast path) can have no effects: it waits for its result alone.
    waits: list[int] = []
    wait = probe_module._wait_for_effects

    def counting(collector):
        waits.append(1)
        wait(collector)

    monkeypatch.setattr(probe_module, "_wait_for_effects", counting)
    plain, talker = Probe(lambda x: x + 1), Probe(lambda x: jax.debug.print("{}", x.sum()))
    plain(spread(1.0))  # the compile: JAX dispatched it in Python
    talker(spread(1.0))
    assert len(waits) == 2
    for _ in range(20):
        plain(spread(1.0))
    assert len(waits) == 2 and plain.ledger.cards[0].hits == 20
    talker(spread(1.0))  # a hit with a host callback reaches Python: it waits
    assert len(waits) == 3 and talker.records[-1].kind is CallKind.CACHE_HIT


def test_a_probe_that_does_not_wait_never_takes_another_calls_line(capsys):
    # block=False (as a watched program's calls): the record holds what was printed before
    # the call returned (on one CPU device, the callback's line; where the runtime runs it
    # later, none). A late line goes to the program's stream, never to a later call.
    def late(total):
        time.sleep(LATE_S)
        print(f"late {total}")

    def log(x):
        jax.debug.callback(late, x.sum())

    probe = Probe(log, block=False)
    values = (1.0, 2.0, 3.0)
    for value in values:
        probe(spread(value))
    jax.effects_barrier()
    size = spread(0.0).size
    out = capsys.readouterr().out.splitlines()
    for value, record in zip(values, probe.records, strict=True):
        mine = f"late {value * size}"
        assert lines(record) in ([], [("runtime", mine)])
        assert (mine in out) != bool(record.stdout)  # in the record or the stream, once


@pytest.mark.parametrize("ordered", [False, True])
def test_ordered_and_unordered_effects_are_waited_for_alike(ordered, capsys):
    def late(total):
        time.sleep(LATE_S)
        print(f"late {total}")
        return np.zeros((), np.float32)

    def log(x):
        io_callback(late, jax.ShapeDtypeStruct((), jnp.float32), x.sum(), ordered=ordered)

    refused = _refused_by_jax(log, spread(0.0))
    if refused is not None:
        # JAX itself cannot compile this program here (JAX 0.7 on a mesh: "side-effect HLO
        # cannot have a replicated sharding"): the probed call raises what JAX raised.
        probe = Probe(log)
        with pytest.raises(type(refused)):
            probe(spread(1.0))
        assert probe.records[-1].kind is CallKind.ERROR
        return
    capsys.readouterr()  # JAX's own call's line
    probe = Probe(log)
    for value in (1.0, 2.0):
        probe(spread(value))
    size = spread(0.0).size
    for value, record in zip((1.0, 2.0), probe.records, strict=True):
        assert lines(record) == [("runtime", f"late {value * size}")]
