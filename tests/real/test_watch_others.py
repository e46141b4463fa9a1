"""The watch on patterns of other people's code (issue 19, items 3, 4, 7, 8, 11): counts equal
to JAX's own ``jax_log_compiles`` in the same run, and nothing printed that the program did
not ask for."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from jitlab.probe.probe import Probe
from jitlab.records.changes import ChangeKind
from jitlab.watching.recorder import watch

from .conftest import jax_compile_log

pytestmark = pytest.mark.slow

TIMEOUT = 240  # seconds a subprocess may take (a busy machine), never a bound on speed


class _Fwd:
    """A model that jits its bound method on every call (a new bound-method object each)."""

    def _fwd(self, x):
        return x * 2

    def __call__(self, x):
        return jax.jit(self._fwd)(x)


def test_a_bound_method_jitted_per_call_counts_every_compile_jax_made():
    a, b = jnp.ones(3), jnp.ones(4)
    with jax_compile_log() as plain:
        m = _Fwd()
        m(a), m(a), m(b)
    assert plain.counts["_fwd"] == 3  # each bound method is a new function to JAX

    with jax_compile_log() as log, watch() as recorder:
        m = _Fwd()
        m(a), m(a), m(b)
    # The watch changes nothing: JAX compiles as often as in the plain run...
    assert log.counts["_fwd"] == plain.counts["_fwd"]
    # ...and the recording has each of them, as the same code jitted again.
    rows = [c.record for c in recorder.compiles if c.record.function == "_fwd"]
    assert len(rows) == log.counts["_fwd"]
    assert [r.kind.value for r in rows] == ["compile", "recompile", "recompile"]
    for row in rows[1:]:
        assert ChangeKind.NEW_FUNCTION_OBJECT in row.reason.kinds()
    # The rows this recording saw compile: a watch also tracks earlier watches' sites.
    (stats,) = [s for s in recorder.stats.values() if s.name == "_fwd" and s.compiles]
    assert stats.compiles == 3 and stats.hits == 0


def _run(code: str, *, env: dict[str, str] | None = None, cwd: Path | None = None):
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )


PMAP = """
import json, logging, sys
import jax, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
import jitlab
from tests.real.conftest import jax_compile_log

def double(x):
    return x * 2

def body(x):
    return x * 3

originals = (jax.jit, jax.pmap)
with jax_compile_log() as log, jitlab.watch(sys.argv[1]):
    p = jax.pmap(double)
    p(jnp.ones((8, 3))); p(jnp.ones((8, 3))); p(jnp.ones((8, 5)))
    mesh = Mesh(jax.devices(), ("i",))
    s = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("i"), out_specs=P("i")))
    s(jnp.ones(8)); s(jnp.ones(16))
def halve(x):
    return x / 2

early = jax.pmap(halve)  # made before the watch: seen through JAX's events only
early(jnp.ones((8, 2)))
with jax_compile_log() as early_log, jitlab.watch(sys.argv[1] + ".early") as early_rec:
    early(jnp.ones((8, 2))); early(jnp.ones((8, 7))); early(jnp.ones((8, 9)))
early_calls = [(c.record.function, c.record.kind.value, c.defined_at)
               for c in early_rec.calls]
early_reasons = [[k.value for k in c.record.reason.kinds()] for c in early_rec.calls]
probe = jitlab.Probe(jax.pmap(double))
probe(jnp.ones((8, 2)))
print(json.dumps({"log": dict(log.counts), "probe": probe.name,
                  "restored": (jax.jit, jax.pmap) == originals,
                  "early": early_calls, "early_log": early_log.counts["_fun"],
                  "early_reasons": early_reasons,
                  "probe_function": probe.records[0].function,
                  "probe_compiles": sum(r.kind.compiled for r in probe.records)}))
"""


def test_watch_sees_pmap_and_shard_map_under_the_users_names(tmp_path):
    out = tmp_path / "pmap.jsonl"
    done = _run(
        PMAP.replace("sys.argv[1]", repr(str(out))),
        env={"XLA_FLAGS": "--xla_force_host_platform_device_count=8", "JAX_PLATFORMS": "cpu"},
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    calls = [line for line in lines if line["type"] == "call"]
    by_name: dict[str, list[str]] = {}
    for call in calls:
        by_name.setdefault(call["function"], []).append(call["kind"])
    # pmap runs as jit(shard_map(_fun)): JAX's log says _fun; the recording says double.
    assert seen["log"]["_fun"] == 2
    assert seen["restored"]  # jax.jit and jax.pmap are the very objects found
    assert by_name["double"] == ["compile", "recompile"]
    assert "_fun" not in by_name
    hits = {line["function"]: line["hits"] for line in lines if line["type"] == "hits"}
    assert hits["double"] == 1
    # shard_map inside jit: as jit, defined at the user's def (not inside JAX).
    assert by_name["body"] == ["compile", "recompile"] and seen["log"]["body"] == 2
    body = [c for c in calls if c["function"] == "body"]
    assert body[0]["defined_at"] == f"<string>:{PMAP.splitlines().index('def body(x):') + 1}"
    # A pmap made before the watch: each compile JAX made, under the user's name and def.
    early = seen["early"]
    assert len(early) == seen["early_log"] == 2, early
    assert {name for name, _, _ in early} == {"halve"}
    # The first jitlab saw (not the first call: it ran before the watch), then a recompile.
    assert [kind for _, kind, _ in early] == ["compile", "recompile"]
    halve_line = PMAP.splitlines().index("def halve(x):") + 1
    assert all(where == f"<string>:{halve_line}" for _, _, where in early), early
    assert seen["early_reasons"] == [["first_seen"], ["shape"]]  # jitlab's own diff
    # A Probe of a pmap is named after the user's function too, and counts like JAX.
    assert seen["probe"] == seen["probe_function"] == "double"
    assert seen["probe_compiles"] == 1


PERSISTENT = """
import logging, os, sys
import jax, jax.numpy as jnp
jax.config.update("jax_compilation_cache_dir", sys.argv[1])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
if sys.argv[3] == "logging":
    logging.basicConfig()  # a program that configured logging (root handler at WARNING)
if sys.argv[4] == "asked":
    jax.config.update("jax_explain_cache_misses", True)
import jitlab

def step(x):
    return jnp.sin(x) * 2

def run():
    f = jax.jit(step)
    f(jnp.ones(3)); f(jnp.ones(4))

mode = sys.argv[2]
if mode == "watch":
    with jitlab.watch():
        run()
elif mode == "probe":
    p = jitlab.Probe(jax.jit(step))
    p(jnp.ones(3)); p(jnp.ones(4))
else:
    run()
print("entries", len(os.listdir(sys.argv[1])))
"""


def _persistent_lines(stderr: str) -> list[str]:
    return [
        line
        for line in stderr.splitlines()
        if "persistent" in line.lower() and "cache" in line.lower()
    ]


@pytest.mark.parametrize("logging_setup", ["bare", "logging"])
def test_persistent_cache_writes_stay_as_quiet_as_a_plain_run(tmp_path, logging_setup):
    runs = {}
    for mode in ("plain", "watch", "probe"):
        cache = tmp_path / f"cache-{mode}"
        cache.mkdir()
        code = PERSISTENT.replace("sys.argv[1]", repr(str(cache)))
        code = code.replace("sys.argv[2]", repr(mode)).replace("sys.argv[3]", repr(logging_setup))
        done = _run(code.replace("sys.argv[4]", repr("not asked")))
        assert done.returncode == 0, done.stderr
        runs[mode] = done
    for mode, done in runs.items():
        # JAX really wrote to the cache in every run (so it had something to say)...
        assert int(done.stdout.split()[-1]) > 0, mode
        # ...and said nothing the plain run did not.
        assert _persistent_lines(done.stderr) == [], (mode, done.stderr)
        assert done.stderr == runs["plain"].stderr, mode
    # A program that asked for explanations gets all of them, and the cache writes with them.
    asked = {}
    for mode in ("plain", "watch"):
        cache = tmp_path / f"cache-asked-{mode}"
        cache.mkdir()
        code = PERSISTENT.replace("sys.argv[1]", repr(str(cache))).replace(
            "sys.argv[2]", repr(mode)
        )
        code = code.replace("sys.argv[3]", repr(logging_setup))
        done = _run(code.replace("sys.argv[4]", repr("asked")))
        assert done.returncode == 0, done.stderr
        writes = [line for line in _persistent_lines(done.stderr) if "Writing jit_step" in line]
        asked[mode] = (len(writes), done.stderr.count("TRACING CACHE MISS"))
    assert asked["plain"][0] == 2 and asked["plain"][1] >= 2
    assert asked["watch"] == asked["plain"]


@pytest.fixture
def root_warnings():
    """What a program that configured logging (a handler on the root logger) gets to see."""
    import io

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setLevel(logging.WARNING)
    logging.getLogger().addHandler(handler)
    yield stream
    logging.getLogger().removeHandler(handler)


def test_a_probe_inside_another_probes_trace_lets_no_explanation_through(root_warnings):
    inner = Probe(jax.jit(lambda x: x + 1))

    def outer_fn(x):
        return inner(x) * 2

    outer = Probe(jax.jit(outer_fn))
    outer(jnp.ones(3))
    outer(jnp.ones(4))
    assert "CACHE MISS" not in root_warnings.getvalue()
    assert outer.records[1].reason.jax_explanation  # jitlab still got JAX's words


def test_a_probe_made_inside_a_watch_lets_no_explanation_through(root_warnings):
    with watch() as recorder:
        g = jax.jit(lambda x: x - 1)
        probe = Probe(jax.jit(lambda x: g(x) * 2))
        probe(jnp.ones(3))
        probe(jnp.ones(4))
    assert "CACHE MISS" not in root_warnings.getvalue()
    assert probe.records[1].reason.jax_explanation
    assert len(recorder.compiles) >= 2


def test_a_watched_function_as_a_static_argument_looks_and_caches_like_jax_s():
    def scale(x):
        return x * 3

    def apply(fn, x):
        return fn(x)

    x = jnp.ones(2)
    plain_fn = jax.jit(scale)
    plain_apply = jax.jit(apply, static_argnums=0)
    with jax_compile_log() as plain:
        plain_apply(plain_fn, x), plain_apply(plain_fn, x)
    with jax_compile_log() as log, watch() as recorder:
        fn = jax.jit(scale)
        applied = jax.jit(apply, static_argnums=0)
        applied(fn, x), applied(fn, x)
    assert log.counts["apply"] == plain.counts["apply"] == 1  # hashed and compared alike
    assert repr(fn).startswith("<PjitFunction of <function ")
    assert repr(fn) == repr(fn._jitted) and hash(fn) == hash(fn._jitted)
    (row,) = [c.record for c in recorder.compiles if c.record.function == "apply"]
    statics = [value for name, value in row.signature.statics]
    assert statics and all("<watched" not in str(v) for v in statics), statics
    assert str(statics[0]).startswith("<PjitFunction of <function ")


NUTS = """
import contextlib, json, sys
import jax, jax.numpy as jnp
import jitlab
from tests.real.conftest import jax_compile_log

watched = sys.argv[1] == "watch"
with jax_compile_log() as log, (jitlab.watch() if watched else contextlib.nullcontext()) as rec:
    # Imported inside the watch, as under `jitlab watch`: numpyro's `from jax import jit`
    # binds the stand-in.
    import numpyro, numpyro.distributions as dist
    from numpyro.infer import MCMC, NUTS

    def model(y=None):
        mu = numpyro.sample("mu", dist.Normal(0, 1))
        numpyro.sample("y", dist.Normal(mu, 1), obs=y)

    mcmc = MCMC(NUTS(model), num_warmup=10, num_samples=10, progress_bar=False)
    mcmc.run(jax.random.PRNGKey(0), y=jnp.ones(5))
statics = [
    value
    for call in (rec.compiles if watched else ())
    if call.record.function == "_fori_collect_loop"
    for name, value in call.record.signature.statics
]
print(json.dumps({"log": dict(log.counts), "mu": mcmc.get_samples()["mu"].tolist(),
                  "statics": statics}))
"""


def test_numpyro_nuts_under_a_watch_shows_its_static_function_as_jax_does():
    pytest.importorskip("numpyro")
    runs = {}
    for mode in ("plain", "watch"):
        done = _run(NUTS.replace("sys.argv[1]", repr(mode)), cwd=Path(__file__).parents[2])
        assert done.returncode == 0, done.stderr
        runs[mode] = json.loads(done.stdout.strip().splitlines()[-1])
    plain, watched = runs["plain"], runs["watch"]
    assert watched["mu"] == plain["mu"]  # the same chain, watched or not
    loop = "_fori_collect_loop"
    assert watched["log"][loop] == plain["log"][loop] >= 1  # hashed and compared alike
    # The loop's body is a static argument: shown as the program's own jitted function.
    statics = watched["statics"]
    assert statics and statics[0].startswith("<PjitFunction of <function "), statics
    assert not any("<watched" in value for value in statics)
