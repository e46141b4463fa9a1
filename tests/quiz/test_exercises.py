"""Every exercise runs for real; its computed answer must be what this JAX version does.

Each exercise's author writes the answer they expect beside it (``expected``), and the product
never reads it: the quiz computes its answers from the run, and these tests catch a JAX upgrade
that changes a behaviour the quiz teaches.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import jax
import numpy as np
import pytest
from environment_lines import program_lines

from jitlab.cli.quiz import build_parser, run
from jitlab.lab.discovery import discover
from jitlab.lab.exercise import NO_ERROR, AnswerKind
from jitlab.quiz import exercises as catalogue
from jitlab.quiz.interview import Interview

pytestmark = pytest.mark.slow

# What each exercise's author expects from this JAX is written beside the exercise
# (``Exercise.expected``), never in the product's answer: the quiz reads the answer off the
# run, and these tests catch a JAX upgrade that changes a behaviour the quiz teaches.
EXPECTED = {e.id: e.expected for e in catalogue.EXERCISES}

# The built-ins, as discovery finds them in the built-ins' folder: adding one is its file.
BUILTINS = {e.name for e in discover(entry_points=False) if e.ok}

SINGLE_DEVICE = [e.id for e in catalogue.EXERCISES if e.min_devices == 1]
MULTI_DEVICE = [e.id for e in catalogue.EXERCISES if e.min_devices > 1]
CJK = re.compile(r"[\u4e00-\u9fff]")
ENV = {**os.environ, "JAX_PLATFORMS": "cpu"}


@pytest.fixture(scope="module")
def outcomes():
    """Each single-device exercise run once, shared by the tests below."""
    return {exercise_id: catalogue.get(exercise_id).run() for exercise_id in SINGLE_DEVICE}


# -- the catalogue ----------------------------------------------------------------------------
def test_catalogue_covers_every_pitfall_and_sharding():
    assert len(catalogue.EXERCISES) >= 20
    assert {e.scenario for e in catalogue.EXERCISES} == BUILTINS
    missing = [i for i, expected in EXPECTED.items() if expected is None]
    assert missing == [], "every built-in exercise writes the answer it expects"
    assert len(catalogue.BY_ID) == len(catalogue.EXERCISES), "exercise ids must be unique"
    claims = {e.id for e in catalogue.EXERCISES if e.misconception}
    assert {"jit-always-faster", "cond-both-branches", "static-is-free"} <= claims
    assert "block-until-ready" in claims
    kinds = {e.kind for e in catalogue.EXERCISES}
    assert kinds == set(AnswerKind)


@pytest.mark.parametrize("exercise", catalogue.EXERCISES, ids=lambda e: e.id)
def test_texts_are_bilingual_and_the_source_is_the_snippet(exercise):
    texts = [exercise.title, exercise.question, exercise.explanation]
    texts += [o.label for o in exercise.options if o.label.en != o.label.zh]
    if exercise.claim:
        texts.append(exercise.claim)
    for text in texts:
        assert text.en and text.zh and text.en != text.zh
        assert CJK.search(text.zh) and not CJK.search(text.en)
        assert text.get("zh_CN") == text.zh and text.get("en") == text.en
    assert exercise.source.startswith(f"def {exercise.snippet.__name__}(lab):")
    assert exercise.kind is not AnswerKind.CHOICE or len(exercise.options) >= 2
    if exercise.kind is AnswerKind.ERROR:
        assert exercise.options[0].id == NO_ERROR


# -- every snippet, for real ------------------------------------------------------------------
@pytest.mark.parametrize("exercise_id", SINGLE_DEVICE)
def test_computed_answer_matches_this_jax(outcomes, exercise_id):
    outcome = outcomes[exercise_id]
    assert outcome.failure is None and outcome.skipped is None
    assert outcome.answer is not None
    assert outcome.answer.value == EXPECTED[exercise_id]
    assert outcome.answer.detail.en and CJK.search(outcome.answer.detail.zh)


def test_evidence_behind_the_answers(outcomes):
    kinds = {i: outcomes[i].evidence.kinds for i in SINGLE_DEVICE}
    assert kinds["shape-sequence"] == (
        "compile",
        "cache_hit",
        "recompile",
        "cache_hit",
        "recompile",
        "cache_hit",
    )
    assert kinds["aot-warmup"] == ("cache_hit", "cache_hit", "cache_hit", "compile")
    assert kinds["jit-in-loop"] == ("compile", "compile", "compile")
    printed = outcomes["print-in-jit"].evidence.printed
    assert [line.when for line in printed] == ["trace", "trace"]
    assert [line.when for line in outcomes["debug-print"].evidence.printed] == ["runtime"] * 3
    # cond: both branches traced (one print each), one debug print per call at run time
    cond = outcomes["cond-both-branches"].evidence
    assert sorted(line.text for line in cond.printed if line.when == "trace") == [
        "tracing grow",
        "tracing shrink",
    ]
    assert [[line.text for line in r.stdout if line.when == "runtime"] for r in cond.records] == [
        ["grow runs"],
        ["shrink runs"],
    ]
    # which compiles faster: the robust quantity is the size of the program
    facts = outcomes["unrolled-vs-fori"].evidence.facts
    assert facts["unrolled_equations"] == 600 and facts["rolled_equations"] == 1
    # each program really compiled twice (fresh function objects), so the answer is the
    # faster of two real compiles each
    kinds = [r.kind for r in outcomes["unrolled-vs-fori"].evidence.records]
    assert kinds == ["compile"] * 4
    # jit is not always faster: the first call compiled, the eager one did not
    first = outcomes["jit-always-faster"].evidence.records[0]
    assert first.kind == "compile" and first.compile_ms > 0
    assert outcomes["block-until-ready"].evidence.facts["ready_when_timer_stopped"] is False
    assert outcomes["stale-setting"].evidence.facts["results"] == [2, 2, 2]
    leaked = outcomes["leaked-tracer"].evidence
    assert leaked.raised is not None and leaked.records[0].kind == "compile"
    assert outcomes["repeat-traced"].evidence.records[0].kind == "error"


@pytest.mark.parametrize("exercise_id", MULTI_DEVICE)
def test_sharding_exercise_skips_with_one_device(exercise_id):
    assert jax.device_count() == 1  # pytest's backend started with one CPU device
    outcome = catalogue.get(exercise_id).run()
    assert outcome.answer is None and outcome.evidence is None
    assert "2 devices" in outcome.skipped.en and "jitlab quiz" in outcome.skipped.en
    exercise = catalogue.get(exercise_id)
    verdict = exercise.check(exercise.options[0].id if exercise.options else 3, outcome)
    assert not verdict.correct and verdict.answer is None


def test_sharding_exercises_in_a_process_with_8_devices():
    done = subprocess.run(
        [sys.executable, "-m", "jitlab.cli.quiz", "--solve", "--scenario", "sharding", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert {line["exercise"]: line["answer"] for line in lines} == {
        i: EXPECTED[i] for i in MULTI_DEVICE
    }
    by_id = {line["exercise"]: line for line in lines}
    assert by_id["layout-traces"]["evidence"]["compiles"] == 3
    assert "ValueError" in by_id["uneven-split"]["also"]
    assert by_id["layout-compiles"]["evidence"]["devices"] == 8


# -- predictions and verdicts -----------------------------------------------------------------
def test_right_and_wrong_predictions(outcomes):
    shapes = catalogue.get("shape-sequence")
    outcome = outcomes["shape-sequence"]
    right, wrong = shapes.check("3", outcome), shapes.check(6, outcome)
    assert right.correct and right.exact and right.prediction == 3
    assert not wrong.correct and wrong.answer.value == 3
    late = shapes.check(3, outcome, timed_out=True)
    assert late.timed_out and not late.correct

    claim = catalogue.get("jit-always-faster")
    assert claim.check("b", outcomes["jit-always-faster"]).correct  # b = false
    assert not claim.check("true", outcomes["jit-always-faster"]).correct

    cond = catalogue.get("cond-both-branches")
    assert cond.check("both-traced", outcomes["cond-both-branches"]).correct
    assert not cond.check("a", outcomes["cond-both-branches"]).correct  # a = both-run


def test_error_predictions_name_the_type_or_a_base_class(outcomes):
    if_tracer = catalogue.get("if-on-tracer")
    outcome = outcomes["if-on-tracer"]
    exact = if_tracer.check("tracerboolconversionerror", outcome)
    assert exact.correct and exact.exact
    base = if_tracer.check("TypeError", outcome)  # it is a TypeError: `except TypeError` works
    assert base.correct and not base.exact
    assert not if_tracer.check("none", outcome).correct
    assert not if_tracer.check("ValueError", outcome).correct
    assert "Exception" not in outcome.answer.also
    clean = catalogue.get("disable-jit")
    assert clean.check("a", outcomes["disable-jit"]).correct  # a = no error
    assert not clean.check("TracerBoolConversionError", outcomes["disable-jit"]).correct


@pytest.mark.parametrize(
    ("exercise_id", "text"),
    [
        ("shape-sequence", "three"),
        ("shape-sequence", "-1"),
        ("static-is-free", "maybe"),
        ("static-is-free", "z"),
        ("if-on-tracer", "x"),
        ("if-on-tracer", ""),
    ],
)
def test_bad_predictions_say_what_fits(exercise_id, text):
    with pytest.raises(ValueError, match=exercise_id):
        catalogue.get(exercise_id).parse(text)


def test_parse_accepts_letters_ids_and_names():
    claim = catalogue.get("static-is-free")
    assert claim.parse(" A ") == "true" and claim.parse("FALSE") == "false"
    error = catalogue.get("leaked-tracer")
    assert error.parse("no error") == NO_ERROR and error.parse("b") == "UnexpectedTracerError"
    assert error.parse("KeyError") == "KeyError"


# -- interview --------------------------------------------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


CHEAP = [catalogue.get(i) for i in ("counter-in-jit", "traced-int", "if-on-tracer", "static-if")]


def test_interview_draw_is_seeded():
    a = Interview(5, seed=42, pool=catalogue.available(1))
    b = Interview(5, seed=42, pool=catalogue.available(1))
    c = Interview(5, seed=43, pool=catalogue.available(1))
    assert [e.id for e in a.questions] == [e.id for e in b.questions]
    assert [e.id for e in a.questions] != [e.id for e in c.questions]
    assert len({e.id for e in a.questions}) == 5
    assert all(e.min_devices == 1 for e in Interview(10, seed=1).questions)
    assert Interview(2).seed is not None  # a random round still reports its seed
    for bad in (0, len(CHEAP) + 1):
        with pytest.raises(ValueError):
            Interview(bad, pool=CHEAP)


def test_interview_scores_times_and_lists_what_to_review(outcomes):
    clock = Clock()
    interview = Interview(4, seed=3, seconds=30, pool=CHEAP, clock=clock)
    answers = {"counter-in-jit": 1, "traced-int": 4, "if-on-tracer": "b", "static-if": 2}
    late = interview.questions[2].id
    wrong = next(e.id for e in interview.questions if e.id == "traced-int")
    passed = interview.questions[3].id
    while not interview.done:
        exercise = interview.start()
        assert interview.remaining() == 30
        with pytest.raises(ValueError):
            interview.submit("not a prediction")  # rejected; the question stays
        assert interview.current is exercise
        clock.now += 45 if exercise.id == late else 5
        prediction = None if exercise.id == passed else answers[exercise.id]
        interview.submit(prediction, outcomes[exercise.id])
    missed = {wrong, late, passed}
    assert interview.score == 4 - len(missed)
    assert {r.exercise.id for r in interview.review()} == missed
    late_result = next(r for r in interview.results if r.exercise.id == late)
    assert late_result.verdict.timed_out and late_result.elapsed_s == 45
    summary = interview.to_json("zh")
    assert summary["score"] == interview.score and summary["total"] == 4
    assert {item["exercise"] for item in summary["review"]} == missed
    assert summary["review_scenarios"] == list(interview.review_scenarios())
    assert CJK.search(summary["review"][0]["title"])
    with pytest.raises(RuntimeError):
        interview.start()


# -- the command ------------------------------------------------------------------------------
def quiz(capsys, *argv: str) -> tuple[int, str, str]:
    code = run(build_parser().parse_args(list(argv)))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_answers_given_up_front_as_json(capsys):
    code, out, _ = quiz(
        capsys,
        *("--exercise", "counter-in-jit", "--answer", "1"),
        *("--exercise", "if-on-tracer", "--answer", "none", "--json"),
    )
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    first, second, summary = lines
    assert first["exercise"] == "counter-in-jit" and first["correct"] and first["answer"] == 1
    assert first["next"] == "jitlab run side-effects"
    assert second["answer"] == "TracerBoolConversionError" and not second["correct"]
    assert second["evidence"]["calls"] == ["error"]
    assert summary == {"summary": {"score": 1, "total": 2}}


def test_cli_interview_json_is_reproducible(capsys):
    expected = [e.id for e in Interview(3, seed=5, pool=catalogue.available(1)).questions]
    answers = []
    for exercise in map(catalogue.get, expected):
        first = "0" if exercise.kind is AnswerKind.NUMBER else exercise.options[0].id
        answers += ["--answer", first]
    code, out, _ = quiz(capsys, "--interview", "3", "--seed", "5", "--json", *answers)
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["exercise"] for line in lines[:-1]] == expected
    assert all("elapsed_s" in line for line in lines[:-1])
    end = lines[-1]["interview"]
    assert end["questions"] == expected and end["seed"] == 5
    assert end["score"] == sum(line["correct"] for line in lines[:-1])


def test_cli_list_and_text_output(capsys):
    code, out, _ = quiz(capsys, "--list", "--json", "--scenario", "sharding")
    listed = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [e["exercise"] for e in listed] == MULTI_DEVICE
    assert listed[0]["min_devices"] == 2 and "def layouts_over_devices" in listed[0]["source"]
    code, out, _ = quiz(capsys, "--exercise", "static-if", "--answer", "2", "--lang", "zh")
    assert code == 0
    assert "答对了" in out and "jitlab run control-flow --variant static-if" in out
    assert "def static_flag_branches(lab):" in out
    # The snippet's comments in Chinese (its printed output would stay as printed).
    assert "# 一个 Python 布尔值，追踪时就已知道" in out
    assert "a Python bool, known while tracing" not in out
    code, out, _ = quiz(capsys, "--list", "--json", "--exercise", "weak-float", "--lang", "zh")
    assert "half(1.0)  # 一个 Python 浮点数" in json.loads(out)["source"]


def test_cli_json_with_no_action_lists_the_exercises(capsys):
    # `jitlab quiz --json | head` was a usage error until --solve, --list or --answer was
    # added (issue 54): JSON lines cannot ask, so with no action it lists, as --list does.
    code, out, err = quiz(capsys, "--json")
    listed = [json.loads(line) for line in out.splitlines()]
    code_list, out_list, _ = quiz(capsys, "--json", "--list")
    assert code == code_list == 0 and out == out_list
    assert len(listed) >= 20 and all("exercise" in e and "source" in e for e in listed)
    assert err.count("\n") == 1 and "lists the exercises" in err
    code, out, _ = quiz(capsys, "--json", "--exercise", "static-if", "--lang", "zh")
    assert code == 0 and [json.loads(line)["exercise"] for line in out.splitlines()] == [
        "static-if"
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--exercise", "nope"], "unknown exercise 'nope'"),
        (["--scenario", "nope"], "unknown scenario 'nope'"),
        (["--exercise", "static-if", "--answer", "two"], "expects a whole number"),
        (["--exercise", "static-if", "--answer", "1", "--answer", "2"], "got 2 --answer"),
        (["--interview", "0"], "--interview"),
        (["--interview", "999"], "--interview"),
        (["--interview", "2", "--seconds", "0"], "--seconds must be positive"),
        (["--interview", "2", "--exercise", "static-if"], "--interview draws"),
        (["--seed", "3"], "--interview only"),
        (["--list", "--solve"], "choose one of"),
        (["--solve", "--answer", "1"], "--answer does not apply"),
        (["--scenario", "sharding", "--exercise", "static-if"], "no exercise matches"),
    ],
)
def test_cli_usage_errors_are_one_line_and_exit_2(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        quiz(capsys, *argv)
    assert exit_info.value.code == 2
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and message in err and err.startswith("jitlab: error:")


def test_cli_bad_option_value_exits_2():
    done = subprocess.run(
        [sys.executable, "-m", "jitlab.cli.quiz", "--interview", "many"],
        capture_output=True,
        text=True,
        timeout=60,
        env=ENV,
    )
    assert done.returncode == 2 and len(program_lines(done.stderr)) == 1 and not done.stdout


def test_cli_interactive_session_reads_predictions_from_stdin():
    command = [sys.executable, "-m", "jitlab.cli.quiz"]
    done = subprocess.run(
        [*command, "--exercise", "static-is-free", "--exercise", "print-in-jit"],
        input="perhaps\nb\nq\n",  # a bad answer is asked again; q stops
        capture_output=True,
        text=True,
        timeout=60,
        env=ENV,
    )
    assert done.returncode == 1, done.stderr
    assert "static-is-free expects one of" in done.stdout
    assert "✓ Right." in done.stdout and "Score: 1/1" in done.stdout


def test_quiz_is_headless():
    """The quiz package knows no face (neither the command line nor the GUI); the command
    line's quiz knows no Qt."""
    code = (
        "import sys, jitlab.quiz, jitlab.quiz.exercises, jitlab.quiz.interview\n"
        "bad = [m for m in sys.modules if m.startswith(('PySide6', 'jitlab.gui', 'jitlab.cli'))]\n"
        "assert not bad, bad\n"
        "import jitlab.cli.quiz\n"
        "bad = [m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph', 'jitlab.gui'))]\n"
        "assert not bad, bad\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV)
    assert done.returncode == 0, done.stderr


def test_wiring_into_the_main_command(capsys):
    """What jitlab/cli/__init__.py does: add_parser(subcommands), then run(args) for `quiz`."""
    import argparse

    from jitlab.cli import build_parser as main_parser
    from jitlab.cli.quiz import add_parser

    parser = main_parser()
    subcommands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if "quiz" not in subcommands.choices:  # until the lead wires it in
        add_parser(subcommands)
    args = parser.parse_args(["--lang", "zh", "quiz", "--list"])
    assert args.command == "quiz" and args.lang == "zh"
    assert run(args) == 0 and "在程序运行时打印" in capsys.readouterr().out
    args = parser.parse_args(["quiz", "--lang", "zh", "--exercise", "traced-int", "--answer", "1"])
    assert run(args) == 0 and "答对了" in capsys.readouterr().out


def test_an_exercise_runs_on_a_worker_thread_and_prints_nothing(capsys):
    """The GUI's way: a blocking call on a worker thread, a frozen result back."""
    import threading

    results = []
    worker = threading.Thread(target=lambda: results.append(catalogue.get("debug-print").run()))
    worker.start()
    worker.join(60)
    assert not worker.is_alive()
    (outcome,) = results
    assert outcome.answer.value == 3
    assert len(outcome.evidence.printed) == 3
    assert capsys.readouterr().out == ""


def test_an_unplanned_error_is_reported_not_answered():
    import dataclasses

    def broken(lab):
        lab.jit(lambda x: x @ x)(np.ones(3, np.float32)[None])  # (1, 3) @ (1, 3)

    exercise = dataclasses.replace(catalogue.get("shape-sequence"), snippet=broken)
    outcome = exercise.run()
    assert outcome.answer is None and outcome.failure.startswith("TypeError")
    assert not exercise.check(1, outcome).correct
