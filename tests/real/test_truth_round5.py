"""Truth round five: a fifth fresh set of programs nobody here wrote, jitlab against JAX's own
``jax_log_compiles`` and ``jax_explain_cache_misses`` in the same run.

Each case names its upstream source (jax-ml/jax at cec06d1: ``tests/api_test.py``,
``tests/pjit_test.py``, ``docs/``; Equinox, Optax, NumPyro issue threads) and the rule behind
what the round found; the rule's generated family follows each case. These need only JAX:
they run on every JAX of the window.

1. A transformed program of a function re-created per call is a new function object's, not
   the transformation's doing; hits under a transformation are no sign of executables
   compiled before the watch; a plain first call after transformed ones says so (issue 50's
   rule 5).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jitlab.probe.probe import Probe
from jitlab.records.calls import CallKind
from jitlab.records.change_words import reason_text
from jitlab.records.changes import ChangeKind
from jitlab.watching.recorder import watch

from ._rules import fresh
from .conftest import jax_account

K = ChangeKind


def _compiled(records):
    return [r for r in records if r.kind.compiled]


def _watched(recorder, name: str):
    return [c.record for c in recorder.calls if c.record.function == name]


# -- rule 1: a function re-created per call, under a transformation ---------------------------
def jvp_jit_cached(x):
    """jax-ml/jax tests/api_test.py test_jvp_jit_cached: jit(inner) made per call."""

    def inner(y):
        return y * x

    return jax.jit(inner)(4.0) + jax.jit(inner)(5.0)


def test_a_closure_jitted_per_call_under_jvp_is_a_new_function_object():
    # JAX compiles inner three times: jvp's program for the first closure (the second
    # jax.jit(inner) of it is a hit), again for the closure of the second jvp, and the
    # plain program for the closure of the plain call. JAX: "never seen function ... being
    # re-defined repeatedly". Before: the second read "traced under jvp" (the jvp was no
    # cause: its program was compiled before) and the third "earlier calls used executables
    # compiled before it watched (e.g. an AOT warm-up)", which nothing was.
    with jax_account() as log, watch() as recorder:
        jax.jvp(jvp_jit_cached, (5.0,), (1.0,))
        jax.jvp(jvp_jit_cached, (6.0,), (1.0,))
        jvp_jit_cached(2.0)
    made = _compiled(_watched(recorder, "inner"))
    assert len(made) == log.counts["inner"] == 3
    assert [r.kind for r in made] == [CallKind.COMPILE, CallKind.RECOMPILE, CallKind.RECOMPILE]
    first, again, plain = (r.reason.kinds() for r in made)
    assert first == (K.TRANSFORMED,)
    assert again == (K.NEW_FUNCTION_OBJECT, K.TRANSFORMED), reason_text(made[1].reason)
    # JAX's own hint, kept with it (JAX said so in this run).
    assert any("re-defined repeatedly" in m for m in log.misses_of("inner"))
    assert "re-defined repeatedly" in made[1].reason.items[0].detail
    assert plain == (K.FIRST_CALL,), reason_text(made[2].reason)
    assert made[2].reason.items[0].detail == "jvp"  # its earlier executables: jvp's


def scaled(y):
    return y * 3.0


@pytest.mark.parametrize("transform", ["jvp", "vmap", "grad"])
def test_hits_under_a_transformation_are_no_executables_compiled_before(transform):
    # The rule behind the third compile above, on a Probe: a transformed program compiled,
    # then run again (a hit under the transformation), then the plain call compiles. Its
    # reason is a first plain call, never "compiled before jitlab watched".
    fun = fresh(scaled, transform)
    probe = Probe(fun)
    x = jnp.ones(3)
    run = {
        "jvp": lambda: jax.jvp(probe, (x,), (x,)),
        "vmap": lambda: jax.vmap(probe)(jnp.ones((2, 3))),
        "grad": lambda: jax.grad(lambda v: probe(v).sum())(x),
    }[transform]
    with jax_account() as log:
        run()
        run()
        probe(x)
    made = _compiled(probe.records)
    assert len(made) == log.counts[fun.__name__]
    assert any(r.kind is CallKind.CACHE_HIT for r in probe.records[:-1])
    last = made[-1]
    assert last.reason.kinds() == (K.FIRST_CALL,), reason_text(last.reason)
    assert last.kind is CallKind.RECOMPILE
