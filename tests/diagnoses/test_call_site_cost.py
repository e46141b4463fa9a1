"""call-site-cost (jax#27993) in a real `jitlab watch`: one jitted function called from two
lines of a program, one line recompiling on every new shape, the other once; compile cost
totalled per calling line and ranked by `jitlab summary` (text, zh and --json), counted
against JAX's own compile log (JAX_LOG_COMPILES=1) in the same run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jitlab.records.diagnoses import CALL_SITE_COST, IDS, Diagnosis, page, sentence

pytestmark = pytest.mark.slow

JITLAB = str(Path(sys.executable).with_name("jitlab"))

PROGRAM = """
import jax, jax.numpy as jnp

@jax.jit
def step(x):
    return jnp.tanh(x) * 2

for n in range(1, 5):
    step(jnp.ones(n))          # SHAPES: a new shape each time, a compile each time
for _ in range(3):
    step(jnp.ones((2, 2)))     # STEADY: one compile, then hits
print("done", flush=True)
"""


def _env(**more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JITLAB_", "JAX_"))}
    env.update(LANG="C.UTF-8", LC_ALL="C.UTF-8", PYTHONUNBUFFERED="1", JITLAB_WARN_AFTER="0")
    env.update(more)
    return env


def _line(script: Path, marker: str) -> str:
    lines = script.read_text(encoding="utf-8").splitlines()
    (number,) = [i for i, text in enumerate(lines, 1) if marker in text]
    return f"{script}:{number}"


def test_compile_cost_is_totalled_per_calling_line_and_ranked(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(PROGRAM), encoding="utf-8")
    out = tmp_path / "run.jsonl"
    done = subprocess.run(
        [JITLAB, "watch", "--out", str(out), "--", "python", str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=_env(JAX_LOG_COMPILES="1"),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stderr.count("Finished XLA compilation of jit(step)") == 5  # JAX's own count
    summary = subprocess.run(
        [JITLAB, "summary", "--json", str(out)], capture_output=True, text=True, env=_env()
    )
    assert summary.returncode == 0, summary.stderr
    sites = json.loads(summary.stdout)["call_sites"]["0"]
    assert sites["id"] == CALL_SITE_COST
    by_line = {s["called_from"]: s for s in sites["sites"]}
    shapes, steady = by_line[_line(script, "SHAPES")], by_line[_line(script, "STEADY")]
    assert (shapes["compiles"], steady["compiles"]) == (4, 1)  # 5, as JAX logged
    # The figures add up, against the call lines of the recording.
    calls = [json.loads(t) for t in out.read_text(encoding="utf-8").splitlines()]
    compiled = [c for c in calls if c.get("type") == "call" and c["function"] == "step"]
    total = sum(c["trace_ms"] + c["lower_ms"] + c["compile_ms"] for c in compiled)
    assert abs(shapes["ms"] + steady["ms"] - total) < 1e-2
    phases = shapes["trace_ms"] + shapes["lower_ms"] + shapes["compile_ms"]
    assert abs(shapes["ms"] - phases) < 1e-3
    ranks = sorted((s["rank"], s["ms"]) for s in sites["sites"])
    assert [ms for _, ms in ranks] == sorted((ms for _, ms in ranks), reverse=True)
    assert shapes["function"] == "step" and shapes["sites"] == 2
    # Four compiles of a tiny function: ranked, but under the floor (1 s): not stated.
    assert shapes["ms"] < 1000 and sites["diagnoses"] == []
    # Past the floor (JITLAB_SITE_COST_FLOOR_MS=0), stated where cache misses cumulated (the
    # line that compiled four times) — as a ranking: each compile was a shape not seen before.
    floor = {"JITLAB_SITE_COST_FLOOR_MS": "0"}
    summary = subprocess.run(
        [JITLAB, "summary", "--json", str(out)], capture_output=True, text=True, env=_env(**floor)
    )
    (stated,) = json.loads(summary.stdout)["call_sites"]["0"]["diagnoses"]
    assert stated["figures"]["called_from"] == _line(script, "SHAPES")
    assert stated["figures"]["wasted"] == 0 and stated["problem"] is False
    assert stated["page"].endswith("docs/diagnoses/call-site-cost.md")
    assert stated["explain"] == "jitlab explain call-site-cost"
    text = subprocess.run(
        [JITLAB, "summary", str(out)], capture_output=True, text=True, env=_env(**floor)
    ).stdout
    assert "Compile cost by call site" in text
    flat = " ".join(text.split())
    assert "call-site-cost (for information, nothing to fix) ·" in flat
    assert "is where compile time goes: 4 compiles cost" in flat
    zh = subprocess.run(
        [JITLAB, "summary", "--lang", "zh", str(out)],
        capture_output=True,
        text=True,
        env=_env(**floor),
    ).stdout
    assert "按调用点统计的编译耗时" in zh and "4 次编译共耗时" in " ".join(zh.split())


def test_the_words_in_both_languages():
    assert CALL_SITE_COST in IDS
    figures = {"called_from": "train.py:42", "compiles": 12, "ms": 3410.2, "trace_ms": 210.0}
    figures.update(lower_ms=600.1, compile_ms=2600.1, rank=1, sites=4, share=0.81, functions=1)
    d = Diagnosis(CALL_SITE_COST, "step", "train.py:10", figures)
    assert Diagnosis.from_json(d.to_json()) == d
    en, zh = sentence(d, "en"), sentence(d, "zh")
    assert not d.problem  # nothing compiled twice, no other diagnosis: a ranking
    assert en.startswith("train.py:42 is where compile time goes: 12 compiles cost 3,410.2 ms")
    assert "81%" in en and "step (train.py:10)" in en and "a ranking, not a fault" in en
    assert "12 次编译共耗时 3,410.2 毫秒" in zh and "排第 1" in zh and "只是排名" in zh
    fault = Diagnosis(CALL_SITE_COST, "step", "train.py:10", {**figures, "wasted": 11})
    assert fault.problem
    en, zh = sentence(fault, "en"), sentence(fault, "zh")
    assert en.startswith("train.py:42: 12 compiles cost 3,410.2 ms")
    assert en.endswith("; 11 of them compiled again a signature compiled before.")
    assert "其中 11 次是把以前编译过的签名又编译了一遍" in zh
    named = Diagnosis(CALL_SITE_COST, "step", None, {**figures, "diagnosed": "identity-static"})
    assert named.problem and "identity-static says what to change" in sentence(named)
    assert Path(page(CALL_SITE_COST)).is_file()
