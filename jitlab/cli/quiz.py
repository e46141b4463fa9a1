"""``jitlab quiz``: predict, then run the real code, in the terminal.

The terminal face of :mod:`jitlab.quiz` (the headless exercises and interview rounds).
Wired into the main command with :func:`add_parser` and :func:`run`; also runnable alone as
``python -m jitlab.cli.quiz``. Importing this module is cheap (no JAX) so that building the
main parser stays fast.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from jitlab.cli._usage import UsageParser, fail, language_in, set_language
from jitlab.records import messages
from jitlab.records.calls import dumps_strict

if TYPE_CHECKING:
    from rich.console import Console

    from jitlab.quiz.interview import Interview
    from jitlab.quiz.model import Exercise, Outcome, Verdict

DESCRIPTION = (
    "Predict what jax.jit will do, then let a real run settle it. With no option, walks "
    "through every exercise; --interview N draws a timed round. --answer gives the "
    "predictions up front (one per question) instead of asking."
)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``quiz`` command to the main parser's subparsers."""
    parser = subparsers.add_parser(
        "quiz", help="predict-then-run exercises and interview rounds", description=DESCRIPTION
    )
    configure(parser)
    return parser


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--list", action="store_true", help="list the exercises and stop")
    parser.add_argument(
        "--exercise",
        action="append",
        default=[],
        metavar="ID",
        help="only this exercise (repeatable; see --list)",
    )
    parser.add_argument(
        "--scenario", metavar="SCENARIO", help="only the exercises taught by this scenario"
    )
    parser.add_argument(
        "--interview", type=int, metavar="N", help="a timed round of N questions drawn at random"
    )
    parser.add_argument("--seed", type=int, help="seed of the interview draw (repeat a round)")
    parser.add_argument(
        "--seconds",
        type=float,
        metavar="T",
        help="interview: seconds per question; later answers score nothing (default 60)",
    )
    parser.add_argument(
        "--answer",
        action="append",
        default=[],
        metavar="VALUE",
        help="a prediction (a number, an option letter or id, an exception name or 'none'); "
        "give one per question to answer without being asked",
    )
    parser.add_argument(
        "--solve",
        action="store_true",
        help="run the exercises and show what JAX does, without predicting",
    )
    parser.add_argument("--json", action="store_true", help="JSON lines instead of text")
    parser.add_argument(
        "--gui", action="store_true", help="open the exercises (or --interview) in a window"
    )
    # SUPPRESS: keep a --lang given to the main command (`jitlab --lang zh quiz`).
    parser.add_argument("--lang", choices=("en", "zh"), default=argparse.SUPPRESS)


def build_parser() -> argparse.ArgumentParser:
    parser = UsageParser(prog="jitlab quiz", description=DESCRIPTION)
    configure(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    set_language(language_in(sys.argv[1:] if argv is None else argv))
    args = build_parser().parse_args(argv)
    set_language(getattr(args, "lang", None))
    # The sharding exercises need several devices; XLA reads this only before it starts.
    from jitlab.probe.devices import simulate_cpu_devices

    simulate_cpu_devices(8)
    try:
        return run(args)
    except BrokenPipeError:
        sys.stderr.close()
        return 0


# -- dispatch -------------------------------------------------------------------------------
def run(args: argparse.Namespace) -> int:
    """Run ``jitlab quiz`` with parsed arguments; usage errors exit with status 2."""
    language = messages.language_of(getattr(args, "lang", None))
    set_language(language)  # `python -m jitlab.cli.quiz` as well as `jitlab quiz`
    _check_combinations(args)
    from jitlab.quiz import exercises as catalogue

    for problem in catalogue.catalogue().problems:  # a plugin's exercise that was left out
        print(_say("quiz.left_out", problem=problem), file=sys.stderr)
    if args.scenario is not None and args.scenario not in catalogue.SCENARIOS:
        fail(
            _say(
                "quiz.err.scenario",
                scenario=repr(args.scenario),
                valid=", ".join(catalogue.SCENARIOS),
            )
        )
    for exercise_id in args.exercise:
        if exercise_id not in catalogue.BY_ID:
            fail(
                _say(
                    "quiz.err.exercise",
                    exercise=repr(exercise_id),
                    valid=", ".join(catalogue.BY_ID),
                )
            )
    selected = _select(args, catalogue.EXERCISES)
    if not selected:
        fail(_say("quiz.err.no_match"))
    if args.gui:
        from jitlab.gui.app import open_quiz

        return open_quiz(
            language=getattr(args, "lang", None),
            exercise=selected[0].id if args.exercise or args.scenario else None,
            interview=args.interview is not None,
        )
    view = _View(language, args.json)
    if args.list:
        return view.listing(selected)
    if args.solve:
        return view.solve(selected)
    if args.interview is not None:
        return _interview(args, view, catalogue.available())
    return _practice(args, view, selected)


def _check_combinations(args: argparse.Namespace) -> None:
    modes = [name for name in ("list", "solve") if getattr(args, name)]
    if args.interview is not None:
        modes.append("interview")
    if len(modes) > 1:
        fail(_say("quiz.err.modes", modes=" / ".join(f"--{m}" for m in modes)))
    if args.answer and modes and modes[0] != "interview":
        fail(_say("quiz.err.answer_mode", mode=modes[0]))
    if args.interview is not None and (args.exercise or args.scenario):
        fail(_say("quiz.err.interview_select"))
    if args.interview is None and (args.seed is not None or args.seconds is not None):
        fail(_say("quiz.err.seed_seconds"))
    # float() takes "nan" and "inf": NaN slips past `<= 0`, and inf is no time limit at all.
    if args.seconds is not None and not (math.isfinite(args.seconds) and args.seconds > 0):
        fail(_say("quiz.err.seconds", value=f"{args.seconds:g}"))
    if args.json and not modes and not args.answer:
        fail(_say("quiz.err.json"))
    if args.json and modes == ["interview"] and not args.answer:
        fail(_say("quiz.err.json_interview"))


def _select(args: argparse.Namespace, every: Sequence[Exercise]) -> list[Exercise]:
    chosen = [e for e in every if not args.exercise or e.id in args.exercise]
    if args.exercise:  # keep the order the user gave
        chosen.sort(key=lambda e: args.exercise.index(e.id))
    return [e for e in chosen if args.scenario is None or e.scenario == args.scenario]


def _parse_answers(answers: list[str], questions: Sequence[Exercise]) -> list[int | str]:
    if len(answers) != len(questions):
        fail(_say("quiz.err.answers", got=len(answers), n=len(questions)))
    parsed = []
    for exercise, text in zip(questions, answers, strict=True):
        try:
            parsed.append(parse_prediction(exercise, text))
        except ValueError as exc:
            fail(str(exc))
    return parsed


def _practice(args: argparse.Namespace, view: _View, selected: Sequence[Exercise]) -> int:
    given = _parse_answers(args.answer, selected) if args.answer else None
    score = 0
    for position, exercise in enumerate(selected):
        view.question(exercise, position, len(selected))
        if given is not None:
            prediction = given[position]
        else:
            prediction = view.ask(exercise)
            if prediction is _STOP:
                return view.stopped(score, position)
        verdict = exercise.check(prediction)
        score += verdict.correct
        view.verdict(exercise, verdict)
    view.summary(score, len(selected))
    return 0


def _interview(args: argparse.Namespace, view: _View, pool: Sequence[Exercise]) -> int:
    from jitlab.quiz.interview import DEFAULT_SECONDS, Interview

    seconds = args.seconds if args.seconds is not None else DEFAULT_SECONDS
    try:
        interview = Interview(args.interview, seed=args.seed, seconds=seconds, pool=pool)
    except ValueError as exc:
        fail(_say("quiz.err.interview", error=exc))
    given = _parse_answers(args.answer, interview.questions) if args.answer else None
    view.interview_start(interview)
    while not interview.done:
        exercise = interview.start()
        view.question(exercise, interview.position, interview.total, interview.seconds)
        if given is not None:
            prediction = given[interview.position]
        else:
            prediction = view.ask(exercise, interview)
            if prediction is _STOP:
                view.interview_end(interview)
                return 1
        verdict = interview.submit(prediction)
        view.verdict(exercise, verdict, interview.results[-1].elapsed_s)
    view.interview_end(interview)
    return 0


_STOP: Any = object()  # the user left (end of input, or "q")


def parse_prediction(exercise: Exercise, text: str) -> int | str:
    """:meth:`Exercise.parse`, its complaint said in the command's language."""
    from jitlab.cli._usage import language
    from jitlab.quiz.model import AnswerKind

    try:
        return exercise.parse(text)
    except ValueError:
        if language() == "en":
            raise  # the exercise's own words
        raw = repr(str(text).strip())
        if exercise.kind is AnswerKind.NUMBER:
            whole = str(text).strip().lstrip("-").isdigit()
            key = "quiz.parse.negative" if whole else "quiz.parse.number"
            raise ValueError(_say(key, exercise=exercise.id, value=raw)) from None
        allowed = messages.listing(
            (f"{'abcdefghij'[i]}/{o.id}" for i, o in enumerate(exercise.options)), language()
        )
        key = "quiz.parse.error" if exercise.kind is AnswerKind.ERROR else "quiz.parse.choice"
        raise ValueError(_say(key, exercise=exercise.id, allowed=allowed, value=raw)) from None


def _say(key: str, /, **fields: Any) -> str:
    from jitlab.cli._usage import say

    return say(key, **fields)


# -- output ---------------------------------------------------------------------------------
def exercise_json(exercise: Exercise, language: str) -> dict[str, Any]:
    return {
        "exercise": exercise.id,
        "scenario": exercise.scenario,
        "variant": exercise.variant,
        "pitfall": int(exercise.pitfall) if exercise.pitfall is not None else None,
        "kind": exercise.kind.value,
        "title": exercise.title.get(language),
        "claim": exercise.claim.get(language) if exercise.claim else None,
        "question": exercise.question.get(language),
        "options": [{"id": o.id, "label": o.label.get(language)} for o in exercise.options],
        "min_devices": exercise.min_devices,
        "source": exercise.source,
    }


def outcome_json(outcome: Outcome, language: str) -> dict[str, Any]:
    answer = outcome.answer
    return {
        "answer": answer.value if answer else None,
        "also": list(answer.also) if answer else [],
        "detail": answer.detail.get(language) if answer else None,
        "skipped": outcome.skipped.get(language) if outcome.skipped else None,
        "failure": outcome.failure,
        "evidence": outcome.evidence.to_json() if outcome.evidence else None,
    }


def verdict_json(exercise: Exercise, verdict: Verdict, language: str) -> dict[str, Any]:
    return {
        "exercise": exercise.id,
        "scenario": exercise.scenario,
        "variant": exercise.variant,
        "prediction": verdict.prediction,
        "correct": verdict.correct,
        "exact": verdict.exact,
        "timed_out": verdict.timed_out,
        "explanation": exercise.explanation.get(language),
        "next": play_command(exercise),
        **outcome_json(verdict.outcome, language),
    }


def play_command(exercise: Exercise) -> str:
    variant = "" if exercise.variant == "pitfall" else f" --variant {exercise.variant}"
    return f"jitlab run {exercise.scenario}{variant}"


class _View:
    """Text (rich) or JSON lines for every step of the quiz."""

    def __init__(self, language: str, as_json: bool) -> None:
        from rich.console import Console

        self.language = language
        self.as_json = as_json
        self.lang = messages.language_of(language)
        self.console: Console = Console(highlight=False)

    def _t(self, text: Any) -> str:
        return text.get(self.language)

    def _w(self, key: str, /, **fields: Any) -> str:
        return messages.say(f"quiz.{key}", self.lang, **fields)

    def _emit(self, obj: dict[str, Any]) -> None:
        print(dumps_strict(obj), flush=True)  # strict JSON: NaN and ±inf as null

    def _print(self, text: str = "", style: str | None = None) -> None:
        from rich.text import Text as RichText

        self.console.print(RichText(text, style=style or ""))

    # -- listing and solving ------------------------------------------------------------
    def listing(self, selected: Sequence[Exercise]) -> int:
        if self.as_json:
            for exercise in selected:
                self._emit(exercise_json(exercise, self.language))
            return 0
        from rich.markup import escape
        from rich.table import Table

        table = Table(title="jitlab quiz", show_lines=False)
        for column in ("col.exercise", "col.scenario", "col.kind", "col.title"):
            table.add_column(messages.say(column, self.lang), overflow="fold")
        for exercise in selected:
            kind = "misconception" if exercise.misconception else exercise.kind.value
            kind = kind if self.lang == "en" else self._w(f"kind.{kind}")
            table.add_row(exercise.id, exercise.scenario, kind, escape(self._t(exercise.title)))
        self.console.print(table)
        return 0

    def solve(self, selected: Sequence[Exercise]) -> int:
        for exercise in selected:
            outcome = exercise.run()
            if self.as_json:
                self._emit({"exercise": exercise.id, **outcome_json(outcome, self.language)})
                continue
            self._print(f"{exercise.id}: {self._t(exercise.question)}", "bold")
            self._outcome(exercise, outcome)
            self._print()
        return 0

    # -- one question -------------------------------------------------------------------
    def question(
        self, exercise: Exercise, position: int, total: int, seconds: float | None = None
    ) -> None:
        if self.as_json:
            return
        from rich.rule import Rule
        from rich.syntax import Syntax

        head = f"{self._w('exercise')} {position + 1}/{total} · {exercise.id}"
        if seconds is not None:
            head += f" · {self._w('seconds_left', s=f'{seconds:g}')}"
        self.console.print(Rule(head))
        self._print(self._t(exercise.title), "bold")
        if exercise.pitfall is not None:
            self._print(self._t(exercise.pitfall.title), "dim")
        if exercise.claim is not None:
            colon = "：" if self.lang == "zh" else ": "
            self._print(f"{self._w('claim')}{colon}“{self._t(exercise.claim)}”", "italic")
        if "lab.jit" in exercise.source:
            self._print(self._w("lab"), "dim")
        self.console.print(Syntax(exercise.source, "python", theme="ansi_dark", word_wrap=True))
        self._print(self._t(exercise.question))
        for position_, option in enumerate(exercise.options):
            self._print(f"  {'abcdefghij'[position_]}) {self._t(option.label)}")

    def ask(self, exercise: Exercise, interview: Interview | None = None) -> Any:
        from rich.markup import escape

        from jitlab.quiz.model import AnswerKind

        key = {
            AnswerKind.NUMBER: "prompt_number",
            AnswerKind.CHOICE: "prompt_choice",
            AnswerKind.ERROR: "prompt_error",
        }[exercise.kind]
        while True:
            extra = ""
            if interview is not None:
                left = self._w("seconds_left", s=max(0, round(interview.remaining())))
                extra = f" [{left}]"
            colon, gap = ("：", "") if self.lang == "zh" else (": ", " ")
            prompt = f"{self._w(key)}{extra}{gap}{self._w('quit')}{colon}"
            try:
                text = self.console.input(escape(prompt))
            except EOFError:
                return _STOP
            if text.strip().lower() in ("q", "quit", "exit"):
                return _STOP
            try:
                return parse_prediction(exercise, text)
            except ValueError as exc:
                self._print(str(exc), "yellow")

    def verdict(self, exercise: Exercise, verdict: Verdict, elapsed: float | None = None) -> None:
        if self.as_json:
            obj = verdict_json(exercise, verdict, self.language)
            if elapsed is not None:
                obj["elapsed_s"] = round(elapsed, 3)
            self._emit(obj)
            return
        answer = verdict.answer
        if verdict.prediction is not None:
            self._print(self._w("you", value=self._label(exercise, verdict.prediction)))
        if verdict.timed_out:
            self._print(self._w("late_after", s=f"{elapsed or 0:.0f}"), "yellow")
        elif answer is None:
            pass
        elif verdict.correct and not verdict.exact:
            self._print(self._w("close", value=answer.value), "green")
        elif verdict.correct:
            self._print(self._w("right"), "bold green")
        else:
            self._print(self._w("wrong"), "bold red")
        self._outcome(exercise, verdict.outcome)
        self._print(self._t(exercise.explanation))
        self._print(self._w("play", command=play_command(exercise)), "cyan")
        self._print()

    def _label(self, exercise: Exercise, value: int | str) -> str:
        """An option's letter and words next to its id, so the user sees what they chose."""
        for position, option in enumerate(exercise.options):
            if option.id == value:
                label = self._t(option.label)
                return f"{'abcdefghij'[position]}) {label}" if label != value else str(value)
        return str(value)

    def _outcome(self, exercise: Exercise, outcome: Outcome) -> None:
        if outcome.skipped is not None:
            self._print(self._w("skipped", why=self._t(outcome.skipped)), "yellow")
        elif outcome.failure is not None:
            self._print(self._w("broken", why=outcome.failure), "red")
        elif outcome.answer is not None:
            value = self._label(exercise, outcome.answer.value)
            self._print(self._w("run_says", value=value), "bold")
            self._print(self._t(outcome.answer.detail), "dim")

    # -- endings --------------------------------------------------------------------------
    def summary(self, score: int, total: int) -> None:
        if self.as_json:
            self._emit({"summary": {"score": score, "total": total}})
        else:
            self._print(self._w("score", score=score, total=total), "bold")

    def stopped(self, score: int, answered: int) -> int:
        if not self.as_json:
            self._print(self._w("stopped", score=score, total=answered))
        return 1

    def interview_start(self, interview: Interview) -> None:
        if not self.as_json:
            ids = ", ".join(e.id for e in interview.questions)
            self._print(self._w("seed", seed=interview.seed, ids=ids), "dim")

    def interview_end(self, interview: Interview) -> None:
        if self.as_json:
            self._emit({"interview": interview.to_json(self.language)})
            return
        self._print(self._w("score", score=interview.score, total=interview.total), "bold")
        review = interview.review()
        if not review:
            self._print(self._w("nothing"), "green")
            return
        self._print(self._w("review"), "bold")
        for result in review:
            late = ""
            if result.verdict.timed_out:
                late = f"（{self._w('late')}）" if self.lang == "zh" else f" ({self._w('late')})"
            self._print(
                f"  {result.exercise.id} — {self._t(result.exercise.title)}{late} → "
                f"{play_command(result.exercise)}"
            )


if __name__ == "__main__":
    raise SystemExit(main())
