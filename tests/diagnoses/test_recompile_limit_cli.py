"""recompile-limit in a real `jitlab watch` of a reproduction of jax#4390 (a jitted loss
called with a batch size that changes every step, synthetic data), counted against JAX's own
compile log (JAX_LOG_COMPILES=1) in the same run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from environment_lines import program_lines

pytestmark = pytest.mark.slow

JITLAB = str(Path(sys.executable).with_name("jitlab"))

PROGRAM = """
import numpy as np
import jax, jax.numpy as jnp

@jax.jit
def loss(batch):
    return jnp.mean(batch ** 2)

@jax.jit
def norm(w):  # one shape: compiles once
    return jnp.sum(w * w)

w = np.ones(4, np.float32)
for step in range(7):
    batch = np.full((step + 1, 4), 2.0, np.float32)  # the batch size changes every step
    print(f"step {step} loss={float(loss(batch)):.1f} norm={float(norm(w)):.1f}", flush=True)
"""
STEPS = 7
WARNING = "jitlab: recompile-limit:"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _program(tmp_path: Path) -> Path:
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(PROGRAM), encoding="utf-8")
    return script


def _env(**more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JITLAB_", "JAX_"))}
    env.update(LANG="C.UTF-8", LC_ALL="C.UTF-8", PYTHONUNBUFFERED="1", **more)
    return env


def _watch(tmp_path, *options, env=None):
    return subprocess.run(
        [JITLAB, *options, "--", "python", str(_program(tmp_path))],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env or _env(),
    )


def _summary_json(path: Path) -> dict:
    done = subprocess.run(
        [JITLAB, "summary", "--json", str(path)], capture_output=True, text=True, timeout=120
    )
    return json.loads(done.stdout)


def test_the_warning_comes_once_the_moment_jax_compiles_past_n(tmp_path):
    sys.path.insert(0, str(Path(__file__).parents[1] / "faults"))
    from ptyrun import run_on_pty

    out = tmp_path / "rec.jsonl"
    argv = [JITLAB, "watch", "--warn-after", "3", "--out", str(out), "--"]
    argv += ["python", str(_program(tmp_path))]
    # On a terminal the program's prints and stderr (JAX's log, jitlab's warning) are one
    # stream in the order they were written.
    result = run_on_pty(argv, env=_env(JAX_LOG_COMPILES="1", TERM="dumb"), timeout=300)
    text = ANSI.sub("", result.output).replace("\r\n", "\n")
    assert result.status == 0, text[-3000:]
    lines = text.splitlines()
    warnings = [i for i, line in enumerate(lines) if line.startswith(WARNING)]
    assert len(warnings) == 1, text[-3000:]
    at = warnings[0]
    compiled = re.compile(r"Compiling (jit\()?loss\b")
    before = [line for line in lines[:at] if compiled.search(line)]
    after = [line for line in lines[at:] if compiled.search(line)]
    assert len(before) == 4  # JAX's own log: the fourth compile of loss is the one past 3
    assert len(before) + len(after) == STEPS  # and JAX compiled it once per step
    steps_before = [line for line in lines[:at] if line.startswith("step ")]
    assert len(steps_before) == 3  # said inside step 3's call, before its print
    warning = lines[at]
    assert "loss (" in warning and "prog.py:5)" in warning
    assert "compiled more than 3 times; in its first 4 compiles" in warning
    assert "the shape of batch changed in 3 of 3 recompiles" in warning
    assert "pad or bucket batch" in lines[at + 1]
    assert lines[at + 2].endswith("jitlab explain recompile-limit")
    assert not any("norm" in line for line in lines if line.startswith(WARNING))

    # The recording keeps it; `jitlab summary` says it (its page too), --json its figures.
    data = _summary_json(out)
    (d,) = [d for d in data["diagnoses"]["0"] if d["id"] == "recompile-limit"]
    assert d["id"] == "recompile-limit" and d["function"] == "loss"
    assert d["figures"] == {
        "compiles": 4,
        "limit": 3,
        "argument": "batch",
        "change": "shape",
        "changed": 3,
        "recompiles": 3,
        "fix": "bucket",
    }
    assert d["page"].endswith("docs/diagnoses/recompile-limit.md") and Path(d["page"]).is_file()
    assert d["explain"] == "jitlab explain recompile-limit" and d["problem"] is True
    recorded = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    calls = [line for line in recorded if line["type"] == "call" and line["function"] == "loss"]
    assert len(calls) == len(before + after)  # jitlab counted what JAX logged
    shown = subprocess.run(
        [JITLAB, "summary", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(COLUMNS="300"),
    ).stdout
    # Folded to the terminal's width like every line: read as one text.
    flat = " ".join(shown[shown.index("recompile-limit ·") :].split())
    assert "in its first 4 compiles" in flat and "(jitlab explain recompile-limit)" in flat


def test_stdout_is_untouched_and_the_variable_sets_n_in_chinese(tmp_path):
    plain = subprocess.run(
        [sys.executable, str(_program(tmp_path))], capture_output=True, text=True, timeout=300
    )
    out = tmp_path / "rec.jsonl"
    done = _watch(tmp_path, "--lang", "zh", "watch", "--out", str(out),
                  env=_env(JITLAB_WARN_AFTER="2"))  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == plain.stdout and done.stdout.count("step ") == STEPS
    warnings = [line for line in program_lines(done.stderr) if line.startswith("jitlab：recompile")]
    assert len(warnings) == 1
    assert warnings[0].startswith("jitlab：recompile-limit：loss")
    assert "编译了超过 2 次；在它的前 3 次编译中" in warnings[0] and "batch" in warnings[0]
    assert "可能的修复：" in done.stderr


def test_warn_after_0_says_nothing_even_with_the_variable_set(tmp_path):
    out = tmp_path / "rec.jsonl"
    done = _watch(tmp_path, "watch", "--warn-after", "0", "--out", str(out),
                  env=_env(JITLAB_WARN_AFTER="1"))  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "recompile-limit" not in done.stderr
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line for line in lines if line["type"] == "diagnosis"] == []
    assert sum(1 for line in lines if line["type"] == "call") == STEPS + 1


def test_a_bad_value_is_one_line_before_the_program_runs(tmp_path):
    cases = [
        (["--warn-after", "-1"], {}),
        (["--warn-after", "lots"], {}),
        (["--warn-after", "2.5"], {}),
        ([], {"JITLAB_WARN_AFTER": "-3"}),
        ([], {"JITLAB_WARN_AFTER": "eight"}),
    ]
    for options, variables in cases:
        out = tmp_path / "rec.jsonl"
        done = _watch(tmp_path, "watch", *options, "--out", str(out), env=_env(**variables))
        assert done.returncode == 2, (options, variables, done.stderr)
        assert done.stdout == ""  # the program never ran
        (line,) = program_lines(done.stderr)
        assert line.startswith("jitlab: error: watch: ")
        assert "a whole number >= 0" in line
        assert ("JITLAB_WARN_AFTER" if variables else "--warn-after") in line
        assert not out.exists()


def test_warn_after_holds_when_python_options_start_the_interpreter_again(tmp_path):
    # -X utf8: jitlab watch starts the interpreter again with it (os.execv): N goes along.
    out = tmp_path / "rec.jsonl"
    argv = [JITLAB, "watch", "--warn-after", "5", "--out", str(out), "--"]
    done = subprocess.run(
        [*argv, "python", "-X", "utf8", str(_program(tmp_path))],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=_env(),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (line,) = [line for line in program_lines(done.stderr) if line.startswith(WARNING)]
    assert "compiled more than 5 times; in its first 6 compiles" in line
