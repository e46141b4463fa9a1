"""The summary page's plain functions of the records: a cell's text, where a run compiled,
and its error types (no widget: testable on their own). The count a prediction names is
:func:`jitlab.records.text.prediction_number`, shared with the lesson notebooks."""

from __future__ import annotations

from collections.abc import Iterable

from jitlab.gui.views.model import RunState, Segment
from jitlab.lab.spec import Scenario, Text
from jitlab.lab.verdict import QuestionRun, answered_by, matches
from jitlab.records.calls import CallKind, CallRecord, Summary
from jitlab.records.text import format_ms

# ``SummaryPage.missing``: the question's own run is yet to be made (not a variant's name);
# ALSO + i: the scenario's ``also_judged[i]`` is yet to be run.
QUESTION = "?question"
ALSO = "?also:"
NOT_A_COUNT = Text(
    "This question is not answered by a count: check your words against the verdict below.",
    "这道题的答案不是一个次数：拿你的话和下面的结论对一对。",
)
NOT_RUN = Text(
    "The question's own calls have not run yet: press “Measure both” to run them.",
    "题目自己的那组调用还没跑：点“两者都测”来运行。",
)
SECOND = Text(
    "Then the lesson's comparison, a separate finding: the pitfall and the fix on the same calls.",
    "接下来是课程的对比，另一项结论：陷阱版和修正版跑同一组调用。",
)


def also_missing(state: RunState, scenario: type[Scenario] | None) -> tuple[str, ...]:
    """Markers (``ALSO`` + index) of the scenario's ``also_judged`` comparisons whose two
    runs are not yet the comparison's calls."""
    out = []
    for i, also in enumerate(getattr(scenario, "also_judged", ()) or ()):
        runs = [state.latest(v) for v in also.variants]
        if not all(run is not None and matches(also, list(run.records)) for run in runs):
            out.append(f"{ALSO}{i}")
    return tuple(out)


def covered(answer: QuestionRun, scenario: type[Scenario]) -> bool:
    """Whether a fresh run of the lesson's comparison on the question's variant begins with
    the question's calls (static-args: the fix on n = 3, 4, 3, 2, 4), so it answers too."""
    comparison = scenario.comparison()
    calls = comparison.calls
    return (
        answer.variant in comparison.variants
        and len(calls) >= len(answer.calls)
        and all(
            all(k in c and c[k] == v for k, v in q.items())
            for q, c in zip(answer.calls, calls, strict=False)
        )
    )


def question_run(scenario: type[Scenario] | None) -> QuestionRun | None:
    return getattr(scenario, "question_run", None) if scenario is not None else None


def is_question_segment(answer: QuestionRun | None, segment: Segment) -> bool:
    """A run that made the question's calls and nothing more (the one run for the question)."""
    return (
        answer is not None
        and segment.variant == answer.variant
        and len(segment.records) == len(answer.calls)
        and segment.records.first == 0
        and answered_by(answer, list(segment.records))
    )


def question_segment(state: RunState, answer: QuestionRun | None) -> Segment | None:
    """The newest run (from its fresh start) that began with the question's own calls."""
    if answer is None:
        return None
    for segment in reversed(state.segments):
        if (
            segment.variant == answer.variant
            and segment.records.first == 0
            and answered_by(answer, list(segment.records))
        ):
            return segment
    return None


def cell_text(key: str, summary: Summary | None, records: Iterable[CallRecord]) -> str:
    """The table's cell ``key`` (a row of ``SummaryPage.ROWS``) for one run."""
    if summary is None or not summary.calls:
        return "–"
    if key == "calls":
        return str(summary.calls)
    if key == "compiles":
        return str(summary.compiles + summary.recompiles)
    if key == "recompiles":
        return str(summary.recompiles)
    if key == "hit_rate":
        return f"{summary.hit_rate:.0%}"
    if key == "time_lost":
        return format_ms(summary.time_lost_ms)
    if key == "mean_hit":
        hits = [r.latency_ms for r in records if r.kind is CallKind.CACHE_HIT]
        return format_ms(sum(hits) / len(hits)) if hits else "–"
    return format_ms(sum(r.latency_ms for r in records))


def compile_calls(records: Iterable[CallRecord]) -> list[str]:
    """Where a run compiled, by the call numbers the log, the live chart and the ledger show
    (``#6``, not "call 0 of the fix run": one numbering everywhere)."""
    kinds = (CallKind.COMPILE, CallKind.RECOMPILE)
    return [f"#{r.index}" for r in records if r.kind in kinds]


def error_types(records: Iterable[CallRecord]) -> str:
    names: list[str] = []
    for r in records:
        if r.kind is CallKind.ERROR and r.error is not None and r.error.type not in names:
            names.append(r.error.type)
    return ", ".join(names) or "?"
