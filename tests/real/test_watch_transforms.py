"""Transformations of a function jitted inside a watch (issue 19, items 1 and 5, watch side).

``jax.grad`` compiles the function's backward pass after the watched call returned: the
watch files that executable as the function's, as a transformation (grad's transpose), never
as its "first call". A call staged into an eager ``lax.scan`` body or an outer ``jax.jit``
ran nothing of the function's own: it is traced, never a cache hit. Each is checked against
JAX's own ``jax_log_compiles`` in the same run.
"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp

from jitlab.probe.probe import Probe
from jitlab.records import change_words
from jitlab.records.calls import CallKind as K
from jitlab.records.changes import ChangeKind as C
from jitlab.watching.recorder import watch


def _rows_here(recorder, name: str) -> list:
    """The recording's rows of functions called ``name`` defined in this file: a watch also
    tracks (with no calls) every site earlier watches in this worker made, other files' too."""
    here = str(Path(__file__).resolve())
    return [
        s
        for s in recorder.stats.values()
        if s.name == name and (s.defined_at or "").startswith(here)
    ]


def kinds(record) -> list[C]:
    return [c.kind for c in record.reason.items]


def test_grad_under_watch_files_the_backward_pass_as_a_transformation(compile_log):
    with watch() as recorder:

        @jax.jit
        def sines(x):
            return jnp.sum(jnp.sin(x))

        f, x = sines, jnp.ones(3)
        f(x)
        jax.grad(f)(x)
        jax.grad(f)(x)  # JAX reuses both executables it made under the first grad
    mine = [c for c in recorder.calls if c.record.function == "sines"]
    made = [c.record for c in mine if c.record.kind.compiled]
    # JAX compiled the call, the forward pass under linearize, and the transpose.
    assert compile_log.counts["sines"] == 3
    assert len(made) == 3
    assert [r.kind for r in made] == [K.COMPILE, K.RECOMPILE, K.RECOMPILE]
    backward = made[2]
    assert kinds(backward) == [C.TRANSFORMED], str(backward.reason)
    assert backward.reason.items[0].path == "transpose"
    for word in (C.FIRST_CALL, C.FIRST_SEEN, C.CACHE_CLEARED, C.UNKNOWN):
        assert word not in kinds(backward)
    assert "backward pass" in change_words.render(backward.reason.items[0], "en")
    assert "反向传播" in change_words.render(backward.reason.items[0], "zh")
    # Filed as the function's own (the probe's ledger), not as an events-only function.
    assert not any(c.events_only for c in mine)
    stats = _rows_here(recorder, "sines")
    assert len(stats) == 1 and stats[0].compiles == 3
    assert stats[0].site.ledger.counts[K.RECOMPILE] == 2
    # The second grad ran JAX's executables again: the one hit JAX's test counts.
    assert stats[0].hits == 1


def test_nested_watches_file_the_backward_pass_once(compile_log):
    with watch() as outer, watch() as inner:

        @jax.jit
        def tanhs(x):
            return jnp.sum(jnp.tanh(x))

        jax.grad(tanhs)(jnp.ones(2))
    assert compile_log.counts["tanhs"] == 2
    for recorder in (outer, inner):
        made = [c.record for c in recorder.compiles if c.record.function == "tanhs"]
        assert len(made) == 2
        assert [c.path for r in made for c in r.reason.items] == ["linearize", "transpose"]
    (site,) = {s.site for s in inner.stats.values() if s.name == "tanhs"}
    assert site.ledger.counts[K.RECOMPILE] + site.ledger.counts[K.COMPILE] == 2


def test_an_eager_scan_body_calling_a_watched_function_is_traced_not_a_hit(compile_log):
    with watch() as recorder:

        @jax.jit
        def doubled(x):
            return jnp.sum(x * 2.0)

        doubled(jnp.ones(3))

        def body(carry, row):
            return carry + doubled(row), None

        total, _ = jax.lax.scan(body, 0.0, jnp.ones((5, 3)))
    assert float(total) == 30.0
    (stats,) = _rows_here(recorder, "doubled")
    # JAX compiled it once (the plain call) and the scan as a whole: f's cache never served
    # the body, which was staged into the scan's trace.
    assert compile_log.counts["doubled"] == 1 and compile_log.counts["scan"] == 1
    assert stats.hits == 0
    mine = [c.record for c in recorder.calls if c.record.function == "doubled"]
    assert [r.kind for r in mine] == [K.COMPILE, K.TRACED]
    assert kinds(mine[1]) == [C.TRANSFORMED] and mine[1].reason.items[0].path == "trace"


def test_a_watched_function_called_inside_an_outer_jit_is_traced_not_a_hit(compile_log):
    def outer_of(fun):
        @jax.jit  # jitted before the watch: JAX's own jit, which traces the watched call
        def outer(x):
            return fun[0](x) * 2.0

        return outer

    held: list = []
    outer = outer_of(held)
    with watch() as recorder:

        @jax.jit
        def inner(x):
            return x + 1.0

        held.append(inner)
        inner(jnp.ones(3))
        outer(jnp.ones(3))
        outer(jnp.ones(3))  # JAX's hit on outer: inner is not even called
    (stats,) = _rows_here(recorder, "inner")
    assert compile_log.counts["inner"] == 1 and compile_log.counts["outer"] == 1
    calls = [c.record for c in recorder.calls if c.record.function == "inner"]
    assert [r.kind for r in calls] == [K.COMPILE, K.TRACED]
    assert stats.hits == 0  # its staged call ran nothing of its own


def test_inside_an_outer_watched_jit_the_inner_call_is_no_hit(compile_log):
    with watch() as recorder:

        @jax.jit
        def inner(x):
            return x + 1.0

        @jax.jit
        def outer(x):
            return inner(x) * 2.0

        inner(jnp.ones(3))
        outer(jnp.ones(3))
        outer(jnp.ones(3))
    stats = {name: _rows_here(recorder, name)[0] for name in ("inner", "outer")}
    assert compile_log.counts["inner"] == 1 and compile_log.counts["outer"] == 1
    assert stats["inner"].hits == 0 and stats["outer"].hits == 1


def test_a_programs_own_probe_under_a_watch_counts_its_backward_pass(compile_log):
    def cosines(x):
        return jnp.sum(jnp.cos(x))

    probe = Probe(jax.jit(cosines))  # the program's own probe of a function jitted before
    with watch() as recorder:
        jax.grad(probe)(jnp.ones(3))
    assert compile_log.counts["cosines"] == 2
    assert [r.kind for r in probe.records] == [K.COMPILE, K.RECOMPILE]
    assert probe.records[1].reason.items[0].path == "transpose"
    # The watch saw the backward pass (outside any probed call) as that executable too.
    (seen,) = [c.record for c in recorder.calls if c.record.function == "cosines"]
    assert kinds(seen) == [C.TRANSFORMED] and seen.reason.items[0].path == "transpose"
    assert "new executable" in change_words.render(seen.reason.items[0], "en")
