"""`jitlab run … --script PART`: the program JAX compiled at each compile, from real scenarios."""

from __future__ import annotations

import difflib
import json
import subprocess
import sys

import pytest
from environment_lines import program_lines

pytestmark = pytest.mark.slow


def jitlab(*args: str) -> subprocess.CompletedProcess[str]:
    """A real ``jitlab`` process: for the 8 simulated devices, which JAX fixes at startup."""
    return subprocess.run(
        [sys.executable, "-m", "jitlab.cli", *args], capture_output=True, text=True, timeout=600
    )


@pytest.fixture
def run_here(capsys, monkeypatch):
    """``jitlab ARGS`` through the same ``main()`` in this process (a process per case only
    adds JAX's import time): its exit status, stdout and stderr."""
    import os

    from jitlab.cli import main

    # main() may ask for 8 CPU devices through XLA_FLAGS: keep that out of later tests.
    monkeypatch.setenv("XLA_FLAGS", os.environ.get("XLA_FLAGS", ""))

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        capsys.readouterr()
        try:
            status = main(list(args))
        except SystemExit as exit_:
            status = exit_.code
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, status, out, err)

    return run


def calls(*args: str, run=jitlab) -> list[dict]:
    done = run("run", *args, "--json")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert "summary" in lines[-1]
    return lines[:-1]


def test_unrolled_loop_against_scan_in_equations(run_here) -> None:
    steps = ("--param", "steps=12,12", "--script", "figures")
    unrolled = calls("control-flow", "--variant", "unrolled-loop", *steps, run=run_here)
    scan = calls("control-flow", "--variant", "scan", *steps, run=run_here)
    assert [c["kind"] for c in unrolled] == [c["kind"] for c in scan] == ["compile", "cache_hit"]
    # Only compiles carry a script; figures always come with it.
    assert "script" not in unrolled[1] and "script" not in scan[1]
    many = unrolled[0]["script"]["figures"]
    few = scan[0]["script"]["figures"]
    assert many["equations"] == many["top_level_equations"] == 36
    assert (few["equations"], few["top_level_equations"]) == (4, 1)
    assert many["hlo_instructions"] > few["hlo_instructions"]
    assert "jaxpr" not in scan[0]["script"]  # only the part asked for (figures)
    assert any("loop once" in note for note in scan[0]["script"]["notes"])


def test_batch_13_against_padded_16_in_jaxpr(run_here) -> None:
    raw = calls("dynamic-shapes", "--param", "batch_size=13,16", "--script", "jaxpr", run=run_here)
    padded = calls(
        "dynamic-shapes",
        *("--variant", "fix", "--param", "batch_size=13", "--script", "jaxpr"),
        run=run_here,
    )
    assert [c["kind"] for c in raw] == ["compile", "recompile"]
    thirteen, sixteen = (c["script"] for c in raw)
    assert "f32[13,64]" in thirteen["jaxpr"] and "f32[16,64]" in sixteen["jaxpr"]
    diff = "".join(
        difflib.unified_diff(thirteen["jaxpr"].splitlines(True), sixteen["jaxpr"].splitlines(True))
    )
    assert "13" in diff and "16" in diff
    assert sixteen["figures"]["argument_bytes"] - thirteen["figures"]["argument_bytes"] > 0
    # The fix pads batch 13 to 16 rows: its program takes 16 rows (and a mask).
    fixed = padded[0]["script"]
    assert "f32[16,64]" in fixed["jaxpr"] and "f32[13,64]" not in fixed["jaxpr"]
    lines = fixed["jaxpr_lines"]
    assert lines and all(line["file"].endswith("dynamic_shapes.py") for line in lines[:3])


def test_a_sharding_change_keeps_the_jaxpr_and_changes_the_hlo() -> None:
    layouts = ("sharding", "--param", "layout=rows,features")
    jaxprs = calls(*layouts, "--script", "jaxpr")
    hlos = calls(*layouts, "--script", "hlo")
    assert [c["kind"] for c in jaxprs] == [c["kind"] for c in hlos] == ["compile", "recompile"]
    assert jaxprs[0]["script"]["jaxpr"] == jaxprs[1]["script"]["jaxpr"]
    assert hlos[0]["script"]["hlo"] != hlos[1]["script"]["hlo"]
    assert all(c["script"]["unavailable"] == {} for c in jaxprs + hlos)


def test_text_output_names_each_call_and_prints_the_part(run_here) -> None:
    done = run_here(
        "run", "control-flow", "--variant", "scan", "--param", "steps=5,5", "--script", "stablehlo"
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "# call 0 (Loop steps: 5): compile, card 0" in out
    assert "# call 1 (Loop steps: 5): cache_hit, card 0" in out
    assert "module @jit_rnn_scan" in out and "stablehlo.while" in out
    assert out.count("module @jit_rnn_scan") == 1  # the hit printed no script


@pytest.mark.parametrize(
    ("lang", "said"),
    [("en", "Signature habit: a new partial each step"), ("zh", "签名习惯：每步新建 partial")],
)
def test_the_table_names_each_value_by_its_label(run_here, lang: str, said: str) -> None:
    # Issue 54: `jitlab run` printed `mistake=new-partial`, the ids the code uses.
    done = run_here("--lang", lang, "run", "recompile-cost", "--param", "mistake=new-partial")
    assert done.returncode == 0, done.stderr
    assert said in " ".join(done.stdout.split()), done.stdout
    assert "mistake=" not in done.stdout and "=new-partial" not in done.stdout


@pytest.mark.parametrize("part", ["nonsense", ""])
def test_an_unknown_part_is_a_usage_error(part: str, run_here) -> None:
    done = run_here("run", "control-flow", "--script", part)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(program_lines(done.stderr)) == 1 and "--script" in done.stderr


def test_the_cli_names_every_part_the_core_makes() -> None:
    from jitlab.cli.run import SCRIPT_PARTS
    from jitlab.probe.scripts import PARTS

    assert set(SCRIPT_PARTS) == set(PARTS)
