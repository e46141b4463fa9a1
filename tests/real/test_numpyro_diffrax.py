"""NumPyro and Diffrax: small real runs, compile counts compared with JAX's own log."""

from __future__ import annotations

from collections import Counter

import jax
import jax.numpy as jnp
import pytest

from jitlab.probe.probe import Probe
from jitlab.records.calls import CallKind
from jitlab.watching.recorder import watch

from .conftest import change_paths, compiled

K = CallKind


def test_numpyro_svi_counts_like_jax(compile_log):
    numpyro = pytest.importorskip("numpyro")
    dist = pytest.importorskip("numpyro.distributions")
    from numpyro.infer import SVI, Trace_ELBO, autoguide

    def model(y):
        mu = numpyro.sample("mu", dist.Normal(0.0, 1.0))
        numpyro.sample("y", dist.Normal(mu, 1.0), obs=y)

    def run(seed):
        svi = SVI(model, autoguide.AutoNormal(model), numpyro.optim.Adam(0.1), Trace_ELBO())
        svi.run(jax.random.key(seed), 5, jnp.ones(5), progress_bar=False)

    with watch() as hidden:
        run(0)
    # Without a progress bar SVI loops eagerly (lax.fori_loop outside any jit): every
    # compile is a JAX-internal kernel, none is listed as the user's function.
    assert hidden.compiles == []
    compile_log.counts.clear()
    with watch(include_internal=True) as shown:
        run(1)
    seen = Counter(c.record.function for c in shown.compiles)
    assert seen == compile_log.counts
    assert all(c.internal for c in shown.compiles)


def test_diffrax_saveat_names_the_users_arguments(compile_log):
    diffrax = pytest.importorskip("diffrax")
    eqx = pytest.importorskip("equinox")

    @eqx.filter_jit
    def solve(y0, saveat, rate):
        term = diffrax.ODETerm(lambda t, y, args: -args * y)
        return diffrax.diffeqsolve(
            term, diffrax.Euler(), 0.0, 1.0, 0.1, y0, args=rate, saveat=saveat
        ).ys

    probe = Probe(solve)
    y0 = jnp.ones(2)
    for n in (3, 3, 4):  # more save points: a new shape of saveat's ts
        probe(y0, diffrax.SaveAt(ts=jnp.linspace(0.0, 1.0, n)), jnp.float32(0.5))
    assert [r.kind for r in probe.records] == [K.COMPILE, K.CACHE_HIT, K.RECOMPILE]
    assert compiled(probe.records) == compile_log.counts["solve"] == 2
    paths = change_paths(probe.records[2].reason)
    assert paths == {"saveat.subs.ts"}, paths
