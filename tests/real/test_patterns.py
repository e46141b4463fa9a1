"""Plain-JAX patterns real code hits: a re-created closure jit, a config object static,
``jax.pmap``, eager ops; and what jitlab refuses to probe."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import pytest

from jitlab.probe import _jax, frames, wrappers
from jitlab.probe.probe import Probe
from jitlab.records.calls import CallKind
from jitlab.watching.recorder import watch

from .conftest import change_paths, compiled

pytestmark = pytest.mark.slow

K = CallKind


def sample(x, scale):
    # NumPyro's sampling loop does this: a new jax.jit of a new closure on every call.
    step = jax.jit(lambda v: v * scale + 1.0)
    return step(x)


def test_recreated_closure_jit_is_one_function_and_counts_like_jax(compile_log):
    with watch() as recorder:
        for scale in (1.0, 2.0, 3.0):
            sample(jnp.ones(3), scale)
    mine = [c for c in recorder.compiles if c.record.function == "<lambda>"]
    assert len(mine) == compile_log.counts["<lambda>"] == 3
    # One definition site, the user's line in sample(); called from this test.
    assert len({c.defined_at for c in mine}) == 1
    assert mine[0].defined_at.startswith(__file__)
    assert all(c.called_from.startswith(__file__) for c in mine)


@dataclasses.dataclass(frozen=True)
class Config:
    lr: float
    hidden: int
    name: str = "a long configuration name that makes the repr longer than sixty characters"


def update(w, g, cfg):
    return w - cfg.lr * g


def test_config_object_static_counts_like_jax(compile_log):
    probe = Probe(update, static_argnames="cfg")
    w = jnp.ones(4)
    for cfg in (Config(0.1, 8), Config(0.1, 8), Config(0.2, 8)):
        w = probe(w, w, cfg)
    assert [r.kind for r in probe.records] == [K.COMPILE, K.CACHE_HIT, K.RECOMPILE]
    assert compiled(probe.records) == compile_log.counts["update"] == 2
    assert any(p.startswith("cfg") for p in change_paths(probe.records[2].reason))


def test_probe_pmap_counts_like_jax(compile_log):
    def double(x):
        return x * 2

    if _jax.VERSION < (0, 8, 0):
        # 0.6-0.7: pmap is the C++ PmapFunction; jitlab cannot tie its events to the call,
        # so it refuses rather than count its compiles as hits.
        with pytest.raises(TypeError, match="pmap"):
            Probe(jax.pmap(double))
        return
    probe = Probe(jax.pmap(double))
    assert probe.wrapper.kind == wrappers.PMAP
    n = jax.local_device_count()
    for size in (3, 3, 5):
        probe(jnp.ones((n, size)))
    assert [r.kind for r in probe.records] == [K.COMPILE, K.CACHE_HIT, K.RECOMPILE]
    # pmap runs as jit(shard_map(_fun)) from 0.9 (call_wrapped on 0.8): JAX logs it so.
    assert compiled(probe.records) == compile_log.counts[_jax.PMAP_TRACE_NAME] == 2


def test_eager_ops_are_internal_and_hidden_unless_asked(compile_log):
    x = jnp.arange(1.0, 4.0)
    with watch() as hidden:
        jnp.log(x + 7.0)
        jax.grad(lambda v: jnp.sin(v) * 3.0)(2.0)
    assert hidden.compiles == []
    with watch(include_internal=True) as shown:
        jnp.log(x + 8.0).block_until_ready()
        jnp.log(jnp.ones(5)).block_until_ready()  # a new shape: log compiles again
    logs = [c for c in shown.compiles if c.record.function == "log"]
    assert logs and all(c.internal for c in logs)
    assert all(c.called_from.startswith(__file__) for c in logs)


def test_probe_refuses_what_it_cannot_probe():
    def f(x):
        return x + 1

    executable = jax.jit(f).lower(jnp.ones(2)).compile()
    with pytest.raises(TypeError, match="ahead-of-time"):
        Probe(executable)
    with pytest.raises(TypeError, match="already jitted"):
        Probe(jax.jit(f), static_argnums=0)


def test_user_libraries_are_skipped_in_call_sites(tmp_path, monkeypatch):
    package = tmp_path / "mylib"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from jitlab.probe import frames\n\ndef where():\n    return frames.call_site(0)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import mylib

    assert mylib.where().startswith(str(package))  # not a library yet: its own line
    frames.add_library("mylib")
    try:
        assert mylib.where().startswith(__file__)  # now the user's line, in this test
        assert "mylib" in frames.libraries()
    finally:
        frames._library_dirs.pop("mylib", None)
        frames._cache.clear()


def test_libraries_from_the_environment(tmp_path):
    import os
    import subprocess
    import sys

    mine = tmp_path / "mine"
    mine.mkdir()
    check = f"from jitlab.probe import frames; print(frames.is_library({str(mine / 'a.py')!r}))"
    env = {**os.environ, "JITLAB_LIBRARIES": f"numpy,{mine}"}
    out = subprocess.run(
        [sys.executable, "-c", check], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "True"
