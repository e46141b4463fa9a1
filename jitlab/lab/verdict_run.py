"""Run a lesson's comparison headless: the pitfall and the fix on the same calls, then judged.

``jitlab run SCENARIO --compare`` and the tests use it; the GUI runs the same calls through its
executor and judges them with the same :func:`jitlab.lab.verdict.judge`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jitlab.lab.engine import Run
from jitlab.lab.spec import Comparison, Measure, Scenario
from jitlab.lab.verdict import ROUNDS, QuestionRun, Verdict, judge
from jitlab.records.calls import CallKind, CallRecord

CALLS_PER_ROUND = 5


def run_comparison(
    scenario: type[Scenario],
    comparison: Comparison | None = None,
    calls: Sequence[Mapping[str, Any]] | None = None,
    on_record: Callable[[CallRecord], None] | None = None,
    timing: bool | None = None,
) -> Verdict:
    """Both variants of ``comparison`` (default: the scenario's pitfall and fix) on its calls,
    or on ``calls`` where given. ``timing`` (default: when latency is the measure) adds
    :data:`~jitlab.lab.verdict.ROUNDS` interleaved rounds of cached calls per variant, kept
    apart from the calls judged, so slow drift of the machine hits both variants alike."""
    comparison = comparison or scenario.comparison()
    sequence = [dict(c) for c in (calls if calls is not None else comparison.calls)] or [{}]
    runs = [Run(scenario, variant) for variant in comparison.variants]
    judged: list[list[CallRecord]] = []
    for run in runs:
        for overrides in sequence:
            record = run.step(overrides)
            if on_record is not None:
                on_record(record)
        judged.append(list(run.records))
    samples: tuple[list[float], list[float]] | None = None
    if timing if timing is not None else comparison.measure is Measure.LATENCY:
        samples = ([], [])
        for _ in range(ROUNDS):
            for run, out in zip(runs, samples, strict=True):
                for _ in range(CALLS_PER_ROUND):
                    record = run.step(sequence[-1])
                    if record.kind is CallKind.CACHE_HIT:
                        out.append(record.latency_ms)
    return judge(comparison, judged[0], judged[1], samples)


def run_question(
    scenario: type[Scenario], on_record: Callable[[CallRecord], None] | None = None
) -> list[CallRecord]:
    """The question's own calls (``scenario.question_run``) on its variant, from a fresh run: the
    run a prediction is graded on. Empty when the scenario's question is not a count."""
    answer: QuestionRun | None = getattr(scenario, "question_run", None)
    if answer is None:
        return []
    run = Run(scenario, answer.variant)
    for overrides in answer.calls:
        record = run.step(dict(overrides))
        if on_record is not None:
            on_record(record)
    return list(run.records)
