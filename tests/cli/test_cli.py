"""The `jitlab` command: the seed's demo as acceptance, and clear usage errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from environment_lines import program_lines

pytestmark = pytest.mark.slow


def jitlab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jitlab.cli", *args], capture_output=True, text=True, timeout=600
    )


def json_lines(done: subprocess.CompletedProcess[str]) -> tuple[list[dict], dict]:
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    return lines[:-1], lines[-1]["summary"]


def test_seed_demo_through_the_cli():
    records, summary = json_lines(
        jitlab("run", "dynamic-shapes", "--param", "batch_size=8,8,16,8,32,8", "--json")
    )
    kinds = [r["kind"] for r in records]
    assert kinds == ["compile", "cache_hit", "recompile", "cache_hit", "recompile", "cache_hit"]
    for field in (
        "index",
        "latency_ms",
        "trace_ms",
        "lower_ms",
        "compile_ms",
        "params",
        "signature",
        "reason",
        "error",
        "stdout",
    ):
        assert all(field in r for r in records), field
    assert [r["params"]["batch_size"] for r in records] == [8, 8, 16, 8, 32, 8]
    assert records[1]["reason"] is None and records[1]["error"] is None
    assert "x: f32[16,64] ← f32[8,64]" in records[2]["reason"]["changes"]
    assert records[4]["reason"]["changes"][0] in (
        "x: f32[32,64] ← f32[16,64]",
        "x: f32[32,64] ← f32[8,64]",
    )
    # "compiles" counts every program compiled, recompiles included (one meaning everywhere)
    assert summary["calls"] == 6 and summary["compiles"] == 3 and summary["recompiles"] == 2
    assert summary["cache_hits"] == 3 and summary["errors"] == 0
    assert summary["compile_ms"] == pytest.approx(sum(r["compile_ms"] for r in records), abs=0.01)


def test_fix_variant_compiles_once_per_bucket():
    sizes = ",".join(str(n) for n in range(1, 101))
    records, summary = json_lines(
        jitlab(
            "run",
            "dynamic-shapes",
            "--variant",
            "fix",
            "--param",
            f"batch_size={sizes}",
            "--param",
            "depth=1",
            "--json",
        )
    )
    compiled = [r["params"]["batch_size"] for r in records if r["kind"] in ("compile", "recompile")]
    # Buckets 1, 2, 4, …, 128: one compile each, on the first size that lands in it.
    assert compiled == [1, 2, 3, 5, 9, 17, 33, 65]
    assert summary["compiles"] == 8


def test_list_shows_scenarios_variants_and_parameters():
    done = jitlab("list")
    assert done.returncode == 0, done.stderr
    assert "dynamic-shapes" in done.stdout and "batch_size" in done.stdout
    assert "pitfall, fix" in done.stdout


def test_table_output_is_readable():
    done = jitlab("run", "dynamic-shapes", "--param", "batch_size=4,4")
    assert done.returncode == 0, done.stderr
    assert "compile" in done.stdout and "cache_hit" in done.stdout and "hit rate 50%" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("run", "nope"), "unknown scenario 'nope'; valid scenarios: "),
        (("run", "dynamic-shapes", "--variant", "x"), "valid variants: pitfall, fix"),
        (("run", "dynamic-shapes", "--param", "foo=1"), "valid parameters: batch_size, depth"),
        (("run", "dynamic-shapes", "--param", "batch_size=0"), "an integer in 1…1024, not 0"),
        (("run", "dynamic-shapes", "--param", "batch_size=2000"), "an integer in 1…1024"),
        (("run", "dynamic-shapes", "--param", "batch_size=abc"), "an integer in 1…1024"),
        (("run", "dynamic-shapes", "--param", "batch_size"), "expects NAME=V1,V2"),
        (("--bogus",), "unrecognized arguments: --bogus"),
        (("frobnicate",), "invalid choice"),
        (("open", "/no/such/recording.jsonl", "--no-follow"), "no such recording"),
        (("open", "/"), "is a folder, not a recording"),
        (("watch",), "watch needs a program"),
        (("watch", "--", "python", "/no/such/script.py"), "no such script"),
    ],
)
def test_usage_errors_are_one_line_with_status_2(args, message, capsys, monkeypatch):
    # In this process (a fresh interpreter per case only adds JAX's import time): the same
    # main() the `jitlab` script runs; the test after this one goes through a process too.
    import os

    from jitlab.cli import main

    # main() may ask for 8 CPU devices through XLA_FLAGS: keep that out of later tests.
    monkeypatch.setenv("XLA_FLAGS", os.environ.get("XLA_FLAGS", ""))

    with pytest.raises(SystemExit) as exit_:
        main(list(args))
    out, err = capsys.readouterr()
    assert exit_.value.code == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err, err


def test_a_usage_error_through_a_real_process():
    done = jitlab("run", "dynamic-shapes", "--param", "batch_size=0")
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(program_lines(done.stderr)) == 1 and "an integer in 1…1024, not 0" in done.stderr


def test_no_display_is_a_clear_error_not_a_crash():
    import os

    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    done = subprocess.run(
        [sys.executable, "-m", "jitlab.cli"], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 1
    assert done.stderr.strip().startswith("jitlab: error: no display to open a window on")


def test_reasons_in_the_table_follow_the_language(capsys):
    from jitlab.cli import main

    assert main(["--lang", "zh", "run", "dynamic-shapes", "--param", "batch_size=8,16"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "形状变了" in out and "首次调用" in out
    assert "first call" not in out
