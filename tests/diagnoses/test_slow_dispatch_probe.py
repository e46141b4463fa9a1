"""slow-dispatch in a Probe's own diagnoses (real JAX, in this process): the hits of a step
with `jax.debug.print` run through JAX's Python dispatch (JAX's own word: `jax.no_tracing()`
raises on them, jax#39289) and are counted by cause; a plain function's hits, run by C++
alone, are not. The notebook's probe output lists it with the others."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import jitlab
from jitlab.notebook.render import probe_text
from jitlab.records.diagnoses import DISPATCH_CALLBACK, SLOW_DISPATCH, sentence

CALLS = 5


def _printing(w, x):
    jax.debug.print("loss {}", jnp.sum(w * x))  # left in from debugging
    return w - 0.1 * x


def _plain(w, x):
    return w - 0.1 * x


def _python_dispatched(f) -> bool:
    """JAX's own word: does a call of ``f`` leave its C++ fast path? (jax#39289)"""
    try:
        with jax.no_tracing(True):
            f(jnp.ones(3), jnp.full(3, 0.5))
    except RuntimeError:
        return True
    return False


@pytest.mark.skipif(not hasattr(jax, "no_tracing"), reason="this JAX has no jax.no_tracing")
def test_a_probe_counts_its_python_dispatched_hits_by_cause(capfd) -> None:
    printing, plain = jitlab.Probe(_printing), jitlab.Probe(_plain)
    w, x = jnp.ones(3), jnp.full(3, 0.5)
    for _ in range(CALLS):
        printing(w, x)
        plain(w, x)
    assert _python_dispatched(jax.jit(_printing)) and not _python_dispatched(plain.wrapper.call)
    capfd.readouterr()
    (found,) = [d for d in printing.diagnoses if d.id == SLOW_DISPATCH]
    hits = printing.summary().cache_hits
    assert hits == CALLS - 1
    assert dict(found.figures) == {"calls": hits, "cause": DISPATCH_CALLBACK, "hits": hits}
    assert (
        found.function == "_printing"
        and found.site
        and found.site.endswith(f".py:{_printing.__code__.co_firstlineno}")
    )
    assert f"{hits} of its {hits} cache hits ran through JAX's Python dispatch" in sentence(found)
    assert not [d for d in plain.diagnoses if d.id == SLOW_DISPATCH]  # C++ ran its hits
    assert "slow-dispatch · _printing" in probe_text(printing, "en")
    assert "Python 分派" in probe_text(printing, "zh")


def test_without_routed_output_nothing_is_counted() -> None:
    """capture_output off: nothing is routed at dispatch, so the Probe cannot tell (said in
    Probe.diagnoses' docstring); it never states a count it did not make."""
    printing = jitlab.Probe(_printing, capture_output=False)
    for _ in range(3):
        printing(jnp.ones(3), jnp.full(3, 0.5))
    assert not [d for d in printing.diagnoses if d.id == SLOW_DISPATCH]
