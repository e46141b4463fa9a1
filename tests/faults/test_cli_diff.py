"""`jitlab diff`: run-to-run comparison of real recordings, as a CI guard would use it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from environment_lines import program_lines
from ptyrun import run_on_pty

import jitlab
from jitlab.recordings.compare import compare
from jitlab.recordings.reader import read_recording

pytestmark = pytest.mark.slow

JITLAB = str(Path(sys.executable).with_name("jitlab"))


def loss(x):
    return jnp.sum(jnp.tanh(x) ** 2)


def scale(x, k):
    return x * k


def _record(path: Path, batches: list[int], with_scale: bool = True) -> Path:
    """A small real program under jitlab.watch: one jitted loss over the given batches."""
    jax.clear_caches()  # each recording starts as a fresh process would
    with jitlab.watch(path):
        step = jax.jit(loss)
        for n in batches:
            step(jnp.ones((n, 4)))
        if with_scale:
            jax.jit(scale, static_argnums=1)(jnp.ones(3), 2)
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("diff")
    return {
        "base": _record(folder / "base.jsonl", [8, 8, 8, 8]),
        "same": _record(folder / "same.jsonl", [8, 8, 8, 8]),
        # A last partial batch of 5: one more compile of `loss`, and `scale` is gone.
        "worse": _record(folder / "worse.jsonl", [8, 8, 8, 5], with_scale=False),
    }


def _diff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [JITLAB, "diff", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_the_model_pairs_functions_and_names_the_new_signature(runs) -> None:
    base, _ = read_recording(runs["base"])
    worse, _ = read_recording(runs["worse"])
    diff = compare(base, worse)
    by_name = {f.function: f for f in diff.functions}
    assert (by_name["loss"].base_compiles, by_name["loss"].new_compiles) == (1, 2)
    assert by_name["loss"].status == "more"
    assert by_name["loss"].added == ("x: f32[5,4]",) and by_name["loss"].gone == ()
    assert by_name["scale"].status == "gone" and by_name["scale"].new_compiles == 0
    assert diff.functions[0].function == "loss"  # the worst first
    # Whole run: loss +1, scale -1 → not more compiles overall; time is checked on request.
    assert diff.base_compiles == diff.new_compiles == 2
    assert diff.regressions() == []


def test_exit_status_guards_ci(runs) -> None:
    base, same, worse = (str(runs[k]) for k in ("base", "same", "worse"))
    ok = _diff(base, same)
    assert ok.returncode == 0, ok.stderr
    assert "ok" in ok.stdout and "loss" in ok.stdout
    # Without `scale` in the base, the worse run compiles one more program overall.
    only_loss = runs["base"].with_name("only_loss.jsonl")
    _record(only_loss, [8, 8, 8, 8], with_scale=False)
    bad = _diff(str(only_loss), worse)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "regression" in bad.stdout and "loss +1" in bad.stdout
    assert "f32[5,4]" in bad.stdout  # the signature the new run added
    assert _diff(str(only_loss), worse, "--max-extra-compiles", "1").returncode == 0
    # Time lost compiling, when asked for, against the milliseconds the two recordings hold
    # (real compiles: two can take less than one did, e.g. the first in a process).
    # The pair taken in the order in which the new one spent more.
    extra_ms = _ms_compiling(worse) - _ms_compiling(str(only_loss))
    pair = (str(only_loss), worse) if extra_ms > 0 else (worse, str(only_loss))
    gap = abs(extra_ms)
    assert gap > 0.01
    allow = ("--max-extra-compiles", "1", "--max-extra-compile-ms")
    over = _diff(*pair, *allow, f"{gap / 2:.3f}")
    assert over.returncode == 1 and "ms more compiling" in over.stdout, over.stdout
    within = _diff(*pair, *allow, f"{gap + 0.5:.3f}")
    assert within.returncode == 0, within.stdout


def _ms_compiling(path: str) -> float:
    """Trace, lower and compile milliseconds of the recording's compiles (JAX's own
    kernels left out, as `jitlab diff` does unless asked)."""
    recording, _ = read_recording(Path(path))
    return sum(
        c.record.trace_ms + c.record.lower_ms + c.record.compile_ms
        for c in recording.calls
        if c.record.kind.value in ("compile", "recompile", "persistent_hit") and not c.internal
    )


def test_json_for_machines(runs) -> None:
    out = _diff(str(runs["base"]), str(runs["worse"]), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    loss_row = next(f for f in data["functions"] if f["function"] == "loss")
    assert loss_row["compiles"] == {"base": 1, "new": 2}
    assert loss_row["signatures_added"] == ["x: f32[5,4]"]
    assert data["regressions"] == [] and data["skipped_lines"] == {"base": 0, "new": 0}


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["missing.jsonl", "{base}"], "cannot read"),
        (["{folder}", "{base}"], "is a folder"),
        (["{garbage}", "{base}"], "not a recording"),
        (["{base}", "{base}", "--max-extra-compiles", "-1"], "whole number"),
        (["{base}", "{base}", "--max-extra-compile-ms", "nan"], "finite number"),
        (["{base}"], "required"),
    ],
)
def test_bad_input_is_one_line_and_status_2(runs, tmp_path: Path, args, words) -> None:
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"\x00\xff not json\n[1, 2]\n")
    values = {"base": str(runs["base"]), "folder": str(tmp_path), "garbage": str(garbage)}
    out = _diff(*(a.format(**values) for a in args))
    assert out.returncode == 2
    assert out.stdout == ""
    (line,) = program_lines(out.stderr)
    assert line.startswith("jitlab: error: diff") or "error" in line
    assert words in line


def test_on_a_real_terminal(runs) -> None:
    result = run_on_pty([JITLAB, "diff", str(runs["base"]), str(runs["worse"])], columns=100)
    assert result.status == 0, result.output
    assert "loss" in result.output and "1 → 2" in result.output
    assert "\x1b[" in result.output  # colour on a terminal
