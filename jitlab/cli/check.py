"""``jitlab check PATH_OR_ID``: a scenario checked as a learner meets it, for its author and CI.

It validates the spec (each problem with its file, line, class and attribute), then runs the
lesson once, headless: the pitfall and the fix on each comparison's calls, printed as
``jitlab run`` prints calls, with the verdict; the question's own run and its count; each
exercise, against the answer its author expects. A scenario's own exception is said with its
file and line. Exit status 0 when all of it holds, 1 when anything does not, 2 when nothing
has that name.
"""

from __future__ import annotations

import argparse
from typing import Any

from jitlab.cli._usage import fail, language, say


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "check",
        help="check a scenario file or an installed scenario: its spec, one run, its verdict",
        description="Validate the scenario(s) of PATH_OR_ID (a scenario file, or the id of an "
        "installed or built-in scenario), run the pitfall and the fix once on the lesson's "
        "calls, the question's run and the exercises, and print what a learner would see. "
        "Exit status 0 when everything holds, 1 otherwise (for CI).",
    )
    parser.add_argument("target", metavar="PATH_OR_ID")
    parser.add_argument(
        "--json", action="store_true", help="one JSON object per scenario instead of tables"
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from jitlab.lab.lesson_check import find

    target = str(args.target)
    if target.endswith(".py") and not Path(target).is_file():
        fail(say("check.no_file", path=target))
    entries = find(target)
    if not entries:
        from jitlab.lab.discovery import scenarios

        fail(say("check.not_found", target=repr(target), ids=", ".join(sorted(scenarios()))))
    failures = 0
    for entry in entries:
        failures += _check(entry, bool(getattr(args, "json", False)))
    return 1 if failures else 0


def _check(entry: Any, as_json: bool) -> int:
    """Check one discovered entry; print it; the number of problems found."""
    from jitlab.lab.lesson_check import LessonCheck

    lang = language()
    out = _Printer(as_json)
    if entry.scenario is None:
        out.line(say("check.broken", id=entry.name, error=entry.error or ""), "red")
        out.done(entry.name, {"scenario": entry.name, "ok": False, "error": entry.error}, 1)
        return 1
    cls = entry.scenario
    out.line(say("check.title", title=cls.title.get(lang), id=cls.id, origin=entry.origin), "bold")
    check = LessonCheck(cls)
    report: dict[str, Any] = {"scenario": cls.id, "origin": entry.origin}
    report["problems"] = [str(p) for p in check.problems]
    if check.problems:  # the faces would list it as broken: nothing to run
        out.line(say("check.spec_bad", n=len(check.problems)), "red")
        for problem in check.problems:
            out.line(f"  {problem}")
        out.done(cls.id, {**report, "ok": False}, len(check.problems))
        return len(check.problems)
    out.line(say("check.spec_ok"), "green")
    failures = _runs(check, out, report, lang)
    failures += _question(check, out, report, lang)
    failures += _exercises(check, out, report, lang)
    out.done(cls.id, {**report, "ok": not failures}, failures)
    return failures


def _runs(check: Any, out: _Printer, report: dict[str, Any], lang: str) -> int:
    from jitlab.cli.run import call_row, call_table, print_compare

    failures = 0
    cls = check.scenario
    titles = {v.id: v.title.get(lang) for v in cls.variants}
    report["comparisons"] = []
    for comparison in check.comparisons():
        made: list[Any] = []
        verdict = check.verdict(comparison, on_record=made.append)
        report["comparisons"].append(verdict.to_json(lang))
        if not out.as_json:
            for variant in comparison.variants:
                table = call_table(say("check.run", variant=titles.get(variant, variant)), lang)
                for record in (r for r in made if r.variant == variant):
                    row = call_row(record, dict(record.params or {}), lang, params=cls.params)
                    table.add_row(*row)
                out.console.print(table)
            print_compare(cls, verdict, comparison.variants, lang)
        failures += _raised(check, made, out, report, lang)
        if verdict.better != "fix":
            out.line(say("check.no_win", measure=comparison.measure.value), "red")
            failures += 1
    return failures


def _raised(
    check: Any, records: list[Any], out: _Printer, report: dict[str, Any], lang: str
) -> int:
    count = 0
    for record, raised in check.raised(records):  # once per variant, exception and line
        if record.error is None:
            continue
        count += 1
        where = raised.words().get(lang)
        report.setdefault("raised", []).append({"call": record.index, **raised.to_json()})
        out.line(
            say(
                "check.raised",
                index=record.index,
                variant=record.variant,
                type=record.error.type,
                where=where,
            ),
            "red",
        )
    return count


def _question(check: Any, out: _Printer, report: dict[str, Any], lang: str) -> int:
    cls = check.scenario
    out.line(say("check.question", question=cls.question.get(lang)))
    answer = cls.question_run
    if answer is None:
        out.line(say("check.no_question_run"), "dim")
        report["question"] = None
        return 0
    before = len(check.records)
    count = check.question()
    report["question"] = count
    titles = {v.id: v.title.get(lang) for v in cls.variants}
    counted = say(f"check.counted.{answer.counts.value}")
    out.line(
        say("check.question_run", variant=titles[answer.variant], count=count, counted=counted)
    )
    return _raised(check, check.records[before:], out, report, lang)


def _exercises(check: Any, out: _Printer, report: dict[str, Any], lang: str) -> int:
    failures = 0
    report["exercises"] = []
    for answered in check.exercises():
        exercise, outcome = answered.exercise, answered.outcome
        row = {"id": exercise.id, "answer": answered.value, "expected": exercise.expected}
        report["exercises"].append(row)
        if outcome.skipped is not None:
            out.line(say("check.exercise_skipped", id=exercise.id, why=outcome.skipped.get(lang)))
        elif outcome.answer is None:
            failures += 1
            out.line(say("check.exercise_broke", id=exercise.id, why=outcome.failure), "red")
        elif answered.as_expected is None:
            out.line(say("check.exercise_said", id=exercise.id, value=answered.value))
        elif answered.as_expected:
            out.line(say("check.exercise_ok", id=exercise.id, value=answered.value), "green")
        else:
            failures += 1
            expected = exercise.expected
            out.line(
                say("check.exercise_bad", id=exercise.id, value=answered.value, expected=expected),
                "red",
            )
    return failures


class _Printer:
    """Lines as a learner reads them (escaped: a plugin's words are never markup), or one JSON
    object per scenario at its end."""

    def __init__(self, as_json: bool) -> None:
        import sys

        from rich.console import Console

        self.as_json = as_json
        self.console = Console(width=None if sys.stdout.isatty() else 120, soft_wrap=True)

    def line(self, text: str, style: str = "") -> None:
        if self.as_json:
            return
        from rich.markup import escape

        self.console.print(f"[{style}]{escape(text)}[/{style}]" if style else escape(text))

    def done(self, sid: str, report: dict[str, Any], failures: int) -> None:
        if self.as_json:
            from jitlab.cli._output import print_json

            print_json(report)
            return
        if failures:
            self.line(say("check.failed", id=sid, n=failures), "bold red")
        else:
            self.line(say("check.passed", id=sid), "bold green")
