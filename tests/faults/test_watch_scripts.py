"""`jitlab watch --scripts`: each compile's figures (and texts on request) in the recording,
never counted as a compile, never breaking the program."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitlab
from jitlab.probe import scripts
from jitlab.recordings.reader import read_recording
from jitlab.recordings.summary import summarize
from jitlab.records.lines import RecordedScript
from jitlab.records.scripts import Figures, Script

pytestmark = pytest.mark.slow

JITLAB = str(Path(sys.executable).with_name("jitlab"))

PROGRAM = """
import jax, jax.numpy as jnp

@jax.jit
def step(x, w):
    return jnp.tanh(x @ w).sum()

w = jnp.ones((16, 8))
for n in (4, 4, 4, 6, 6, 4):
    print("loss", float(step(jnp.ones((n, 16)), w)))
"""


def watch(tmp_path: Path, *options: str) -> tuple[subprocess.CompletedProcess[str], list[dict]]:
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(PROGRAM), encoding="utf-8")
    out = tmp_path / f"rec{len(options)}{'-'.join(options)}.jsonl"
    done = subprocess.run(
        [JITLAB, "watch", "--out", str(out), *options, "--", "python", str(script)],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    return done, [json.loads(line) for line in out.read_text().splitlines()]


def _shape(line: dict) -> tuple:
    return (line["type"], line.get("kind"), line.get("index"), line.get("card"))


def test_scripts_keep_figures_per_compile_and_change_no_count(tmp_path):
    plain, without = watch(tmp_path)
    done, lines = watch(tmp_path, "--scripts")
    assert done.stdout == plain.stdout  # the program's output is untouched
    # The same call lines and final hits as without --scripts: no extra compile, no lost
    # hit (how many hits lines come between depends on time: they are flushed every second).
    calls = [_shape(x) for x in lines if x["type"] in ("call", "end")]
    assert calls == [_shape(x) for x in without if x["type"] in ("call", "end")]
    final = {x["function"]: x["hits"] for x in lines if x["type"] == "hits"}
    assert final == {x["function"]: x["hits"] for x in without if x["type"] == "hits"}
    assert [x["kind"] for x in lines if x["type"] == "call"] == ["compile", "recompile"]
    assert lines[0]["scripts"] == "figures" and "scripts" not in without[0]
    made = [x for x in lines if x["type"] == "script"]
    assert [(x["card"], x["created_by"]) for x in made] == [(0, 0), (1, 3)]
    # Each script line comes right after the call line of the compile that made it.
    for script in made:
        before = lines[lines.index(script) - 1]
        assert before["type"] == "call" and before["index"] == script["created_by"]
    figures = [Figures.from_json(x["script"]["figures"]) for x in made]
    assert all(f.equations >= 2 and f.hlo_instructions for f in figures)
    assert figures[0].flops and figures[1].flops > figures[0].flops  # 6 rows, not 4
    assert figures[1].argument_bytes == (6 * 16 + 16 * 8) * 4
    assert all(f.output_bytes == 4 and f.temp_bytes is not None for f in figures)
    assert all(f.compile_ms is not None and f.compile_ms > 0 for f in figures)
    # Figures only: the texts are not kept, and the script says how to get them.
    body = made[0]["script"]
    assert "hlo" not in body and "jaxpr" not in body and "def step" in body["source"]
    assert "--script-texts" in body["unavailable"]["hlo"]
    # Read back: typed, no line skipped; the summary is the one without scripts.
    recording, _ = read_recording(tmp_path / "rec1--scripts.jsonl")
    assert recording.bad_lines == 0 and recording.start.scripts == "figures"
    got = recording.scripts[(("step", recording.calls[0].defined_at), 1)]
    assert isinstance(got, RecordedScript) and got.script.figures == figures[1]
    assert got.script.text("hlo").startswith("unavailable: not kept")
    old, _ = read_recording(tmp_path / "rec0.jsonl")
    as_summary = [(s.function, s.executables, s.recompiles, s.hits) for s in summarize(recording)]
    assert as_summary == [(s.function, s.executables, s.recompiles, s.hits) for s in summarize(old)]
    assert "2 scripts" in " ".join(done.stderr.split())


def test_script_texts_keep_jaxpr_stablehlo_and_hlo(tmp_path):
    _, lines = watch(tmp_path, "--script-texts")
    assert lines[0]["scripts"] == "texts"
    made = [Script.from_json(x["script"]) for x in lines if x["type"] == "script"]
    assert len(made) == 2
    for script in made:
        assert "tanh" in script.jaxpr and "dot_general" in script.jaxpr
        assert "stablehlo.tanh" in script.stablehlo and "ENTRY" in script.hlo
        assert script.jaxpr_lines and script.jaxpr_lines[0].file.endswith("prog.py")
        assert script.unavailable == {}
    assert made[0].signature.leaves[0].shape == (4, 16)
    assert made[1].signature.leaves[0].shape == (6, 16)


def test_in_process_scripts_are_no_compile_of_a_budget_or_the_recording(tmp_path):
    path = tmp_path / "run.jsonl"
    with jitlab.watch(path, scripts=True) as recorder, jitlab.budget(2) as guard:

        @jax.jit
        def f(x):
            return jnp.sin(x) * 2

        for n in (3, 3, 5, 5, 3):
            f(jnp.ones(n))
    assert len(guard.compiles) == 2  # the two scripts made meanwhile are not compiles
    assert [c.record.kind.value for c in recorder.calls] == ["compile", "recompile"]
    assert [(s.card, s.created_by) for s in recorder.recorded_scripts] == [(0, 0), (1, 2)]
    assert all(s.script.figures.equations == 2 for s in recorder.recorded_scripts)
    recording, _ = read_recording(path)
    (row,) = summarize(recording)
    assert (row.executables, row.recompiles, row.hits) == (2, 1, 3)  # hits are still hits
    assert len(recording.scripts) == 2


def test_a_script_that_cannot_be_made_is_recorded_with_its_reason(tmp_path, monkeypatch):
    def broken(probe, card, stablehlo=True, *, view=False):
        raise RuntimeError("no script today\nsecond line")

    monkeypatch.setattr(scripts, "make_script", broken)
    path = tmp_path / "run.jsonl"
    with jitlab.watch(path, scripts="texts") as recorder:

        @jax.jit
        def g(x):
            return x + 1

        assert float(g(jnp.float32(1))) == 2.0  # the program goes on
    (made,) = recorder.recorded_scripts
    assert made.script is None and made.why == "RuntimeError: no script today"
    recording, _ = read_recording(path)
    assert recording.bad_lines == 0
    (kept,) = recording.scripts.values()
    assert kept.script is None and kept.why == made.why


def test_without_scripts_nothing_changes_and_a_bad_mode_is_refused(tmp_path):
    path = tmp_path / "run.jsonl"
    with jitlab.watch(path) as recorder:
        jax.jit(lambda x: x * 3)(jnp.ones(2))
    assert recorder.recorded_scripts == []
    assert not any('"script"' in line for line in path.read_text().splitlines())
    with pytest.raises(ValueError, match="scripts="):
        jitlab.watch(path, scripts="everything").__enter__()


def test_a_damaged_script_line_is_skipped_and_counted(tmp_path):
    path = tmp_path / "run.jsonl"
    good = RecordedScript("f", "a.py:1", 0, 0, None, "why", 0.5).to_json()
    lines = [
        {"type": "start", "argv": [], "time": 1.0, "scripts": "figures"},
        good,
        {**good, "card": "zero"},
        {**good, "script": {"function": "f"}},  # no card: Script.from_json cannot take it
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    recording, _ = read_recording(path)
    assert recording.bad_lines == 2 and len(recording.scripts) == 1


def test_each_function_object_of_one_definition_site_gets_its_script(tmp_path):
    def make(scale):
        return jax.jit(lambda x: x * scale)  # one site, a new function object each time

    with jitlab.watch(tmp_path / "run.jsonl", scripts=True) as recorder:
        for i in range(3):
            f = make(float(i))
            f(jnp.ones(4))
            f(jnp.ones(4))
    kinds = [c.record.kind.value for c in recorder.calls]
    assert kinds == ["compile", "recompile", "recompile"]
    made = recorder.recorded_scripts
    assert [s.card for s in made] == [0, 1, 2]
    assert all(s.script is not None and s.script.figures is not None for s in made), [
        s.script.unavailable for s in made if s.script is not None
    ]
