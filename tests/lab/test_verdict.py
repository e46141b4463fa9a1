"""Each lesson concludes what it teaches: the fix wins on the lesson's own measure, in English
and Chinese, and timing is never given a sign it has not earned (issue 21)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import jax
import pytest

from jitlab.lab.discovery import discover, scenarios
from jitlab.lab.spec import Comparison, Measure
from jitlab.lab.verdict import judge_timing
from jitlab.lab.verdict_run import run_comparison
from jitlab.records.calls import CallKind

pytestmark = pytest.mark.slow

# The built-ins as discovery finds them: a new one is judged here with no line added.
BUILTINS = scenarios(discover(entry_points=False))
FACES = [(sid, c) for sid, cls in BUILTINS.items() for c in cls.comparisons]
# Sharding needs several devices, and this process keeps the one it started with (other
# tests count on it): its verdict is judged in a fresh process with 8 simulated devices.
SHARDED = """
import json
from jitlab.probe.devices import simulate_cpu_devices
simulate_cpu_devices(8)
from jitlab.lab.discovery import discover, scenarios
from jitlab.lab.verdict_run import run_comparison
v = run_comparison(scenarios(discover())["sharding"])
print(json.dumps({"en": v.to_json("en"), "zh": v.text("zh")}))
"""
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_builtin_judges_its_pitfall_against_its_fix_first() -> None:
    for sid, cls in BUILTINS.items():
        assert cls.comparisons and cls.comparisons[0].variants == ("pitfall", "fix"), sid
        assert cls.comparison() is cls.comparisons[0], sid
    assert BUILTINS["side-effects"].comparison().measure is Measure.OUTPUT
    assert BUILTINS["static-args"].comparison().measure is Measure.ERRORS
    # The other faces: a float marked static compiles; an unrolled loop is a bigger program.
    assert BUILTINS["static-args"].comparison("static-explosion").measure is Measure.COMPILES
    assert BUILTINS["control-flow"].comparison("scan").measure is Measure.PROGRAM_SIZE


@pytest.mark.parametrize(
    ("sid", "comparison"), FACES, ids=[f"{s}:{c.pitfall}-{c.fix}" for s, c in FACES]
)
def test_the_fix_wins_on_the_lessons_measure_in_both_languages(sid, comparison) -> None:
    if sid == "sharding" and jax.device_count() < 2:
        pytest.skip("one device here: test_sharding_compiles_once_on_eight_devices runs it")
    records: dict[str, list] = {comparison.pitfall: [], comparison.fix: []}
    verdict = run_comparison(
        BUILTINS[sid], comparison, on_record=lambda r: records[r.variant].append(r)
    )
    assert verdict.better == "fix", verdict.text("en")
    assert verdict.measure is comparison.measure
    assert verdict.like_with_like and verdict.calls == len(comparison.calls)
    p, f = verdict.pitfall, verdict.fix
    en, zh = verdict.text("en"), verdict.text("zh")
    assert CJK.search(zh) and not CJK.search(en)
    assert zh.endswith("。") and en.endswith(".")
    # The sentence is the chart's numbers: counted here from the records themselves.
    calls_p, calls_f = records[comparison.pitfall], records[comparison.fix]
    failed = sum(r.kind is CallKind.ERROR for r in calls_p)
    compiled_f = sum(r.kind.compiled for r in calls_f)
    if comparison.measure is Measure.ERRORS:
        assert f.errors < p.errors == failed
        assert (
            f"failed all {failed} calls" in en
            or f"failed {failed} of" in en
            or (failed == 2 and "failed both calls" in en)
        )
        assert f"{failed} 次" in zh and p.error_types[0] in en and p.error_types[0] in zh
    elif comparison.measure is Measure.COMPILES:
        assert f.compiles < p.compiles == sum(r.kind.compiled for r in calls_p)
        times = {1: "once", 2: "twice"}.get(p.compiles, f"{p.compiles} times")
        assert f"compiled {times} in {len(calls_p)} calls" in en
        assert f"编译了 {p.compiles} 次" in zh
        assert f"修正版编译了 {compiled_f} 次" in zh or (
            compiled_f == 0 and "修正版一次也没有编译" in zh
        )
    elif comparison.measure is Measure.OUTPUT:
        n = len(calls_p)
        # The pitfall's print ran once, while tracing; the fix's on every call, at run time.
        assert p.trace_lines == 1 and p.runtime_lines == 0 and p.counter == 1
        assert f.runtime_lines == n and f.printed_calls == n and f.counter == n
        assert "1 while tracing, 0 at run time" in en and f"ended at {n}" in en
        assert "追踪时 1 行，运行时 0 行" in zh and f"运行时 {n} 行" in zh
    else:
        assert f.program_size < p.program_size
        assert f"{p.program_size} equations" in en and f"{p.program_size} 条等式" in zh


def test_dynamic_shapes_compiles_once_per_size_against_once_per_bucket() -> None:
    """JAX compiles once per distinct shape: the counts follow from the sequence alone."""
    comparison = BUILTINS["dynamic-shapes"].comparison()
    sizes = [call["batch_size"] for call in comparison.calls]
    assert sorted(set(sizes)) != sizes and any(n & (n - 1) for n in sizes)  # jittery, not 2^k
    buckets = {1 << (n - 1).bit_length() for n in sizes}
    verdict = run_comparison(BUILTINS["dynamic-shapes"], comparison)
    assert verdict.pitfall.compiles == len(set(sizes))
    assert verdict.fix.compiles == len(buckets)
    assert verdict.text("en") == (
        f"The pitfall compiled {len(set(sizes))} times in {len(sizes)} calls; "
        f"the fix compiled {len(buckets)} times."
    )
    assert "already buckets" in verdict.note.en and "本身就是桶" in verdict.note.zh


def test_one_variant_against_itself_reads_about_the_same() -> None:
    """The noise test: the same code timed twice, in interleaved rounds of cached calls."""
    itself = Comparison(Measure.LATENCY, ({"batch_size": 8},) * 3, "fix", "fix")
    verdict = run_comparison(BUILTINS["dynamic-shapes"], itself)
    assert verdict.better == "same", verdict.text("en")
    assert min(verdict.timing.rounds) >= 3
    assert re.fullmatch(r"Per cached call: about the same \(±[\d.]+ m?s\): .*", verdict.text("en"))
    assert "差不多（±" in verdict.text("zh")


def test_timing_is_signed_only_outside_the_spread_of_rounds() -> None:
    # One sample each is never a verdict, however far apart.
    assert judge_timing([1.0], [9.0]).better == "unknown"
    assert judge_timing([1.0, 1.1, 1.0], [9.0, 9.1, 9.0]).better == "unknown"
    # Rounds that overlap: about the same, with the spread said.
    noisy = judge_timing([1.0, 1.4] * 10, [1.1, 1.3] * 10)
    assert noisy.better == "same" and "about the same (±" in noisy.sentence.en
    # Rounds that do not overlap: the fix is faster, and by how much is stated.
    apart = judge_timing([2.0, 2.1] * 10, [1.0, 1.1] * 10)
    assert apart.better == "fix" and "the fix is faster" in apart.sentence.en
    assert judge_timing([1.0, 1.1] * 10, [2.0, 2.1] * 10).better == "pitfall"


def test_sharding_compiles_once_on_eight_devices() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SHARDED], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.splitlines()[-1])
    verdict = out["en"]
    assert verdict["measure"] == "compiles" and verdict["better"] == "fix"
    p, f = verdict["pitfall"]["compiles"], verdict["fix"]["compiles"]
    assert f == 1 < p and verdict["pitfall"]["errors"] == verdict["fix"]["errors"] == 0
    assert (
        verdict["verdict"] == f"The pitfall compiled {p} times in 8 calls; the fix compiled once."
    )
    assert out["zh"] == f"陷阱版在 8 次调用中编译了 {p} 次；修正版编译了 1 次。"


def test_a_plugin_without_comparisons_is_judged_on_compiles_and_bad_ones_are_named() -> None:
    from jitlab.lab.scenario import AutoplayStep, Param, Text, Variant, validate

    t = Text("t", "t")

    class Plugin(BUILTINS["dynamic-shapes"]):
        id = "plugin"
        comparisons = ()
        autoplay = (AutoplayStep({"batch_size": 4}), AutoplayStep({"batch_size": 8}, "fix"))

    default = Plugin.comparison()
    assert default.measure is Measure.COMPILES and default.variants == ("pitfall", "fix")
    assert [dict(c) for c in default.calls] == [{"batch_size": 4}, {"batch_size": 8}]

    class Broken(Plugin):
        params = (Param("n", 1, t, t, minimum=0, maximum=3),)
        variants = (Variant("pitfall", t, t), Variant("fix", t, t))
        comparisons = (
            Comparison(Measure.ERRORS, ({"n": 9},), "pitfall", "nope"),
            Comparison(Measure.ERRORS, ({"m": 1},)),
            Comparison(Measure.ERRORS, ()),
        )

    problems = "\n".join(validate(Broken))
    assert "Broken.comparisons[0].fix: comparison names unknown variant 'nope'" in problems
    assert "Broken.comparisons[0].calls[0]['n']: comparison: n must be" in problems
    assert "Broken.comparisons[1].calls[0]['m']: comparison names unknown parameter 'm'" in (
        problems
    )
    assert "Broken.comparisons[2].calls: a comparison needs at least one call" in problems


def test_runs_of_different_lengths_each_say_their_own_number_of_calls() -> None:
    # The GUI may judge a pitfall run of 6 calls against a fix run of 5 (autoplay's beats):
    # the sentence must not claim both made 6.
    from jitlab.lab.engine import Run
    from jitlab.lab.verdict import judge

    scenario = BUILTINS["side-effects"]
    comparison = scenario.comparison()
    runs = {v: Run(scenario, v) for v in comparison.variants}
    for n, variant in ((6, comparison.pitfall), (5, comparison.fix)):
        for call in (list(comparison.calls) * 3)[:n] or [{}] * n:
            runs[variant].step(dict(call))
    verdict = judge(
        comparison,
        list(runs[comparison.pitfall].records),
        list(runs[comparison.fix].records),
    )
    assert len(runs[comparison.pitfall].records) == 6
    assert len(runs[comparison.fix].records) == 5
    en, zh = verdict.text("en"), verdict.text("zh")
    assert "In 6 calls, the pitfall" in en and "in 5 calls, the fix" in en, en
    assert "陷阱版 6 次调用中" in zh and "修正版 5 次调用中" in zh, zh


def test_the_question_sizes_are_already_buckets_in_one_wording() -> None:
    """The quiz's "why" and Complete's note say the same fact in the same words: 8, 16 and
    32 are buckets already, so padding saves nothing there (issue 42: the quiz said padding
    keeps "the count at one")."""
    from jitlab.lab.discovery import scenarios

    cls = scenarios()["dynamic-shapes"]
    (exercise,) = [e for e in cls.exercises if e.id == "shape-sequence"]
    note = cls.comparison().note
    for lang in ("en", "zh"):
        why, said = exercise.explanation.get(lang), note.get(lang)
        fact = ("8, 16 and 32 are already buckets", "8、16、32 本身就是桶")[lang == "zh"]
        assert fact in why and fact in said
        assert why[why.index(fact) :] == said[said.index(fact) :]
    assert "at one" not in exercise.explanation.en and "保持为一" not in exercise.explanation.zh


def test_a_prediction_is_graded_on_the_question_s_own_calls_only() -> None:
    """grade() counts over the question's calls (a longer run counts only its first ones)
    what the question asks: compiles, or printed lines (side-effects), and names the run."""
    from jitlab.lab.spec import Text
    from jitlab.lab.verdict import Counted, QuestionRun, answered_by, grade
    from jitlab.records.calls import CallKind, CallRecord, OutputLine

    sizes = (8, 8, 16, 8, 32, 8)
    kinds = {8: CallKind.COMPILE, 16: CallKind.RECOMPILE, 32: CallKind.RECOMPILE}
    seen: set[int] = set()
    records = []
    for i, n in enumerate((*sizes, 12, 20)):  # two calls past the question's: not counted
        kind = CallKind.CACHE_HIT if n in seen else kinds.get(n, CallKind.RECOMPILE)
        seen.add(n)
        records.append(CallRecord(i + 5, "f", kind, 1.0, params={"batch_size": n}))
    answer = QuestionRun("pitfall", tuple({"batch_size": n} for n in sizes))
    assert answered_by(answer, records) and not answered_by(answer, records[1:])
    title = Text("Raw batches", "原样喂入")
    right = grade(answer, records, 3, title)
    assert (right.count, right.where, right.right) == (3, (5, 7, 9), True)
    assert "calls #5–#10 of the log: 3 compiles (#5, #7, #9). You said 3: right." in (
        right.sentence.en
    )
    assert "你说 3：对了。" in right.sentence.zh
    wrong = grade(answer, records, 5, title)
    assert wrong.right is False and wrong.sentence.en.endswith("You said 5: the run says 3.")
    assert grade(answer, records, None, title).right is None
    printed = QuestionRun("pitfall", ({"n": 1}, {"n": 1}), Counted.PRINTED)
    lines = [
        CallRecord(
            0, "f", CallKind.COMPILE, 1.0, params={"n": 1}, stdout=(OutputLine("trace", "hi"),)
        ),
        CallRecord(1, "f", CallKind.CACHE_HIT, 1.0, params={"n": 1}),
    ]
    once = grade(printed, lines, 1, title)
    assert (once.count, once.where, once.right) == (1, (0,), True)
    assert "1 line printed (#0)" in once.sentence.en and "打印了 1 行" in once.sentence.zh
