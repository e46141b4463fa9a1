"""Predict-then-run exercises: the user predicts, the real run under the probe settles it.

An exercise never stores its answer. :meth:`Exercise.run` executes the snippet (the code
the user is shown) with fresh JAX caches and a probe around every jitted function, then the
exercise's ``settle`` function reads the answer off the evidence: call records, printed
lines, and the facts the snippet noted. Running is a plain blocking call that returns frozen
objects and prints nothing, so a GUI worker thread can drive it.

It lives in the lab (beside the spec a scenario declares its exercises in) and imports JAX
only when an exercise runs: scenarios and plugins take these names from
:mod:`jitlab.lab.scenario`, and the quiz (:mod:`jitlab.quiz`) runs them.
"""

from __future__ import annotations

import enum
import inspect
import textwrap
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from jitlab.lab.spec import ChapterLike, Text, in_language
from jitlab.probe.devices import mesh_device_count
from jitlab.records.calls import CallRecord, ErrorInfo, OutputLine

NO_ERROR = "none"  # the answer of an ERROR exercise whose snippet runs cleanly

# Names too general to count as naming the error (every exception is one of these).
_TOO_GENERAL = {"BaseException", "Exception", "object"}


class AnswerKind(enum.StrEnum):
    NUMBER = "number"  # a whole number: prints, compiles, a value
    CHOICE = "choice"  # one of the exercise's options
    ERROR = "error"  # an exception type name, or "none"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Option:
    id: str
    label: Text


@dataclass(frozen=True)
class Answer:
    """What the run showed, in the exercise's terms."""

    value: int | str
    detail: Text  # how the evidence gives this answer, in words
    also: tuple[str, ...] = ()  # ERROR answers: base classes that name it correctly too

    def to_json(self, language: str = "en") -> dict[str, Any]:
        return {"value": self.value, "also": list(self.also), "detail": self.detail.get(language)}


@dataclass(frozen=True)
class Evidence:
    """Everything one run of a snippet produced."""

    records: tuple[CallRecord, ...]  # every probed call, in call order
    facts: Mapping[str, Any]  # what the snippet noted (a counter, timings, sizes…)
    raised: ErrorInfo | None  # an exception that escaped the snippet itself
    devices: int
    wall_ms: float

    @property
    def printed(self) -> tuple[OutputLine, ...]:
        """Lines printed during probed calls, tagged "trace" or "runtime"."""
        return tuple(line for record in self.records for line in record.stdout)

    @property
    def compiles(self) -> int:
        return sum(1 for r in self.records if r.kind.compiled)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(r.kind.value for r in self.records)

    @property
    def first_error(self) -> ErrorInfo | None:
        for record in self.records:
            if record.error is not None:
                return record.error
        return self.raised

    def to_json(self) -> dict[str, Any]:
        from jitlab.records.calls import jsonable
        from jitlab.records.change_words import call_json

        return {
            "calls": list(self.kinds),
            "compiles": self.compiles,
            "printed": [line.to_json() for line in self.printed],
            "facts": jsonable(dict(self.facts)),
            "raised": self.raised.to_json() if self.raised else None,
            "devices": self.devices,
            "records": [call_json(r) for r in self.records],
        }


@dataclass(frozen=True)
class Outcome:
    """The result of running an exercise once."""

    exercise: str
    answer: Answer | None  # None when skipped or when the run itself broke
    evidence: Evidence | None
    skipped: Text | None = None  # why it could not run here (e.g. one device)
    failure: str | None = None  # the run broke in a way the exercise did not plan for

    @property
    def ok(self) -> bool:
        return self.answer is not None


@dataclass(frozen=True)
class Verdict:
    exercise: str
    prediction: int | str | None  # None: no prediction (skipped, out of time)
    outcome: Outcome
    correct: bool
    exact: bool  # False when an ERROR prediction named a base class of the real error
    timed_out: bool = False

    @property
    def answer(self) -> Answer | None:
        return self.outcome.answer


class Bench:
    """What a snippet receives as ``lab``: ``lab.jit`` is ``jax.jit`` with the probe around it.

    Probed calls do not raise: an error becomes a record (kind ``error``) and the call
    returns None, so a snippet can make the failing call last and still be read.
    """

    def __init__(self) -> None:
        self.records: list[CallRecord] = []
        self.facts: dict[str, Any] = {}

    def jit(self, fn: Callable[..., Any] | None = None, /, **jit_kwargs: Any) -> Any:
        if fn is None:
            return lambda f: self.jit(f, **jit_kwargs)
        from jitlab.probe.probe import Probe  # JAX loads once a snippet runs, not at import

        return Probe(fn, keep_going=True, on_record=self.records.append, **jit_kwargs)

    def note(self, name: str, value: Any) -> None:
        self.facts[name] = value


Snippet = Callable[[Bench], Any]
Settle = Callable[[Evidence], Answer]

_RUN_LOCK = threading.Lock()  # one exercise at a time: each run clears JAX's caches


@dataclass(frozen=True)
class Exercise:
    """One predict-then-run exercise, declared in a scenario's ``exercises``.

    ``scenario``, ``chapter`` and ``icon`` are the declaring scenario's: the catalogue
    (:mod:`jitlab.quiz.exercises`) fills them in from discovery, so a declaration leaves
    them out.
    """

    id: str
    title: Text
    question: Text
    explanation: Text
    kind: AnswerKind
    snippet: Snippet = field(repr=False)
    settle: Settle = field(repr=False)
    options: tuple[Option, ...] = ()
    claim: Text | None = None  # a common misconception, stated; the run confirms or refutes it
    variant: str = "pitfall"  # the scenario variant worth opening next
    min_devices: int = 1
    scenario: str = ""  # the scenario that teaches the point (see `jitlab list`)
    chapter: ChapterLike | None = None  # that scenario's chapter
    icon: str = ""  # the file of that scenario's icon
    # The snippet's comments in both languages, as a scenario's ``code_comments``: each
    # Text's ``en`` is a comment as written, without the ``#`` (see :meth:`source_in`).
    code_comments: tuple[Text, ...] = ()
    # The answer its author expects from this JAX, written out by hand (an int for NUMBER, an
    # option id or error name else). Never shown and never graded against: the quiz reads the
    # answer off the run. The tests and `jitlab check` compare the run with it, so a JAX that
    # changes what the exercise teaches is caught (a built-in must give it).
    expected: int | str | None = None

    @property
    def pitfall(self) -> ChapterLike | None:
        """The chapter (older name, kept for the views and ``--json``)."""
        return self.chapter

    @property
    def misconception(self) -> bool:
        return self.claim is not None

    @property
    def source(self) -> str:
        """The code that runs, as shown to the user."""
        return textwrap.dedent(inspect.getsource(self.snippet)).rstrip() + "\n"

    def source_in(self, language: str) -> str:
        """The code that runs, its comments in ``language`` (the output stays as printed)."""
        return in_language(self.source, self.code_comments, language)

    # -- predictions ----------------------------------------------------------------------
    def parse(self, text: str | int) -> int | str:
        """Turn what the user typed into a prediction, or raise ValueError saying what fits."""
        raw = str(text).strip()
        if self.kind is AnswerKind.NUMBER:
            try:
                value = int(raw)
            except ValueError:
                raise ValueError(f"{self.id} expects a whole number, not {raw!r}") from None
            if value < 0:
                raise ValueError(f"{self.id} expects a whole number ≥ 0, not {raw!r}")
            return value
        lowered = raw.lower()
        for position, option in enumerate(self.options):
            if lowered in (option.id.lower(), _letter(position)):
                return option.id
        if self.kind is AnswerKind.ERROR:
            if lowered in ("none", "no error", "no-error", "no", "ok"):
                return NO_ERROR
            if raw.isidentifier() and raw[0].isupper():  # an exception's name
                return raw
        allowed = ", ".join(f"{_letter(i)}/{o.id}" for i, o in enumerate(self.options))
        extra = " or an exception name" if self.kind is AnswerKind.ERROR else ""
        raise ValueError(f"{self.id} expects one of {allowed}{extra}, not {raw!r}")

    # -- the run --------------------------------------------------------------------------
    def run(self) -> Outcome:
        """Run the snippet for real with empty caches and read the answer off the evidence."""
        devices = mesh_device_count()  # several GPUs, else simulated CPU devices beside one
        if devices < self.min_devices:
            return Outcome(self.id, None, None, skipped=_too_few_devices(self.min_devices, devices))
        import jax  # loaded by the run, not by the import (plugins import this module)

        with _RUN_LOCK:
            jax.clear_caches()
            bench = Bench()
            raised = None
            start = time.perf_counter()
            try:
                self.snippet(bench)
            except Exception as exc:
                raised = ErrorInfo(type(exc).__name__, str(exc).strip()[:2000], exc)
            wall_ms = (time.perf_counter() - start) * 1e3
        evidence = Evidence(
            tuple(bench.records), MappingProxyType(dict(bench.facts)), raised, devices, wall_ms
        )
        error = evidence.first_error
        if error is not None and self.kind is not AnswerKind.ERROR:
            # Not part of the lesson: say so rather than read an answer off a broken run.
            first = error.message.splitlines()[0] if error.message else ""
            return Outcome(self.id, None, evidence, failure=f"{error.type}: {first}")
        try:
            answer = self.settle(evidence)
        except Exception as exc:  # a JAX change the exercise did not foresee
            return Outcome(self.id, None, evidence, failure=f"{type(exc).__name__}: {exc}")
        return Outcome(self.id, answer, evidence)

    def check(
        self, prediction: int | str | None, outcome: Outcome | None = None, timed_out: bool = False
    ) -> Verdict:
        """Compare a prediction with a real run (made now unless ``outcome`` is given)."""
        if prediction is not None:
            prediction = self.parse(prediction)
        outcome = outcome if outcome is not None else self.run()
        answer = outcome.answer
        correct = exact = False
        if answer is not None and prediction is not None:
            if isinstance(answer.value, str) and isinstance(prediction, str):
                exact = prediction.lower() == answer.value.lower()
                correct = exact or prediction.lower() in (n.lower() for n in answer.also)
            else:
                exact = correct = prediction == answer.value
        if timed_out:
            correct = False
        return Verdict(self.id, prediction, outcome, correct, exact, timed_out)


def _letter(position: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[position]


def _too_few_devices(needed: int, devices: int) -> Text:
    return Text(
        f"This exercise needs at least {needed} devices and JAX sees {devices}. Run it "
        "through `jitlab quiz`, which asks XLA for 8 simulated CPU devices before JAX starts.",
        f"这道题至少需要 {needed} 台设备，而 JAX 只看到 {devices} 台。请通过 `jitlab quiz` "
        "运行：它会在 JAX 启动前让 XLA 模拟 8 台 CPU 设备。",
    )


# -- helpers for declaring exercises ---------------------------------------------------------
CLAIM = (
    Option("true", Text("True — the run will confirm it", "对——运行会证实它")),
    Option("false", Text("False — the run will refute it", "错——运行会推翻它")),
)  # the options of a misconception exercise (one with a ``claim``)


def error_options(*names: str) -> tuple[Option, ...]:
    """Options of an ERROR exercise: "none" first, then exception names."""
    return (
        Option(NO_ERROR, Text("No error: it runs", "不报错，正常运行")),
        *(Option(name, Text(name, name)) for name in names),
    )


def claim_verdict(holds: bool) -> str:
    """The answer of a misconception exercise: the CLAIM option the evidence supports."""
    return "true" if holds else "false"


# -- helpers for settle functions ------------------------------------------------------------
def error_answer(evidence: Evidence) -> Answer:
    """The answer of an ERROR exercise: the first error of the run, or "none"."""
    error = evidence.first_error
    if error is None:
        return Answer(
            NO_ERROR,
            Text("The snippet ran to the end: nothing raised.", "代码一路跑完，没有抛出任何异常。"),
        )
    also: tuple[str, ...] = ()
    if error.exception is not None:
        also = tuple(
            c.__name__
            for c in type(error.exception).__mro__[1:]
            if c.__name__ not in _TOO_GENERAL and not c.__name__.startswith("_")
        )
    first = error.message.splitlines()[0] if error.message else ""
    where = _where(evidence, error)
    return Answer(
        error.type,
        Text(f"{where[0]} raised {error.type}: {first}", f"{where[1]}抛出了 {error.type}：{first}"),
        also,
    )


def _where(evidence: Evidence, error: ErrorInfo) -> tuple[str, str]:
    for record in evidence.records:
        if record.error is error:
            return (
                f"Call {record.index + 1} of {record.function}",
                f"{record.function} 的第 {record.index + 1} 次调用",
            )
    return ("The code outside the jitted function", "jit 函数外面的代码")


_KIND_WORDS = {
    "compile": ("compile", "编译"),
    "recompile": ("recompile", "重编译"),
    "cache_hit": ("cache hit", "命中缓存"),
    "persistent_hit": ("disk-cache load", "从磁盘缓存加载"),
    "error": ("error", "报错"),
    "eager": ("ran eagerly (jit disabled)", "逐行执行（jit 已关闭）"),
    "traced": ("traced into an outer computation", "被并入外层计算追踪"),
}


def kind_text(kind: str) -> Text:
    """What one call did, in words (a kind jitlab adds later shows as its name)."""
    en, zh = _KIND_WORDS.get(str(kind), (str(kind), str(kind)))
    return Text(en, zh)


def calls_text(evidence: Evidence) -> Text:
    """``compile · cache hit · recompile`` in both languages."""
    words = [kind_text(kind) for kind in evidence.kinds]
    return Text(" · ".join(w.en for w in words), " · ".join(w.zh for w in words))


def compile_answer(evidence: Evidence) -> Answer:
    """NUMBER answer: how many executables the calls produced (compile + recompile)."""
    calls = calls_text(evidence)
    n = evidence.compiles
    return Answer(
        n,
        Text(
            f"{len(evidence.records)} calls: {calls.en} → {n} compile(s).",
            f"{len(evidence.records)} 次调用：{calls.zh} → 编译 {n} 次。",
        ),
    )


def printed_answer(evidence: Evidence, when: str | None = None) -> Answer:
    """NUMBER answer: lines printed during probed calls (only ``when`` = trace/runtime if set)."""
    lines = [line for line in evidence.printed if when is None or line.when == when]
    shown = "; ".join(f"[{line.when}] {line.text}" for line in lines) or "—"
    return Answer(
        len(lines),
        Text(
            f"{len(lines)} line(s) printed over {len(evidence.records)} calls: {shown}",
            f"{len(evidence.records)} 次调用共打印 {len(lines)} 行：{shown}",
        ),
    )
