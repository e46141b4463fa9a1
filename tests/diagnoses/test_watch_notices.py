"""What a watch cannot check, or leaves out, is said (issue 52, items 5 and 9), measured in
this process against JAX's own compile log:

* functions jitted before ``with jitlab.watch()`` (the README's ``train()`` shape) are still
  compared as objects — an identity-compared static is found, its argument named as
  written (``cfg``, not JAX's ``[0][1]``) — and the recording says once which functions
  these are and what could not be checked of them (their hits, slow-dispatch);
* compiles of JAX's own functions (eager ``jnp``, ``jax.random``) are counted, and the
  recording says how many were left out of the listing and how to list them.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp

import jitlab
from jitlab.recordings.reader import read_recording
from jitlab.records.messages import notice_texts
from tests.real.conftest import jax_compile_log


class Config:  # no __eq__/__hash__: compared by identity
    def __init__(self, scale):
        self.scale = scale


@partial(jax.jit, static_argnums=1)  # jitted at import: before any watch
def scaled_before(x, cfg):
    return x * cfg.scale


@jax.jit
def validate_before(x):
    jax.debug.print("val {v}", v=x.sum())
    return x.sum()


def test_functions_jitted_before_the_watch_are_compared_and_named(tmp_path, capsys):
    path = tmp_path / "run.jsonl"
    with jitlab.watch(path):
        x = jnp.ones(4)
        for _ in range(3):
            cfg = Config(2.0)  # built anew each epoch
            for _ in range(2):
                x = scaled_before(x, cfg)
            validate_before(x)
    assert scaled_before._cache_size() == 3  # JAX's own count: a program per epoch
    recording = read_recording(path)[0]
    (d,) = [d for d in recording.every_diagnosis() if d.id == "identity-static"]
    assert (d.function, d.figures["argument"], d.figures["class"]) == (
        "scaled_before",
        "cfg",  # not JAX's input path
        f"{__name__}.Config",
    )
    recompiles = [c for c in recording.calls if c.record.kind.name == "RECOMPILE"]
    assert [c.events_only for c in recompiles] == [True, True]  # seen through events only
    assert all(c.record.reason.items[0].path == "cfg" for c in recompiles)
    # Said once: which functions, and what could not be checked of them.
    assert recording.notice_counts["jitted_before"] == 2
    detail = recording.notice_details["jitted_before"]
    assert "scaled_before (" in detail and "validate_before (" in detail
    err = capsys.readouterr().err
    assert err.count("were jitted before the watch began") == 1
    assert "slow-dispatch" in err
    (zh,) = notice_texts(
        [("jitted_before", None)], "zh", recording.notice_counts, recording.notice_details
    )
    assert "在监视开始之前就已 jit" in zh


def test_compiles_of_jaxs_own_functions_are_counted_and_how_to_list_them_said(tmp_path):
    path = tmp_path / "run.jsonl"
    with jax_compile_log() as log, jitlab.watch(path):

        def step(w, x):
            return w - 0.1 * x

        f = jax.jit(step)
        key = jax.random.PRNGKey(0)
        w = jnp.zeros(7)  # eager jnp: JAX compiles a kernel of its own
        x = jax.random.normal(key, (7,))  # and jax.random's
        f(w, x * 3.0)
    recording = read_recording(path)[0]
    listed = sum(1 for c in recording.calls if c.record.kind.compiled)
    left = recording.notice_counts["internal_left_out"]
    assert listed == log.counts["step"] == 1 and left > 0
    assert listed + left == sum(log.counts.values())  # every compile JAX logged, accounted
    (text,) = notice_texts(
        [("internal_left_out", None)], "en", recording.notice_counts, recording.notice_details
    )
    assert f"{left} compiles of JAX's own functions" in text
    assert "--include-internal" in text and "include_internal=True" in text
    # With include_internal nothing is left out: they are listed.
    with jitlab.watch(tmp_path / "all.jsonl", include_internal=True):
        jnp.ones(11) * 2.0
    every = read_recording(tmp_path / "all.jsonl")[0]
    assert "internal_left_out" not in every.notice_counts
    assert any(c.internal for c in every.calls)
