"""Contract tests for how jitlab reads the constants of a traced program (captured-constant;
jitlab/probe/_jax.py: jaxpr_parts, is_literal): a Python number closed over is a literal in
an equation, an array a captured const; sub-programs in params are read the same way."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jitlab.probe import _jax_programs


def test_a_python_number_is_a_literal_and_an_array_a_const():
    x = jnp.ones(3)
    lr = 0.25
    program = jax.jit(lambda p: p - lr * p).trace(x).jaxpr
    jaxpr, consts = _jax_programs.jaxpr_parts(program)
    assert consts == ()
    literals = [a for e in jaxpr.eqns for a in e.invars if _jax_programs.is_literal(a)]
    assert [float(np.asarray(a.val)) for a in literals] == [0.25]
    assert not any(_jax_programs.is_literal(v) for v in jaxpr.invars)
    held = jnp.float32(0.5)
    program = jax.jit(lambda p: p - held * p).trace(x).jaxpr
    jaxpr, consts = _jax_programs.jaxpr_parts(program)
    assert len(consts) == len(jaxpr.constvars) == 1
    assert float(np.asarray(consts[0])) == 0.5
    assert not any(_jax_programs.is_literal(a) for e in jaxpr.eqns for a in e.invars)


def test_a_sub_program_in_params_is_read_with_its_own_constants():
    scale = 3.0
    program = (
        jax.jit(lambda x: jax.lax.cond(x.sum() > 0, lambda y: y * scale, jnp.cos, x))
        .trace(jnp.ones(3))
        .jaxpr
    )
    jaxpr, _ = _jax_programs.jaxpr_parts(program)
    (cond,) = [e for e in jaxpr.eqns if str(e.primitive) == "cond"]
    branches = [_jax_programs.jaxpr_parts(b) for b in cond.params["branches"]]
    assert all(parts is not None for parts in branches)
    found = [
        float(np.asarray(a.val))
        for sub, _ in branches  # type: ignore[misc]
        for e in sub.eqns
        for a in e.invars
        if _jax_programs.is_literal(a)
    ]
    assert 3.0 in found
    assert _jax_programs.jaxpr_parts(3.0) is None and _jax_programs.jaxpr_parts(cond.params) is None


def test_a_custom_jvp_holds_a_rule_made_anew_on_each_trace():
    # relu is a custom_jvp: its equation's params hold a WrappedFun made per trace, so two
    # traces of one program hold two unequal ones (jitlab reads it by its type only).
    def rules():
        program = jax.jit(lambda x: jax.nn.relu(x) * 2.0).trace(jnp.ones(3)).jaxpr
        jaxpr, _ = _jax_programs.jaxpr_parts(program)
        (eqn,) = [e for e in jaxpr.eqns if "custom_jvp" in str(e.primitive)]
        return [v for v in eqn.params.values() if isinstance(v, _jax_programs.WRAPPED_FUN)]

    (first,), (second,) = rules(), rules()
    assert first is not second and hash(first) != hash(second)
