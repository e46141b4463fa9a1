"""Interview mode: a timed round of exercises drawn at random, a score, and what to review.

The round is plain state with an injectable clock, so the CLI, the GUI and the tests drive
it the same way: ``start()`` a question, ``submit()`` a prediction (the real run happens
then), repeat until ``done``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from jitlab.lab.exercise import Exercise, Outcome, Verdict
from jitlab.quiz.exercises import available

DEFAULT_SECONDS = 60.0


@dataclass(frozen=True)
class Result:
    exercise: Exercise
    verdict: Verdict
    elapsed_s: float

    @property
    def correct(self) -> bool:
        return self.verdict.correct


class Interview:
    """``count`` questions drawn from ``pool`` (default: every exercise that can run here).

    The same seed and pool always draw the same questions in the same order. A prediction
    submitted after ``seconds`` still gets its real run and answer, but scores nothing.
    """

    def __init__(
        self,
        count: int,
        *,
        seed: int | None = None,
        seconds: float = DEFAULT_SECONDS,
        pool: Sequence[Exercise] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        pool = tuple(pool if pool is not None else available())
        if not 1 <= count <= len(pool):
            raise ValueError(f"an interview takes 1 to {len(pool)} questions, not {count}")
        if seconds <= 0:
            raise ValueError(f"seconds per question must be positive, not {seconds}")
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        self.seconds = float(seconds)
        self.questions: tuple[Exercise, ...] = tuple(random.Random(self.seed).sample(pool, count))
        self.results: list[Result] = []
        self._clock = clock
        self._started: float | None = None

    # -- the round ------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return len(self.results) == len(self.questions)

    @property
    def position(self) -> int:
        """Index of the current question (== len(questions) when done)."""
        return len(self.results)

    @property
    def current(self) -> Exercise | None:
        return None if self.done else self.questions[self.position]

    def start(self) -> Exercise:
        """Show the current question: its clock starts now."""
        exercise = self.current
        if exercise is None:
            raise RuntimeError("the interview is over")
        self._started = self._clock()
        return exercise

    def remaining(self) -> float:
        """Seconds left for the current question (negative once late)."""
        if self._started is None:
            return self.seconds
        return self.seconds - (self._clock() - self._started)

    def submit(self, prediction: int | str | None, outcome: Outcome | None = None) -> Verdict:
        """Answer the current question (None: pass). Runs the snippet unless ``outcome``
        is given. A prediction that does not parse raises ValueError and changes nothing."""
        exercise = self.current
        if exercise is None:
            raise RuntimeError("the interview is over")
        if prediction is not None:
            prediction = exercise.parse(prediction)
        if self._started is None:
            self._started = self._clock()
        elapsed = self._clock() - self._started
        verdict = exercise.check(prediction, outcome, timed_out=elapsed > self.seconds)
        self.results.append(Result(exercise, verdict, elapsed))
        self._started = None
        return verdict

    # -- the end --------------------------------------------------------------------------
    @property
    def score(self) -> int:
        return sum(1 for r in self.results if r.correct)

    @property
    def total(self) -> int:
        return len(self.questions)

    def review(self) -> tuple[Result, ...]:
        """What to look at again: wrong, passed or late answers, in question order."""
        return tuple(r for r in self.results if not r.correct)

    def review_scenarios(self) -> tuple[str, ...]:
        """The scenarios behind the misses, first miss first, each once."""
        return tuple(dict.fromkeys(r.exercise.scenario for r in self.review()))

    def to_json(self, language: str = "en") -> dict[str, Any]:
        return {
            "seed": self.seed,
            "seconds": self.seconds,
            "questions": [e.id for e in self.questions],
            "answered": len(self.results),
            "score": self.score,
            "total": self.total,
            "review": [
                {
                    "exercise": r.exercise.id,
                    "title": r.exercise.title.get(language),
                    "scenario": r.exercise.scenario,
                    "variant": r.exercise.variant,
                    "timed_out": r.verdict.timed_out,
                    "prediction": r.verdict.prediction,
                    "answer": r.verdict.answer.value if r.verdict.answer else None,
                }
                for r in self.review()
            ],
            "review_scenarios": list(self.review_scenarios()),
        }
