"""The error anatomy: real JAX errors taken apart into stack, tracing context, abstract values."""

from __future__ import annotations

import dataclasses
import json
import os

import jax
import jax.numpy as jnp
import pytest

from jitlab.probe.anatomy import (
    Category,
    analyze,
    format_anatomy,
    is_user_frame,
    jaxpr_text,
    rerun_eagerly,
)
from jitlab.probe.probe import Probe

HERE = os.path.realpath(__file__)


def branchy(x):
    if x.sum() > 0:
        return x
    return -x


def repeat(x, n):
    return jnp.repeat(x, n)


def matmul(x, w):
    return x @ w


def scale(x, table):
    return x * table[0]


leaked = []


def leak(x):
    leaked.append(x)
    return x


def raised(fn, *args, **kwargs):
    with pytest.raises(Exception) as info:
        fn(*args, **kwargs)
    return info.value


def test_bool_conversion_three_layers():
    probe = Probe(branchy)
    x = jnp.ones((8, 32))
    exc = raised(probe, x)
    anatomy = analyze(exc, signature=probe.last.signature)
    assert anatomy.error_type == "TracerBoolConversionError"
    assert anatomy.category is Category.CONTROL_FLOW
    # Layer 1: only this file's frames, the innermost being the failing if.
    assert anatomy.stack and all(os.path.realpath(f.filename) == HERE for f in anatomy.stack)
    assert anatomy.failing_frame.function == "branchy"
    assert anatomy.failing_frame.line.startswith("if x.sum() > 0")
    # Layer 2: which function was traced, for which transform, which argument was needed.
    ctx = anatomy.context
    assert (ctx.phase, ctx.function, ctx.transform) == ("tracing", "branchy", "jit")
    assert ctx.arguments == ("x",)
    assert ctx.location.startswith("test_anatomy.py:")
    assert not ctx.inferred
    # Layer 3: the condition's abstract value and the argument's.
    texts = [str(v) for v in anatomy.abstract_values]
    assert "bool[]" in texts
    assert "x: float32[8,32]" in texts
    assert anatomy.docs_url and "TracerBoolConversionError" in anatomy.docs_url


def test_concretization_names_argument_and_operation():
    exc = raised(jax.jit(repeat), jnp.arange(3), 2)
    anatomy = analyze(exc)
    assert anatomy.category is Category.CONCRETE_VALUE
    assert anatomy.context.arguments == ("n",)
    assert anatomy.context.operation == "jnp.repeat"
    assert anatomy.failing_frame.function == "repeat"
    assert anatomy.abstract_values[0].text == "int32[]"
    assert anatomy.abstract_values[0].shape == ()


def test_shape_mismatch_shapes_and_inferred_context():
    exc = raised(jax.jit(matmul), jnp.ones((8, 32)), jnp.ones((16, 4)))
    anatomy = analyze(exc)
    assert anatomy.category is Category.SHAPE
    assert [v.shape for v in anatomy.abstract_values] == [(32,), (16,)]
    assert anatomy.context.function == "matmul" and anatomy.context.inferred
    assert anatomy.context.operation == "dot_general"
    assert anatomy.failing_frame.line == "return x @ w"


def test_unhashable_static_argument():
    probe = Probe(scale, static_argnames=("table",))
    exc = raised(probe, jnp.ones((8, 32)), table=jnp.ones(3))
    anatomy = analyze(exc, signature=probe.last.signature)
    assert anatomy.category is Category.STATIC_ARGUMENT
    assert anatomy.context.phase == "before tracing"
    assert anatomy.context.arguments == ("table",)
    assert anatomy.context.function is None


def test_leaked_tracer():
    jax.jit(leak)(jnp.ones(2))
    exc = raised(lambda: leaked[0] + 1)
    assert analyze(exc).category is Category.LEAKED_TRACER


def test_user_frames_exclude_jax_and_stdlib():
    assert not is_user_frame(jax.__file__)
    assert not is_user_frame(json.__file__)
    assert not is_user_frame("<frozen importlib._bootstrap>")
    assert is_user_frame(__file__)


def test_eager_rerun_points_at_the_plain_line():
    bad = rerun_eagerly(jax.jit(matmul), jnp.ones((8, 32)), jnp.ones((16, 4)))
    assert not bad.ok and bad.error_type == "TypeError"
    assert bad.frame.function == "matmul" and bad.frame.line == "return x @ w"
    # The tracing errors vanish without jit: the code was right for concrete values.
    good = rerun_eagerly(jax.jit(branchy), jnp.ones((8, 32)))
    assert good.ok and good.error_type is None


def test_jaxpr_text_binds_static_keywords():
    text = jaxpr_text(repeat, jnp.arange(3), n=2)
    assert "i32[6]" in text
    assert "dot_general" in jaxpr_text(matmul, jnp.ones((8, 32)), jnp.ones((32, 4)))


def test_anatomy_is_frozen_and_renders():
    exc = raised(jax.jit(branchy), jnp.ones((8, 32)))
    anatomy = analyze(exc)
    with pytest.raises(dataclasses.FrozenInstanceError):
        anatomy.category = Category.OTHER  # type: ignore[misc]
    data = json.loads(json.dumps(anatomy.to_json()))
    assert data["category"] == "control-flow"
    assert data["context"]["function"] == "branchy"
    assert data["fix"]["zh"] and data["fix"]["en"]
    assert "2. Tracing context" in format_anatomy(anatomy)
    assert "追踪上下文" in format_anatomy(anatomy, "zh")
