"""A lesson checked as a learner meets it, headless: its spec validated, the pitfall and the fix
run on the lesson's calls and judged, its question's run counted, its exercises answered.

``jitlab check`` prints what it finds (:mod:`jitlab.cli.check`); the ``jitlab_lesson`` fixture
of jitlab's pytest plugin hands a :class:`LessonCheck` to a plugin's own tests. Each run is
real (real JAX, from cold caches), so what it says is what the app would show.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jitlab.lab import discovery
from jitlab.lab.discovery import PluginEntry
from jitlab.lab.exercise import Exercise, Outcome
from jitlab.lab.raised import Raised
from jitlab.lab.spec import Comparison, Scenario
from jitlab.lab.validation import Problem, problems
from jitlab.lab.verdict import Verdict, grade
from jitlab.lab.verdict_run import run_comparison, run_question
from jitlab.records.calls import CallRecord
from jitlab.records.messages import language_of, say

__all__ = ["Answered", "LessonCheck", "ScenarioRaised", "find"]

OnRecord = Callable[[CallRecord], None]


def find(target: str) -> list[PluginEntry]:
    """The scenarios ``target`` names: a scenario file (``*.py``: each scenario in it), or an
    id or entry-point name of an installed plugin or a built-in. Broken ones come with their
    error; an empty list when nothing has that name."""
    path = Path(target)
    if target.endswith(".py") or path.is_file():
        return discovery.load_file(path)
    found = discovery.discover()
    return [e for e in found if target in (e.name, e.origin.partition(":")[2])]


@dataclass(frozen=True)
class Answered:
    """An exercise run for real, and the answer its author expects (``Exercise.expected``)."""

    exercise: Exercise
    outcome: Outcome

    @property
    def value(self) -> int | str | None:
        return self.outcome.answer.value if self.outcome.answer is not None else None

    @property
    def as_expected(self) -> bool | None:
        """None when the author wrote no expected answer, or the exercise could not run here."""
        if self.exercise.expected is None or self.outcome.skipped is not None:
            return None
        return self.value == self.exercise.expected


class ScenarioRaised(AssertionError):
    """A run of a :class:`LessonCheck` made with ``strict``: the scenario's own code raised
    (its setup or step, not JAX in a probed call); the message names each file and line."""


class LessonCheck:
    """One scenario class, checked: ``problems`` first, then runs made on request.

    With ``strict`` (the pytest fixture's), a run in which the scenario's own code raised
    raises :class:`ScenarioRaised` at its end, naming where, instead of leaving a verdict
    that only says every call failed."""

    def __init__(self, scenario: type[Scenario], strict: bool = False) -> None:
        self.scenario = scenario
        self.strict = strict
        self.problems: list[Problem] = problems(scenario)
        self.records: list[CallRecord] = []  # every call made through this check, in order

    @property
    def ok(self) -> bool:
        return not self.problems

    def _kept(self, on_record: OnRecord | None) -> OnRecord:
        def keep(record: CallRecord) -> None:
            self.records.append(record)
            if on_record is not None:
                on_record(record)

        return keep

    def _said(self, since: int) -> None:
        """Strict: the scenario's own exceptions in the calls made since ``since``, raised."""
        found = self.raised(self.records[since:])
        if self.strict and found:
            lang = language_of(os.environ.get("LC_ALL") or os.environ.get("LANG"))
            lines = [
                say(
                    "check.raised",
                    lang,
                    index=record.index,
                    variant=record.variant,
                    type=record.error.type if record.error else "?",
                    where=raised.words().get(lang),
                )
                for record, raised in found
            ]
            raise ScenarioRaised("\n".join(lines))

    def run(
        self,
        variant: str = "pitfall",
        calls: Sequence[Mapping[str, Any]] | None = None,
        on_record: OnRecord | None = None,
    ) -> list[CallRecord]:
        """``variant`` on ``calls`` (default: the lesson's comparison's calls), from cold."""
        from jitlab.lab.engine import Run

        if calls is None:
            calls = self.scenario.comparison(None if variant == "pitfall" else variant).calls
        run = Run(self.scenario, variant, listener=None)
        keep, since = self._kept(on_record), len(self.records)
        out = []
        for overrides in calls:
            record = run.step(dict(overrides))
            keep(record)
            out.append(record)
        self._said(since)
        return out

    def comparisons(self) -> tuple[Comparison, ...]:
        """What the lesson judges: each declared comparison (the pitfall and the fix's when
        none is declared)."""
        return tuple(self.scenario.comparisons) or (self.scenario.comparison(),)

    def verdict(
        self, comparison: Comparison | str | None = None, on_record: OnRecord | None = None
    ) -> Verdict:
        """The lesson's verdict: both variants of ``comparison`` (a Comparison, or a variant it
        holds; default: the pitfall and the fix's) on its calls, judged as the app judges."""
        if not isinstance(comparison, Comparison):
            comparison = self.scenario.comparison(comparison)
        since = len(self.records)
        verdict = run_comparison(self.scenario, comparison, on_record=self._kept(on_record))
        self._said(since)
        return verdict

    def question(self, on_record: OnRecord | None = None) -> int | None:
        """The count the lesson's question asks for, from its own run (``question_run``);
        None when the question is not a count."""
        answer = self.scenario.question_run
        if answer is None:
            return None
        since = len(self.records)
        records = run_question(self.scenario, on_record=self._kept(on_record))
        self._said(since)
        titles = {v.id: v.title for v in self.scenario.variants}
        return grade(answer, records, None, titles[answer.variant]).count

    def exercise(self, exercise_id: str) -> Answered:
        """One of the lesson's exercises, run for real (a KeyError naming the ids if none)."""
        by_id = {e.id: e for e in self.scenario.exercises}
        if exercise_id not in by_id:
            raise KeyError(f"{exercise_id!r}: the exercises are {', '.join(by_id) or 'none'}")
        exercise = by_id[exercise_id]
        return Answered(exercise, exercise.run())

    def exercises(self) -> list[Answered]:
        return [self.exercise(e.id) for e in self.scenario.exercises]

    def answer(self, exercise_id: str) -> int | str | None:
        """What the run answers to one exercise (None when it could not run here)."""
        return self.exercise(exercise_id).value

    def raised(
        self, records: Sequence[CallRecord] | None = None
    ) -> list[tuple[CallRecord, Raised]]:
        """The calls (default: all so far) where the scenario's own code raised (setup or
        step), and where: the first call of each variant to raise each exception at a line."""
        out = []
        seen = set()
        for record in self.records if records is None else records:
            raised = Raised.from_json((record.notes or {}).get("scenario_error"))
            error = record.error.type if record.error else ""
            if raised is not None and (key := (record.variant, error, raised.place)) not in seen:
                seen.add(key)
                out.append((record, raised))
        return out
