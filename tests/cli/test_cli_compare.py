"""`jitlab run SCENARIO --compare`: the pitfall and the fix on the same calls, and the
lesson's verdict, in English and Chinese, with the same keys for every scenario (issue 21)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from jitlab.lab.discovery import discover, scenarios

pytestmark = pytest.mark.slow

# What each built-in's fix changes, as each declares it: a new built-in is compared here too.
LESSONS = {
    sid: cls.comparison().measure.value
    for sid, cls in scenarios(discover(entry_points=False)).items()
}
KEYS = {"measure", "calls", "pitfall", "fix", "better", "verdict"}
SIDE_KEYS = {"calls", "compiles", "errors", "runtime_lines", "trace_lines", "counter"}
CJK = re.compile(r"[\u4e00-\u9fff]")


def compare(*args: str) -> tuple[list[dict], dict]:
    done = subprocess.run(
        [sys.executable, "-m", "jitlab.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    return lines[:-1], lines[-1]["compare"]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("sid", sorted(LESSONS))
def test_compare_gives_the_lessons_verdict(sid: str, lang: str) -> None:
    calls, verdict = compare("--lang", lang, "run", sid, "--compare", "--json")
    assert set(verdict) >= KEYS and set(verdict["pitfall"]) >= SIDE_KEYS
    assert verdict["measure"] == LESSONS[sid]
    assert verdict["better"] == "fix", verdict["verdict"]
    n = verdict["calls"]
    # Both variants made the same calls, one JSON line each, before the verdict.
    pitfall = [c for c in calls if c["variant"] == "pitfall"]
    fix = [c for c in calls if c["variant"] == "fix"]
    assert len(pitfall) == len(fix) == n == verdict["pitfall"]["calls"]
    assert [c["params"] for c in pitfall] == [c["params"] for c in fix]
    p, f = verdict["pitfall"], verdict["fix"]
    assert p["errors"] == sum(c["kind"] == "error" for c in pitfall)
    assert f["compiles"] == sum(c["kind"] in ("compile", "recompile") for c in fix)
    if LESSONS[sid] == "errors":
        assert f["errors"] < p["errors"]
    elif LESSONS[sid] == "compiles":
        assert f["compiles"] < p["compiles"]
    elif LESSONS[sid] == "output":  # the fix's print ran on every call, the pitfall's once
        assert (p["trace_lines"], p["runtime_lines"]) == (1, 0) and f["runtime_lines"] == n
    else:
        assert f["program_size"] < p["program_size"]
    sentence = verdict["verdict"]
    assert bool(CJK.search(sentence)) == (lang == "zh")
    assert sentence.endswith("。" if lang == "zh" else ".")


def test_compare_runs_another_face_and_a_given_sequence() -> None:
    # --variant picks the face: an unrolled loop against lax.scan, judged by program size.
    _, verdict = compare("run", "control-flow", "--compare", "--variant", "scan", "--json")
    assert verdict["measure"] == "program_size" and verdict["better"] == "fix"
    assert verdict["pitfall"]["program_size"] > verdict["fix"]["program_size"]
    # --param with several values replaces the sequence: the seed's sizes are already
    # buckets, so there the fix compiles as often as the pitfall and the verdict says so.
    _, verdict = compare(
        "run", "dynamic-shapes", "--compare", "--param", "batch_size=8,8,16,8,32,8", "--json"
    )
    assert verdict["calls"] == 6 and verdict["better"] == "same"
    assert verdict["pitfall"]["compiles"] == verdict["fix"]["compiles"] == 3
    assert "saves no compile" in verdict["verdict"]


def test_compare_prints_a_table_and_the_verdict_in_chinese() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "jitlab.cli", "--lang", "zh", "run", "static-args", "--compare"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "陷阱版" in done.stdout and "修正版" in done.stdout
    assert "5 次调用全部失败（ConcretizationTypeError）" in done.stdout


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_runs_that_all_failed_give_no_verdict(lang):
    """One device and no simulated ones (XLA told 1 CPU device before JAX starts, as on a
    machine where the sharding lesson cannot make a mesh): every call of both runs fails, and
    the comparison says there is no verdict instead of "the fix saves no compile"."""
    env = {
        **os.environ,
        "XLA_FLAGS": "--xla_force_host_platform_device_count=1",
        "JAX_PLATFORMS": "cpu",
    }
    done = subprocess.run(
        [sys.executable, "-m", "jitlab.cli", "--lang", lang, "run", "sharding", "--compare"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    said = "No verdict: every call of both runs failed" if lang == "en" else "没有结论"
    assert said in text, text
    assert "saves" not in text and "省" not in text, text
    done = subprocess.run(
        [sys.executable, "-m", "jitlab.cli", "run", "sharding", "--compare", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    verdict = json.loads(done.stdout.splitlines()[-1])["compare"]
    assert verdict["better"] == "unknown" and verdict["note"] is None, verdict
    assert verdict["pitfall"]["errors"] == verdict["pitfall"]["calls"] > 0
