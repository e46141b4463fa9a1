"""recompile-limit through jitlab.watch in this process: real JAX, real recompiles."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jitlab
from jitlab.recordings.reader import read_recording


def _warnings(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("jitlab: recompile-limit:")]


def test_a_static_argument_taking_new_values_is_said_once_with_its_fix(tmp_path, capsys):
    path = tmp_path / "run.jsonl"
    with jitlab.watch(path, warn_after=2):

        def scaled(x, times):
            return x * times

        f = jax.jit(scaled, static_argnames="times")
        x = jnp.ones(3)
        for times in range(6):  # a new static value each call: a compile each call
            f(x, times=times)
        assert f._cache_size() == 6  # JAX's own count: six programs
    err = capsys.readouterr().err
    (line,) = _warnings(err)
    assert "scaled" in line and "compiled more than 2 times; in its first 3 compiles" in line
    assert "static argument times took a new value in 2 of 2 recompiles" in line
    # An int may set a shape or a loop count: round it to a few values, never "trace it".
    assert "times is a static number, and each value is a program of its own" in err
    assert "pass it as a traced argument" not in err
    recording, _ = read_recording(path)
    (d,) = recording.diagnoses
    assert (d.id, d.function, d.figures["fix"], d.figures["argument"]) == (
        "recompile-limit",
        "scaled",
        "static_int",
        "times",
    )
    assert d.site is not None and d.site.endswith(f":{scaled.__code__.co_firstlineno}")


def test_a_function_jitted_anew_each_step_is_told_to_be_made_once(tmp_path, capsys):
    with jitlab.watch(tmp_path / "run.jsonl", warn_after=3) as recorder:
        for _ in range(5):
            step = jax.jit(lambda v: v * 2.0)  # a new function object each time
            step(np.ones(2, np.float32))
    err = capsys.readouterr().err
    (line,) = _warnings(err)
    assert "jitted again as a new function object" in line
    assert "create the jitted function once, outside the loop" in err
    assert len(recorder.compiles) == 5


def test_the_variable_sets_the_limit_and_zero_turns_it_off(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("JITLAB_WARN_AFTER", "1")
    with jitlab.watch(tmp_path / "a.jsonl"):
        f = jax.jit(lambda x: x + 1)
        for n in range(1, 4):
            f(np.ones(n, np.float32))
    assert len(_warnings(capsys.readouterr().err)) == 1
    with jitlab.watch(tmp_path / "b.jsonl", warn_after=0):
        g = jax.jit(lambda x: x + 2)
        for n in range(1, 12):
            g(np.ones(n, np.float32))
    assert _warnings(capsys.readouterr().err) == []
    recording, _ = read_recording(tmp_path / "b.jsonl")
    assert recording.diagnoses == [] and len(recording.calls) == 11


@pytest.mark.parametrize("bad", [-1, "x", True, 2.5])
def test_a_bad_warn_after_is_refused_before_anything_is_watched(tmp_path, bad):
    original = jax.jit
    with (
        pytest.raises(ValueError, match=r"^warn_after:") as raised,
        jitlab.watch(tmp_path / "run.jsonl", warn_after=bad),
    ):
        pass
    assert "\n" not in str(raised.value)
    assert jax.jit is original and not (tmp_path / "run.jsonl").exists()
