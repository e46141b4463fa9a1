"""What a lesson concludes: the pitfall and the fix measured on the same calls, in words.

A scenario declares its lesson's measure (:class:`~jitlab.lab.spec.Comparison`); this module
reads the two runs' records and says which variant did better on that measure, in one sentence
a learner can check against the chart, in English and Chinese. ``jitlab run --compare`` and
the GUI's Complete page both call :func:`judge`, so they cannot disagree.

Timing is noisy: a difference in time is stated only when repeated rounds of cached calls put
it outside their spread (:func:`judge_timing`); one sample against one sample is never a
verdict. Nothing here imports JAX or Qt.
"""

from __future__ import annotations

import enum
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from jitlab.lab.spec import Comparison, Measure, Param, ParamValues, Text, value_words
from jitlab.records.calls import CallKind, CallRecord
from jitlab.records.change_words import render

__all__ = [
    "MIN_ROUNDS",
    "ROUNDS",
    "SIDE_ROWS",
    "Counted",
    "Graded",
    "QuestionRun",
    "Side",
    "Timing",
    "Verdict",
    "answered_by",
    "grade",
    "judge",
    "judge_timing",
    "matches",
    "same_calls",
]

ROUNDS = 7  # rounds of cached calls per variant when timing is the measure
MIN_ROUNDS = 3  # fewer rounds than this on either side: too few to tell a difference
_COMPILED = (CallKind.COMPILE, CallKind.RECOMPILE, CallKind.PERSISTENT_HIT)


@dataclass(frozen=True)
class Side:
    """What one variant's run measured (the same fields for every measure)."""

    calls: int
    compiles: int
    errors: int
    error_types: tuple[str, ...]
    cache_hits: int
    trace_lines: int
    runtime_lines: int
    printed_calls: int  # calls that printed at run time
    counter: Any  # the declared fact's final value (OUTPUT), else None
    program_size: int | None  # the largest traced program (PROGRAM_SIZE), else None
    compile_ms: float  # trace + lower + compile, summed
    cached_ms: float | None  # median latency of a cached call (None: no cached call)

    @classmethod
    def of(cls, records: Sequence[CallRecord], counter: str = "", size: str = "") -> Side:
        """``counter``/``size``: the facts key whose final value / largest value is read."""
        errors = [r for r in records if r.kind is CallKind.ERROR]
        types: list[str] = []
        for r in errors:
            name = r.error.type if r.error is not None else "?"
            if name not in types:
                types.append(name)
        hits = [r.latency_ms for r in records if r.kind is CallKind.CACHE_HIT]
        counts = [r.notes[counter] for r in records if counter and r.notes and counter in r.notes]
        sizes = [
            int(v)
            for r in records
            if size
            and r.notes
            and isinstance(v := r.notes.get(size), int | float)
            and not isinstance(v, bool)
        ]
        return cls(
            calls=len(records),
            compiles=sum(1 for r in records if r.kind in _COMPILED),
            errors=len(errors),
            error_types=tuple(types),
            cache_hits=len(hits),
            trace_lines=sum(1 for r in records for o in r.stdout if o.when == "trace"),
            runtime_lines=sum(1 for r in records for o in r.stdout if o.when != "trace"),
            printed_calls=sum(1 for r in records if any(o.when != "trace" for o in r.stdout)),
            counter=counts[-1] if counts else None,
            program_size=max(sizes) if sizes else None,
            compile_ms=sum(r.trace_ms + r.lower_ms + r.compile_ms for r in records),
            cached_ms=statistics.median(hits) if hits else None,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "compiles": self.compiles,
            "errors": self.errors,
            "error_types": list(self.error_types),
            "cache_hits": self.cache_hits,
            "trace_lines": self.trace_lines,
            "runtime_lines": self.runtime_lines,
            "printed_calls": self.printed_calls,
            "counter": self.counter,
            "program_size": self.program_size,
            "compile_ms": round(self.compile_ms, 3),
            "cached_call_ms": None if self.cached_ms is None else round(self.cached_ms, 4),
        }


@dataclass(frozen=True)
class Timing:
    """Cached calls of each variant, compared round against round."""

    pitfall_ms: float | None  # the median of the round medians
    fix_ms: float | None
    spread_ms: float  # half the widest range of round medians: the noise
    rounds: tuple[int, int]
    better: str  # "fix" | "pitfall" | "same" | "unknown" (too few rounds)
    sentence: Text

    def to_json(self, language: str = "en") -> dict[str, Any]:
        return {
            "pitfall_ms": None if self.pitfall_ms is None else round(self.pitfall_ms, 4),
            "fix_ms": None if self.fix_ms is None else round(self.fix_ms, 4),
            "spread_ms": round(self.spread_ms, 4),
            "rounds": list(self.rounds),
            "better": self.better,
            "verdict": self.sentence.get(language),
        }


@dataclass(frozen=True)
class Verdict:
    measure: Measure
    calls: int
    pitfall: Side
    fix: Side
    better: str  # "fix" | "pitfall" | "same" | "unknown" (every call of both runs failed)
    sentence: Text  # the lesson's verdict, one sentence
    note: Text | None  # what the sequence shows (the scenario's words), said after it
    timing: Timing  # per cached call, with its noise (a side remark unless the measure)
    like_with_like: bool  # both runs made the same calls with the same parameters

    def text(self, language: str = "en") -> str:
        return self.sentence.get(language)

    def to_json(self, language: str = "en") -> dict[str, Any]:
        return {
            "measure": self.measure.value,
            "calls": self.calls,
            "pitfall": self.pitfall.to_json(),
            "fix": self.fix.to_json(),
            "better": self.better,
            "verdict": self.text(language),
            "note": self.note.get(language) if self.note else None,
            "like_with_like": self.like_with_like,
            "per_cached_call": self.timing.to_json(language),
        }


def matches(comparison: Comparison, records: Sequence[CallRecord]) -> bool:
    """Whether a run made exactly the comparison's calls (the keys it sets, in order)."""
    if len(records) != len(comparison.calls):
        return False
    for record, call in zip(records, comparison.calls, strict=True):
        params = record.params or {}
        if any(name not in params or params[name] != value for name, value in call.items()):
            return False
    return True


def judge(
    comparison: Comparison,
    pitfall: Sequence[CallRecord],
    fix: Sequence[CallRecord],
    timing: tuple[Sequence[float], Sequence[float]] | None = None,
) -> Verdict:
    """The lesson's verdict on two runs. ``timing``: cached-call latencies measured in rounds
    (else the runs' own cache hits); the measure decides, timing only where it is the measure."""
    facts = comparison.facts or ("", "")
    measure = comparison.measure
    if measure is Measure.PROGRAM_SIZE:
        p, f = Side.of(pitfall, size=facts[0]), Side.of(fix, size=facts[1])
    else:
        p, f = Side.of(pitfall, counter=facts[0]), Side.of(fix, counter=facts[1])
    if timing is None:
        timing = (_hits(pitfall), _hits(fix))
    clock = judge_timing(*timing)
    n = max(p.calls, f.calls)
    if _all_failed(p) and _all_failed(f):
        # Nothing the lesson measures happened: no conclusion, only what went wrong.
        better, sentence = "unknown", _no_verdict(p, f)
    elif measure is Measure.LATENCY:
        better = "same" if clock.better == "unknown" else clock.better
        sentence = clock.sentence
    elif measure is Measure.ERRORS or (p.errors != f.errors and measure is not Measure.OUTPUT):
        better, sentence = _errors(p, f, n, measure)
    elif measure is Measure.OUTPUT:
        better, sentence = _output(p, f, n, facts)
    elif measure is Measure.PROGRAM_SIZE:
        better, sentence = _program_size(p, f, n)
    else:
        better, sentence = _compiles(p, f, n)
    like = same_calls(comparison, pitfall, fix)
    note = None if better == "unknown" else comparison.note  # the lesson's point: not shown
    return Verdict(measure, n, p, f, better, sentence, note, clock, like)


def same_calls(
    comparison: Comparison, pitfall: Sequence[CallRecord], fix: Sequence[CallRecord]
) -> bool:
    """Whether two runs made the same calls, as far as the comparison sets them: a parameter
    its calls never set (a slider neither variant reads) does not make them unlike."""
    keys = {k for call in comparison.calls for k in call}

    def shown(records: Sequence[CallRecord]) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in (r.params or {}).items() if not keys or k in keys} for r in records
        ]

    return len(pitfall) == len(fix) and shown(pitfall) == shown(fix)


def judge_timing(pitfall_ms: Sequence[float], fix_ms: Sequence[float]) -> Timing:
    """Compare two sets of cached-call latencies by rounds: each set is cut into up to
    :data:`ROUNDS` rounds of consecutive calls, each round gives its median, and a difference
    is stated only when the two ranges of round medians do not overlap."""
    p_rounds, f_rounds = _round_medians(pitfall_ms), _round_medians(fix_ms)
    rounds = (len(p_rounds), len(f_rounds))
    if min(rounds) < MIN_ROUNDS:
        sentence = Text(
            f"Per cached call: too few cached calls to tell a difference in time "
            f"({len(pitfall_ms)} for the pitfall, {len(fix_ms)} for the fix).",
            f"每次缓存调用的耗时：缓存命中的调用太少，看不出差别"
            f"（陷阱版 {len(pitfall_ms)} 次，修正版 {len(fix_ms)} 次）。",
        )
        p_mid = statistics.median(pitfall_ms) if pitfall_ms else None
        f_mid = statistics.median(fix_ms) if fix_ms else None
        return Timing(p_mid, f_mid, 0.0, rounds, "unknown", sentence)
    p_mid, f_mid = statistics.median(p_rounds), statistics.median(f_rounds)
    spread = max(max(p_rounds) - min(p_rounds), max(f_rounds) - min(f_rounds)) / 2
    if min(p_rounds) > max(f_rounds):
        better = "fix"
    elif min(f_rounds) > max(p_rounds):
        better = "pitfall"
    else:
        better = "same"
    pm, fm, sm, r = _ms(p_mid), _ms(f_mid), _ms(spread), min(rounds)
    if better == "same":
        sentence = Text(
            f"Per cached call: about the same (±{sm}): the fix {fm}, the pitfall {pm}.",
            f"每次缓存调用的耗时：差不多（±{sm}）：修正版 {fm}，陷阱版 {pm}。",
        )
    else:
        en = "faster" if better == "fix" else "slower"
        zh = "更快" if better == "fix" else "更慢"
        sentence = Text(
            f"Per cached call the fix is {en}: {fm} against {pm} for the pitfall "
            f"(medians of {r} rounds each, ±{sm} between rounds).",
            f"每次缓存调用，修正版{zh}：{fm}，陷阱版 {pm}（各 {r} 轮的中位数，轮与轮相差 ±{sm}）。",
        )
    return Timing(p_mid, f_mid, spread, rounds, better, sentence)


# -- the sentences, one per measure ---------------------------------------------------------
def _compiles(p: Side, f: Side, n: int) -> tuple[str, Text]:
    better = _fewer(p.compiles, f.compiles)
    head_en = f"The pitfall compiled {_times(p.compiles)} in {_calls(p.calls)}"
    head_zh = f"陷阱版在 {p.calls} 次调用中编译了 {p.compiles} 次"
    if better == "same":
        return better, Text(
            f"{head_en}; the fix compiled {_times(f.compiles)} too: on these calls the fix "
            f"saves no compile.",
            f"{head_zh}；修正版也编译了 {f.compiles} 次：在这组调用上修正版没有省下编译。",
        )
    tail_en = "" if better == "fix" else ": on these calls the fix compiles more"
    tail_zh = "" if better == "fix" else "：在这组调用上，修正版编译得更多"
    fix_en = f"compiled {_times(f.compiles)}" if f.compiles else "never compiled"
    fix_zh = f"编译了 {f.compiles} 次" if f.compiles else "一次也没有编译"
    if f.calls != p.calls:  # runs of different lengths: each side says its own number of calls
        fix_en += f" in {_calls(f.calls)}"
        fix_zh = f"在 {f.calls} 次调用中{fix_zh}"
    return better, Text(
        f"{head_en}; the fix {fix_en}{tail_en}.", f"{head_zh}；修正版{fix_zh}{tail_zh}。"
    )


def _errors(p: Side, f: Side, n: int, measure: Measure) -> tuple[str, Text]:
    """Failed calls first: a call that raised gave no result, whatever it cost."""
    better = _fewer(p.errors, f.errors)
    p_en, p_zh = _failed(p)
    f_en, f_zh = _failed(f)
    if f.errors == 0:
        f_en = f"the fix failed none and compiled {_times(f.compiles)}"
        f_zh = f"一次也没有失败，编译了 {f.compiles} 次"
    return better, Text(f"The pitfall {p_en}; {f_en}.", f"陷阱版{p_zh}；修正版{f_zh}。")


def _all_failed(side: Side) -> bool:
    return side.calls > 0 and side.errors == side.calls


def _no_verdict(p: Side, f: Side) -> Text:
    types = ", ".join(dict.fromkeys((*p.error_types, *f.error_types)))
    types_zh = "、".join(dict.fromkeys((*p.error_types, *f.error_types)))
    return Text(
        f"No verdict: every call of both runs failed ({types}), so nothing the lesson "
        "measures happened. The Output pane shows the error.",
        f"没有结论：两次运行的每一次调用都失败了（{types_zh}），课程要衡量的东西一样也没有"
        "发生。错误见“输出”面板。",
    )


def _failed(side: Side) -> tuple[str, str]:
    n = side.calls
    types, types_zh = ", ".join(side.error_types), "、".join(side.error_types)
    if side.errors == 0:
        return "failed none", "一次也没有失败"
    if side.errors == n:
        en = {1: "failed the only call", 2: "failed both calls"}.get(n, f"failed all {n} calls")
        return f"{en} ({types})", f" {n} 次调用全部失败（{types_zh}）"
    return (
        f"failed {side.errors} of {_calls(n)} ({types})",
        f" {n} 次调用中 {side.errors} 次失败（{types_zh}）",
    )


def _output(p: Side, f: Side, n: int, facts: tuple[str, str]) -> tuple[str, Text]:
    """A side effect that belongs to every call prints (and counts) on every call."""
    better = _more(p.printed_calls, f.printed_calls)
    if (
        better == "same"
        and isinstance(p.counter, int | float)
        and isinstance(f.counter, int | float)
    ):
        better = _fewer(abs(n - p.counter), abs(n - f.counter))
    p_en, p_zh = _printed(p, n, facts[0])
    f_en, f_zh = _printed(f, n, facts[1])
    if p.calls != f.calls:  # runs of different lengths: each side says its own number
        return better, Text(
            f"In {_calls(p.calls)}, the pitfall {p_en}; in {_calls(f.calls)}, the fix {f_en}.",
            f"陷阱版 {p.calls} 次调用中{p_zh}；修正版 {f.calls} 次调用中{f_zh}。",
        )
    return better, Text(
        f"In {_calls(n)}, the pitfall {p_en}; the fix {f_en}.",
        f"{n} 次调用中，陷阱版{p_zh}；修正版{f_zh}。",
    )


def _printed(side: Side, n: int, key: str) -> tuple[str, str]:
    lines = side.trace_lines + side.runtime_lines
    en = (
        f"printed {_count(lines, 'line')} ({side.trace_lines} while tracing, "
        f"{side.runtime_lines} at run time)"
    )
    zh = f"打印了 {lines} 行（追踪时 {side.trace_lines} 行，运行时 {side.runtime_lines} 行）"
    if key and side.counter is not None:
        en += f" and its {key} ended at {side.counter}"
        zh += f"，{key} 最后是 {side.counter}"
    return en, zh


def _program_size(p: Side, f: Side, n: int) -> tuple[str, Text]:
    if p.program_size is None or f.program_size is None:
        return _compiles(p, f, n)
    better = _fewer(p.program_size, f.program_size)
    pm, fm = _ms(p.compile_ms), _ms(f.compile_ms)
    return better, Text(
        f"The pitfall's largest program had {_count(p.program_size, 'equation')}, the fix's "
        f"{f.program_size}; compiling the {_calls(n)} took {pm} for the pitfall and "
        f"{fm} for the fix.",
        f"陷阱版最大的程序有 {p.program_size} 条等式，修正版 {f.program_size} 条；"
        f"{n} 次调用的编译共用了：陷阱版 {pm}，修正版 {fm}。",
    )


# -- small words -------------------------------------------------------------------------------
def _fewer(pitfall: float, fix: float) -> str:
    return "fix" if fix < pitfall else "pitfall" if pitfall < fix else "same"


def _more(pitfall: float, fix: float) -> str:
    return _fewer(fix, pitfall)


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _calls(n: int) -> str:
    return _count(n, "call")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _ms(ms: float) -> str:
    if ms >= 1000:
        return f"{ms / 1000:.2f} s"
    if ms >= 100:
        return f"{ms:.0f} ms"
    if ms >= 10:
        return f"{ms:.1f} ms"
    return f"{ms:.2f} ms"


def _hits(records: Sequence[CallRecord]) -> list[float]:
    return [r.latency_ms for r in records if r.kind is CallKind.CACHE_HIT]


def _round_medians(samples: Sequence[float]) -> list[float]:
    """Up to ROUNDS medians of consecutive runs of samples, two samples or more each: a
    round of one sample is a single sample, never the ground for a verdict."""
    count = min(ROUNDS, len(samples) // 2)
    if count == 0:
        return []
    size = len(samples) / count
    return [
        statistics.median(samples[round(i * size) : round((i + 1) * size)]) for i in range(count)
    ]


def resolved(comparison: Comparison, values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each call's full parameter values: ``values`` (defaults, or a GUI's sliders) updated."""
    return [{**values, **call} for call in comparison.calls]


# What each run measured, row by row (key of Side.to_json, then its words): the CLI's
# --compare table and the app's Complete table show the rows the lesson's measure reads.
SIDE_ROWS = (
    ("calls", Text("calls", "调用次数")),
    ("compiles", Text("compiles", "编译次数")),
    ("errors", Text("failed calls", "失败的调用")),
    ("runtime_lines", Text("lines printed at run time", "运行时打印的行数")),
    ("trace_lines", Text("lines printed while tracing", "追踪时打印的行数")),
    ("counter", Text("counter at the end", "计数最终值")),
    ("program_size", Text("largest program (equations)", "最大程序（等式数）")),
    ("compile_ms", Text("time lost to compiling (ms)", "编译耗时（毫秒）")),
)


# -- the learner's prediction: settled on the question's own calls ---------------------------
class Counted(enum.StrEnum):
    """What a scenario's question asks the learner to count."""

    COMPILES = "compiles"  # calls that compiled a program (first compiles and recompiles)
    PRINTED = "printed"  # lines the function printed (while tracing and at run time)
    NOTHING = "nothing"  # the question asks no number: what it asks, its answers say


class Shown(enum.StrEnum):
    """What else a question asks that its own run shows: read off the run's records, so a
    lesson's Complete page answers its whole question (never a stored answer)."""

    JAX_EXPLAINED = "jax-explained"  # did JAX say why each recompile happened?
    # What an error's anatomy and its eager replay leave in a call's notes (the scenario's
    # facts: ``analyze_error(...).to_json()`` as "anatomy", ``rerun_eagerly`` as "eager"):
    DISABLE_JIT = "disable-jit"  # does the same call fail under jax.disable_jit() too?
    ERROR_LINE = "error-line"  # which line of the user's code does the error point at?


@dataclass(frozen=True)
class Fact:
    """A fact of the question's run (a key of ``Scenario.facts``, noted on each call) that
    answers part of the question, in the scenario's words: ``{value}`` is its value after the
    run's last call (a list joined), ``{n}`` how many items it holds."""

    key: str
    words: Text


@dataclass(frozen=True)
class QuestionRun:
    """How a scenario's question is settled: the question's own calls, run on one variant
    from a fresh start, what the question counts, and what else it asks that the run shows
    (``shows``, ``facts``). The prediction is graded on this run alone; the lesson's
    comparison (:class:`~jitlab.lab.spec.Comparison`) is a second, separate finding."""

    variant: str
    calls: tuple[ParamValues, ...]
    counts: Counted = Counted.COMPILES
    shows: tuple[Shown, ...] = ()
    facts: tuple[Fact, ...] = ()


@dataclass(frozen=True)
class Graded:
    """The question's run, counted, and the learner's number against it."""

    count: int
    where: tuple[int, ...]  # the call numbers (the log's #) that compiled / printed
    said: int | None
    right: bool | None  # None: the prediction names no number
    sentence: Text  # which run answered, what it counted, and the prediction's grade
    answers: tuple[Text, ...] = ()  # the question's other parts, as the run answered them

    def to_json(self, language: str = "en") -> dict[str, Any]:
        return {
            "count": self.count,
            "where": list(self.where),
            "said": self.said,
            "right": self.right,
            "text": self.sentence.get(language),
            "answers": [a.get(language) for a in self.answers],
        }


def answered_by(answer: QuestionRun, records: Sequence[CallRecord]) -> bool:
    """Whether a run (from its fresh start) began with the question's own calls: what a run
    counts over its first calls does not depend on the calls made after them."""
    return len(records) >= len(answer.calls) and matches(
        Comparison(Measure.COMPILES, answer.calls), records[: len(answer.calls)]
    )


def grade(
    answer: QuestionRun,
    records: Sequence[CallRecord],
    said: int | None,
    variant: Text,
    params: Iterable[Param] = (),
) -> Graded:
    """The question's count over the first calls of ``records`` (a run that
    :func:`answered_by` accepts), the learner's number ``said`` against it, and the
    question's other parts as the run answered them. ``variant``: the title of the variant
    that ran, for the sentence that says which run answered; ``params``: the scenario's, so
    the calls are said by their labels."""
    run = list(records[: len(answer.calls)])
    answers = tuple(a for shown in answer.shows if (a := _shown(shown, run)) is not None)
    answers += tuple(a for fact in answer.facts if (a := _fact(fact, run)) is not None)
    if answer.counts is Counted.NOTHING:
        where: tuple[int, ...] = ()
        count = 0
        en_n = zh_n = ""
    elif answer.counts is Counted.PRINTED:
        where = tuple(r.index for r in run if r.stdout)
        count = sum(len(r.stdout) for r in run)
        en_n, zh_n = _count(count, "line") + " printed", f"打印了 {count} 行"
    else:
        where = tuple(r.index for r in run if r.kind in _COMPILED)
        count = len(where)
        en_n, zh_n = f"{_count(count, 'compile')}", f"编译了 {count} 次"
    params = tuple(params)
    calls_en, calls_zh = (
        _call_list(answer.calls, params, "en"),
        _call_list(answer.calls, params, "zh"),
    )
    span = f"#{run[0].index}–#{run[-1].index}" if len(run) > 1 else f"#{run[0].index}"
    at = ", ".join(f"#{i}" for i in where)
    at_en, at_zh = (f" ({at})", f"（{at}）") if where else ("", "")
    role_en, role_zh = _ROLES.get(answer.variant, (answer.variant, answer.variant))
    what_en, what_zh = (f": {en_n}{at_en}.", f"：{zh_n}{at_zh}。") if en_n else (".", "。")
    head = Text(
        f"The question, run for itself: its calls ({calls_en}) on the {role_en} "
        f"(“{variant.en}”), calls {span} of the log{what_en}",
        f"题目单独跑了一遍：它自己的调用（{calls_zh}）在{role_zh}（“{variant.zh}”）上，"
        f"即日志里的 {span}{what_zh}",
    )
    if said is None or answer.counts is Counted.NOTHING:
        return Graded(count, where, None, None, head, answers)
    right = said == count
    tail = (
        Text(f" You said {said}: right.", f"你说 {said}：对了。")
        if right
        else Text(f" You said {said}: the run says {count}.", f"你说 {said}：运行结果是 {count}。")
    )
    sentence = Text(head.en + tail.en, head.zh + tail.zh)
    return Graded(count, where, said, right, sentence, answers)


_ROLES = {"pitfall": ("pitfall", "陷阱版"), "fix": ("fix", "修正版")}


def _call_list(calls: Sequence[Mapping[str, Any]], params: Sequence[Param], lang: str) -> str:
    """The calls in a few words: how many, then each parameter that is set, by its label,
    with its values' labels in order (one value when it never changes)."""
    keys: list[str] = []
    for call in calls:
        keys.extend(k for k in call if k not in keys)
    zh = lang.startswith("zh")
    words = [f"{len(calls)} 次调用" if zh else _calls(len(calls))]
    for key in keys:
        values = [value_words(params, {key: call[key]}, lang)[0] for call in calls if key in call]
        shown = [v for _, v in values]
        shown = shown[:1] if len(set(shown)) == 1 else shown
        words.append(values[0][0] + ("：" if zh else ": ") + ("、" if zh else ", ").join(shown))
    return ("；" if zh else "; ").join(words)


def _shown(shown: Shown, run: Sequence[CallRecord]) -> Text | None:
    """One more part of the question, as the run answered it (None: the run cannot say)."""
    if shown is Shown.JAX_EXPLAINED:
        return _jax_explained(run)
    failed = next((r for r in run if r.error is not None), None)
    notes = dict(failed.notes or {}) if failed is not None else {}
    if shown is Shown.DISABLE_JIT:
        eager = notes.get("eager")
        if not isinstance(eager, Mapping):
            return None
        if eager.get("ok"):
            return Text(
                "Under jax.disable_jit() the same call runs without error: the code is right "
                "for real values; under jit it asked for a value too early, while tracing.",
                "在 jax.disable_jit() 下，同一次调用不再报错：代码对具体数值是对的；在 jit 下"
                "它只是问得太早——追踪时就要具体的值。",
            )
        kind = str(eager.get("error_type") or "")
        return Text(
            f"Under jax.disable_jit() the same call fails too ({kind}): a real bug, not a "
            "tracing one.",
            f"在 jax.disable_jit() 下，同一次调用也失败了（{kind}）：这是真 bug，不是追踪问题。",
        )
    anatomy = notes.get("anatomy")
    stack = anatomy.get("stack") if isinstance(anatomy, Mapping) else None
    if not stack:
        return None
    frame = stack[-1]
    code = str(frame.get("code", "")).split("  # ")[0].strip()
    at = f"{PurePath(str(frame.get('file', ''))).name}:{frame.get('line')}"
    function = frame.get("function", "")
    return Text(
        f"The error points at your own line, {at} in {function}(): {code}",
        f"报错指向你自己的那一行：{function}() 里的 {at}：{code}",
    )


def _jax_explained(run: Sequence[CallRecord]) -> Text:
    """Whether JAX said why each recompile of the run happened (its explanation kept on the
    reason), and what jitlab's own signature diff named."""
    again = [r for r in run if r.kind is CallKind.RECOMPILE]
    if not again:
        return Text(
            "Nothing recompiled: there was nothing for JAX to explain.",
            "没有重编译：JAX 没什么可解释的。",
        )
    told = [r for r in again if r.reason is not None and r.reason.jax_explanation]
    at, at_zh = (sep.join(f"#{r.index}" for r in again) for sep in (", ", "、"))
    first = again[0]
    items = first.reason.items if first.reason is not None else ()
    named_en = render(items[0], "en") if items else ""
    named_zh = render(items[0], "zh") if items else ""
    diff_en = (
        f" jitlab's own signature diff named it (#{first.index}: {named_en})." if items else ""
    )
    diff_zh = f"jitlab 自己的签名比对指出了变化（#{first.index}：{named_zh}）。" if items else ""
    n = len(again)
    if not told:
        none = (
            "did not explain the recompile" if n == 1 else f"explained none of the {n} recompiles"
        )
        return Text(
            f"Did JAX say why? No: it {none} ({at}).{diff_en}",
            f"JAX 说了原因吗？没有：{n} 次重编译（{at_zh}）它一次也没解释。{diff_zh}",
        )
    return Text(
        f"Did JAX say why? For {len(told)} of the {_count(n, 'recompile')} ({at}).{diff_en}",
        f"JAX 说了原因吗？{n} 次重编译（{at_zh}）里它解释了 {len(told)} 次。{diff_zh}",
    )


def _fact(fact: Fact, run: Sequence[CallRecord]) -> Text | None:
    """A fact the run's last call noted, in the scenario's words (None when not noted)."""
    notes = dict(run[-1].notes or {}) if run else {}
    if fact.key not in notes:
        return None
    value = notes[fact.key]
    items = [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]
    n = len(items)
    return Text(
        fact.words.en.format(value=", ".join(items) or "nothing", n=n),
        fact.words.zh.format(value="、".join(items) or "空", n=n),
    )
