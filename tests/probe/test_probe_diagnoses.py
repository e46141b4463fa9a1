"""A Probe runs the watch's diagnosers (jitlab/probe/diagnosing.py) on its own compiles:
recompile-limit past ``warn_after`` and identity-static, with the figures the watch states
for the same calls; JAX's own compile log (jax_log_compiles) proves the recompiles."""

from __future__ import annotations

import logging
import re

import jax
import jax.numpy as jnp
import pytest

import jitlab
from jitlab.probe.probe import Probe
from jitlab.records.diagnoses import EXECUTABLES_GROWING, IDENTITY_STATIC, RECOMPILE_LIMIT


class Config:  # no __eq__ / __hash__: compared and hashed by identity
    def __init__(self, scale: float) -> None:
        self.scale = scale

    def __repr__(self) -> str:
        return f"Config(scale={self.scale})"


def grow(x):
    return x * 2


def step(x, cfg):
    return x * cfg.scale


def _run(grow_j, step_j) -> None:
    for n in range(1, 5):
        grow_j(jnp.ones(n))
    for _ in range(3):
        step_j(jnp.ones(3), Config(2.0))


def _jax_compiled(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The functions JAX's own log (jax_log_compiles) says it compiled, in order."""
    said = re.compile(r"Finished XLA compilation of jit\((?P<name>[^)]*)\)")
    return [m["name"] for r in caplog.records if (m := said.search(r.getMessage()))]


def test_a_probe_states_what_the_watch_states(tmp_path, caplog) -> None:
    jax.clear_caches()
    before = jax.config.jax_log_compiles
    jax.config.update("jax_log_compiles", True)
    try:
        with caplog.at_level(logging.DEBUG, logger="jax"):
            probes = Probe(grow, warn_after=2), Probe(step, static_argnums=1, warn_after=2)
            _run(*probes)
    finally:
        jax.config.update("jax_log_compiles", before)
    compiled = _jax_compiled(caplog)
    assert compiled.count("grow") == 4 and compiled.count("step") == 3
    found = [d for p in probes for d in p.diagnoses]
    assert [(d.id, d.function) for d in found] == [
        (RECOMPILE_LIMIT, "grow"),
        (IDENTITY_STATIC, "step"),
        (RECOMPILE_LIMIT, "step"),
        # each Config is a new static value, so each compile keeps a new executable alive
        (EXECUTABLES_GROWING, "step"),
    ]
    assert found[0].site == f"{__file__}:{grow.__code__.co_firstlineno}"
    jax.clear_caches()
    with jitlab.watch(tmp_path / "run.jsonl", warn_after=2) as recorder:
        _run(jax.jit(grow), jax.jit(step, static_argnums=1))
    watched = [(d.id, d.function, d.site, dict(d.figures)) for d in recorder.diagnoses]
    assert [(d.id, d.function, d.site, dict(d.figures)) for d in found] == watched


@pytest.mark.parametrize("after", [0, 8])
def test_below_the_limit_or_off_only_identity_static(after: int) -> None:
    jax.clear_caches()
    probes = Probe(grow, warn_after=after), Probe(step, static_argnums=1, warn_after=after)
    _run(*probes)
    assert [d.id for p in probes for d in p.diagnoses] == [IDENTITY_STATIC]


def test_a_bad_warn_after_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="warn_after: -1 is not a number of compiles"):
        Probe(grow, warn_after=-1)


def test_a_bad_environment_value_is_said_once_and_probes_go_on(monkeypatch, capsys) -> None:
    # The app and the notebook make Probes without warn_after=: a bad JITLAB_WARN_AFTER must
    # not stop every lesson. It is said once, and the default (8) is used.
    from jitlab.probe import diagnosing

    monkeypatch.setenv("JITLAB_WARN_AFTER", "lots")
    monkeypatch.setattr(diagnosing, "_said_bad_environment", False)
    first, second = Probe(grow), Probe(grow)
    assert first._diagnoses.after == second._diagnoses.after == 8
    err = capsys.readouterr().err
    assert err.count("JITLAB_WARN_AFTER: 'lots' is not a number of compiles") == 1
