"""Truth round five: a fifth fresh set of programs nobody here wrote, jitlab against JAX's own
``jax_log_compiles`` and ``jax_explain_cache_misses`` in the same run.

Each case names its upstream source (jax-ml/jax at cec06d1: ``tests/api_test.py``,
``tests/pjit_test.py``, ``docs/``; Equinox, Optax, NumPyro issue threads) and the rule behind
what the round found; the rule's generated family follows each case. These need only JAX:
they run on every JAX of the window.

1. A transformed program of a function re-created per call is a new function object's, not
   the transformation's doing; hits under a transformation are no sign of executables
   compiled before the watch; a plain first call after transformed ones says so.
2. grad's backward pass of a jit made inside the differentiated function is that function's
   transformation, though the jitted object is gone when the transpose compiles.
   (Rules 1 and 2 have no case here yet: see below.)
3. An ahead-of-time compile (``jit(f).trace(...).lower().compile()``) is the function's: one
   row per function as JAX counts it.
4. An exported program run by ``Exported.call`` is the user's, counted as JAX logs it
   (``call_exported``), never hidden as one of JAX's own kernels.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jitlab.recordings.reader import read_recording
from jitlab.recordings.summary import summarize
from jitlab.records.changes import ChangeKind
from jitlab.watching.recorder import watch

from ._rules import fresh
from .conftest import jax_account

K = ChangeKind


def _compiled(records):
    return [r for r in records if r.kind.compiled]


def _watched(recorder, name: str):
    return [c.record for c in recorder.calls if c.record.function == name]


# -- rules 1 and 2: not here ---------------------------------------------------------------------
# Their cases need d17aa9b's rework of transforms.py (the last grad-traced probe held weakly);
# left out until it lands.


# -- rule 3: an ahead-of-time compile is the function's -----------------------------------------
def doubled_plus(x, y):
    """jax-ml/jax docs/aot.md: ``2 * x + y``."""
    return 2 * x + y


@pytest.mark.parametrize("then", ["call", "another AOT"])
def test_an_aot_compile_is_filed_under_the_function_it_compiled(then, tmp_path):
    # docs/aot.md: trace, lower, compile, run the compiled; then call the jitted function
    # (JAX serves it from what the AOT compile made) or compile it AOT again for other
    # types. JAX logs every compile as jit(f). Before: the AOT compiles made a row of their
    # own with no definition ("f", 1 compile, hits unknown) beside "f" with 0 compiles.
    f = fresh(doubled_plus, then)
    path = tmp_path / "run.jsonl"
    with jax_account() as log, watch(path):
        jf = jax.jit(f)
        jf.trace(3, 4).lower().compile()(3, 4)
        jf(3, 4)
        jf(3, 4)
        if then == "another AOT":
            i32 = jax.ShapeDtypeStruct((), jnp.dtype("int32"))
            jf.trace(i32, i32).lower().compile()
    recording, _ = read_recording(path)
    rows = [s for s in summarize(recording) if s.function == f.__name__]
    assert len(rows) == 1, [(s.function, s.defined_at) for s in rows]
    (row,) = rows
    assert row.executables == log.counts[f.__name__] == (1 if then == "call" else 2)
    assert row.hits == 2
    assert row.defined_at is not None and row.defined_at.endswith(
        f"test_truth_round5.py:{doubled_plus.__code__.co_firstlineno}"
    )


# -- rule 4: an exported program run by Exported.call is the user's -----------------------------
def sin_sum(x):
    """jax-ml/jax docs/export/shape_poly.md: a function exported with a symbolic batch."""
    return jnp.sin(x).sum(axis=0)


@pytest.mark.parametrize("sizes", [(3, 3, 5), (2, 4, 4, 8)])
def test_an_exported_program_called_per_shape_is_counted_as_jax_logs(sizes, tmp_path):
    # Exported.call compiles the exported program once per concrete shape (JAX logs
    # jit(call_exported)). Before: nothing was recorded (an eager kernel of JAX's own):
    # the end table was empty while JAX had compiled the user's program len(set(sizes))
    # times.
    from jax import export

    f = fresh(sin_sum, *sizes)
    (b,) = export.symbolic_shape("b")
    exp = export.export(jax.jit(f))(jax.ShapeDtypeStruct((b, 4), jnp.float32))
    path = tmp_path / "run.jsonl"
    with jax_account() as log, watch(path):
        for n in sizes:
            exp.call(jnp.ones((n, 4)))
    recording, _ = read_recording(path)
    rows = [s for s in summarize(recording, include_internal=False) if not s.internal]
    (row,) = [s for s in rows if s.function == "call_exported"]
    assert row.executables == log.counts["call_exported"] == len(set(sizes))
    made = [c.record for c in recording.calls if c.record.kind.compiled]
    assert made[0].reason.kinds() == (K.FIRST_CALL,)
    assert all(r.reason.kinds() == (K.SHAPE,) for r in made[1:])
