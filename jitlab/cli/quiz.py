"""``jitlab quiz``: predict, then run the real code, in the terminal.

The terminal face of :mod:`jitlab.quiz` (the headless exercises and interview rounds).
Wired into the main command with :func:`add_parser` and :func:`run`; also runnable alone as
``python -m jitlab.cli.quiz``. What it shows lives in :mod:`jitlab.cli.quiz_view`. Importing
this module is cheap (no JAX) so that building the main parser stays fast.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from jitlab.cli._usage import UsageParser, fail, language_in, set_language
from jitlab.cli.quiz_view import STOP, QuizView, parse_prediction
from jitlab.records import messages

if TYPE_CHECKING:
    from jitlab.lab.exercise import Exercise

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
    from jitlab.cli._output import machine_output

    try:
        with machine_output(bool(args.json)):  # JSON lines only, whatever JAX prints
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
        from jitlab.cli._qt import qt_or_exit

        with qt_or_exit():  # a bare server: one line naming the missing library
            from jitlab.gui.app import open_quiz

        return open_quiz(
            language=getattr(args, "lang", None),
            exercise=selected[0].id if args.exercise or args.scenario else None,
            interview=args.interview is not None,
        )
    view = QuizView(language, args.json)
    if args.json and not args.solve and args.interview is None and not args.answer:
        # JSON lines cannot ask for predictions: with no action, the one that needs none.
        print(_say("quiz.json_lists"), file=sys.stderr)
        args.list = True
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


def _practice(args: argparse.Namespace, view: QuizView, selected: Sequence[Exercise]) -> int:
    given = _parse_answers(args.answer, selected) if args.answer else None
    score = 0
    for position, exercise in enumerate(selected):
        view.question(exercise, position, len(selected))
        if given is not None:
            prediction = given[position]
        else:
            prediction = view.ask(exercise)
            if prediction is STOP:
                return view.stopped(score, position)
        verdict = exercise.check(prediction)
        score += verdict.correct
        view.verdict(exercise, verdict)
    view.summary(score, len(selected))
    return 0


def _interview(args: argparse.Namespace, view: QuizView, pool: Sequence[Exercise]) -> int:
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
            if prediction is STOP:
                view.interview_end(interview)
                return 1
        verdict = interview.submit(prediction)
        view.verdict(exercise, verdict, interview.results[-1].elapsed_s)
    view.interview_end(interview)
    return 0


def _say(key: str, /, **fields: Any) -> str:
    from jitlab.cli._usage import say

    return say(key, **fields)


if __name__ == "__main__":
    raise SystemExit(main())
