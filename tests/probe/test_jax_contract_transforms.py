"""Contract tests for the private JAX behaviours the probe reads inside transformations
(jitlab/probe/_jax.py: tracer_layers, TRACE_STATE, in_backward_pass, compiled_after_call,
compiling_avals)."""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp

from jitlab.probe import _jax


def test_tracer_layers_name_each_transformation_and_the_value_under_them():
    seen = []

    def f(x):
        seen.append(_jax.tracer_layers(x))
        return x

    batch = jnp.ones((2, 3))
    jax.vmap(jax.grad(lambda x: f(x).sum()))(batch)
    layers, base = seen[-1]
    # grad linearizes directly from 0.7 (jax_use_direct_linearize on); 0.6 runs jvp with the
    # tangent staged out, which jitlab names as grad's linearize too (a plain jvp stays jvp).
    assert layers == ("linearize", "vmap")
    assert base.shape == (2, 3) and not isinstance(base, _jax.tracer_class())
    jax.jvp(f, (1.0,), (1.0,))
    assert seen[-1][0] == ("jvp",)
    jax.lax.scan(lambda c, x: (c, f(x)), 0.0, jnp.ones(3))
    layers, base = seen[-1]
    assert layers == ("trace",) and isinstance(base, _jax.tracer_class())
    assert _jax.tracer_layers(jnp.ones(2))[0] == ()


def test_trace_state_is_the_eval_trace_only_outside_transformations():
    inside = []
    assert _jax.TRACE_STATE.value is _jax.EVAL_TRACE
    jax.vmap(lambda x: inside.append(_jax.TRACE_STATE.value is _jax.EVAL_TRACE) or x)(jnp.ones(2))
    assert inside == [False]


def test_the_backward_pass_compile_is_seen_with_its_source_and_input_avals():
    f = jax.jit(lambda x: jnp.sum(jnp.sin(x)))
    seen = []

    def listener(event, duration, **kwargs):
        if event == _jax.COMPILE_EVENT and kwargs.get("fun_name") == "jit(<lambda>)":
            frame = sys._getframe(1)
            seen.append((_jax.in_backward_pass(frame), _jax.compiling_avals(frame)))

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        x = jnp.ones(3)
        f(x)
        jax.grad(f)(x)
    finally:
        _jax.unregister_duration_listener(listener)
    assert [backward for backward, _ in seen] == [False, False, True]
    source, avals = seen[-1][1]
    assert source.startswith("<lambda> at ") and source.rpartition(":")[0].endswith(__file__)
    assert [tuple(a.shape) for a in avals] == [(3,), ()]


def test_checkpoints_eager_run_compiles_the_function_it_traced_after_the_call():
    # jax.checkpoint(f)(x) traces f (the call is staged), then runs that trace eagerly
    # (ad_checkpoint.remat_impl), which compiles jit(f) outside the call.
    f = jax.jit(lambda x: jnp.sum(jnp.cos(x)))
    seen = []

    def listener(event, duration, **kwargs):
        if event == _jax.COMPILE_EVENT and kwargs.get("fun_name") == "jit(<lambda>)":
            frame = sys._getframe(1)
            seen.append((_jax.compiled_after_call(frame), _jax.compiling_avals(frame)))

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        x = jnp.ones(2)
        f(x)
        jax.checkpoint(f)(jnp.ones(3))
    finally:
        _jax.unregister_duration_listener(listener)
    assert [path for path, _ in seen] == [None, "remat"]
    source, avals = seen[-1][1]
    assert source.startswith("<lambda> at ") and source.rpartition(":")[0].endswith(__file__)
    assert [tuple(a.shape) for a in avals] == [(3,)]
