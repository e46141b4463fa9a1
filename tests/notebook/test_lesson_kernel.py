"""Every built-in scenario's lesson notebook runs top to bottom in a real kernel.

One kernel per notebook (:func:`nbrun.execute`: this venv's Python, through a kernel spec
written into the test's folder, so no installed ``python3`` kernel is picked): no cell fails
but the ones tagged ``raises-exception``, which must raise the lesson's error; the verdicts
the notebook displays agree with the lab's own (:func:`jitlab.lab.verdict_run.run_comparison`,
what the app's Complete page and ``jitlab run --compare`` judge), and each exercise's answer
with the quiz's own run. One language per scenario runs here (the other is built and
validated in test_lesson_export.py).
"""

from __future__ import annotations

import html
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nbformat")
pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

# No simulate_cpu_devices here: a module's import runs in every xdist worker at collection,
# and other files' tests need the one-device backend (lab_verdicts asks a subprocess instead).
from nbrun import execute

import jitlab
from jitlab.lab.discovery import scenarios
from jitlab.notebook.lesson import RAISES, build, comparisons
from jitlab.notebook.words import say

pytestmark = pytest.mark.slow

# What the notebook's verdict and the lab's must share: everything but the clock.
SIDE_FIELDS = (
    "calls",
    "compiles",
    "errors",
    "error_types",
    "cache_hits",
    "trace_lines",
    "runtime_lines",
    "printed_calls",
    "counter",
    "program_size",
)
# One language per scenario in a kernel: Chinese for two of them, so its words run too.
# The question's own count, written out by hand (issue 42): printed lines for side-effects.
QUESTION_COUNTS = {
    "side-effects": 1,
    "static-args": 3,
    "dynamic-shapes": 3,
    "recompile-cost": 2,
    "sharding": 3,
}
KERNEL_RUNS = (
    ("side-effects", "en"),
    ("static-args", "en"),
    ("control-flow", "zh"),
    ("dynamic-shapes", "en"),
    ("recompile-cost", "en"),
    ("error-debugging", "en"),
    ("sharding", "zh"),
)


def jitlab_outputs(nb: Any, key: str) -> list[Any]:
    """The ``{"jitlab": {key: …}}`` JSON the lesson's cells display, in cell order."""
    found = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {}).get("application/json")
            if isinstance(data, dict) and key in data.get("jitlab", {}):
                found.append(data["jitlab"][key])
    return found


def comparable(verdict: dict[str, Any]) -> dict[str, Any]:
    """A verdict's JSON without what the clock decides (timing, milliseconds)."""
    out = {k: verdict[k] for k in ("measure", "calls", "better", "like_with_like")}
    for side in ("pitfall", "fix"):
        out[side] = {k: verdict[side][k] for k in SIDE_FIELDS}
    if verdict["measure"] not in ("program_size", "latency"):  # their sentences hold times
        out["verdict"] = verdict["verdict"]
    return out


def lab_verdicts(scenario_id: str, lang: str) -> list[dict[str, Any]]:
    """The lab's own verdicts on the lesson's comparisons (jitlab.lab.verdict_run, what the
    app's Complete page and `jitlab run --compare` judge), in the notebook's order.

    In this process when JAX sees the devices the lesson needs; else (a worker whose JAX
    started with one device, and the sharding lesson) through `jitlab run --compare --json`,
    which runs the same function in a process that asks for 8 devices first."""
    import jax

    from jitlab.lab.verdict_run import run_comparison

    scenario = scenarios()[scenario_id]
    out = []
    for comparison in comparisons(scenario):
        if scenario_id != "sharding" or jax.device_count() >= 2:
            out.append(run_comparison(scenario, comparison).to_json(lang))
            continue
        command = [sys.executable, "-m", "jitlab.cli", "--lang", lang, "run", scenario_id]
        done = subprocess.run(
            [*command, "--compare", "--json", "--variant", comparison.pitfall],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        out.append(json.loads(done.stdout.splitlines()[-1])["compare"])
    return out


def _needs_the_magic() -> None:
    if not hasattr(jitlab, "load_ipython_extension"):
        pytest.skip(
            "`%load_ext jitlab` (jitlab.load_ipython_extension, issue 25 part A) is missing"
        )


@pytest.mark.parametrize(("scenario_id", "lang"), KERNEL_RUNS)
def test_lesson_runs_top_to_bottom_and_agrees_with_the_lab(
    scenario_id: str, lang: str, tmp_path: Path
) -> None:
    _needs_the_magic()
    scenario = scenarios()[scenario_id]
    nb = build(scenario, lang)
    # A learner's prediction, with a number in it: the verdict checks it against the runs.
    (asked,) = [c for c in nb.cells if c.source.startswith('prediction = ""')]
    asked.source = 'prediction = "3 compiles"' if lang == "en" else 'prediction = "三次"'
    nb = execute(nb, tmp_path)
    expected = lab_verdicts(scenario_id, lang)

    # No cell failed but those the lesson means to fail, and those raised the lesson's error.
    raising = [c for c in nb.cells if RAISES in c.metadata.get("tags", [])]
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if cell not in raising:
            assert not errors, (cell.source, [(e.ename, e.evalue) for e in errors])
    lessons = comparisons(scenario)
    erring = [(c, v) for c, v in zip(lessons, expected, strict=True) if c.measure.value == "errors"]
    assert len(raising) == len(erring)
    for cell, (_, verdict) in zip(raising, erring, strict=True):
        names = [o.ename for o in cell.outputs if o.output_type == "error"]
        assert names == [verdict["pitfall"]["error_types"][0]], cell.source

    # Every %%jitlab cell showed what jax.jit did in it (the magic's table).
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.startswith("%%jitlab"):
            shown = [o for o in cell.outputs if o.output_type in ("display_data", "execute_result")]
            assert any("text/html" in o.data for o in shown), cell.source

    # The predicted-vs-measured cells: the lab's verdicts, measured again in the kernel.
    measured = jitlab_outputs(nb, "verdict")
    assert [comparable(v) for v in measured] == [comparable(v) for v in expected]
    assert all(v["better"] == "fix" for v in measured)  # every lesson's fix does better

    # The prediction, graded on the question's own calls (run for it), not on the comparison.
    verdict_cell = next(c for c in nb.cells if c.source.startswith("verdict = lesson.verdict("))
    words = "".join(o["data"]["text/plain"] for o in verdict_cell.outputs if "data" in o)
    # Paragraphs that wrap between words (plain text broke the verdict mid-word), in HTML.
    shown = "".join(o["data"].get("text/html", "") for o in verdict_cell.outputs if "data" in o)
    assert "<p><strong>" in shown and measured[0]["verdict"].split("(")[0] in html.unescape(shown)
    answer = scenario.question_run
    if answer is None:  # not a count (control-flow: what sign(3.0) returns)
        assert jitlab_outputs(nb, "prediction") == []
        assert ("不是一个次数" if lang == "zh" else "not answered by a count") in words
    elif answer.counts.value == "nothing":  # no number asked (error-debugging): its answers
        (check,) = jitlab_outputs(nb, "prediction")
        assert check["right"] is None and check["answers"], check
        assert all(part in words for part in check["answers"]), words
    else:
        (check,) = jitlab_outputs(nb, "prediction")
        expected_count = QUESTION_COUNTS[scenario_id]
        assert check["said"] == 3 and check["count"] == expected_count
        assert check["right"] == (expected_count == 3)
        said = "你说 3：" if lang == "zh" else "You said 3: "
        assert said in words and check["text"] in words
        assert words.index(check["text"]) < words.index(measured[0]["verdict"])

    # The scripts section: a script for every card the ScriptLesson names, and how two differ.
    scripts = jitlab_outputs(nb, "script")
    assert len(scripts) == len(scenario.scripts.compare) and None not in scripts
    refs = scenario.scripts.compare
    assert [s["variant"] for s in scripts] == [r.variant for r in refs]
    (cell,) = [c for c in nb.cells if c.source == "lesson_scripts = lesson.scripts()"]
    shown = [o["data"]["text/html"] for o in cell.outputs if "text/html" in o.get("data", {})]
    assert len(shown) == len(scripts) and all("jaxpr" in html for html in shown)
    # …in the lesson's language (issue 54: a Chinese lesson's scripts were English).
    heading = say("script.figures", lang)
    assert all(heading in html for html in shown), heading
    plain = [o["data"]["text/plain"] for o in cell.outputs if "text/plain" in o.get("data", {})]
    assert not any("\x1b[" in text for text in plain)  # no terminal colours in the diff
    if len(scripts) == 2:
        (diff,) = jitlab_outputs(nb, "scripts_diff")
        assert not (diff["same_jaxpr"] and diff["same_stablehlo"])  # the lesson shows a change

    # Each exercise: the answer the quiz's own run gives (a claim about time: answered).
    answers = {a["id"]: a["answer"] for a in jitlab_outputs(nb, "exercise")}
    declared = {e.id: e for e in scenario.exercises}
    assert list(answers) == list(declared)
    for exercise_id, exercise in declared.items():
        outcome = exercise.run()
        if outcome.skipped is not None:  # this process has fewer devices than the kernel
            continue
        assert outcome.answer is not None, outcome
        if exercise.claim is None:
            assert answers[exercise_id] == outcome.answer.value, exercise_id
        else:  # a claim, some about time: answered with one of its options
            assert answers[exercise_id] in [o.id for o in exercise.options], exercise_id
