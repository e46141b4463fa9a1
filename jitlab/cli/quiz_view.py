"""What ``jitlab quiz`` shows and reads: text (rich) or JSON lines for every step of the quiz,
and the user's predictions parsed in the command's language."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from jitlab.cli import _usage
from jitlab.cli._output import print_json
from jitlab.records import messages

if TYPE_CHECKING:
    from rich.console import Console

    from jitlab.lab.exercise import Exercise, Outcome, Verdict
    from jitlab.quiz.interview import Interview


STOP: Any = object()  # the user left (end of input, or "q")


def parse_prediction(exercise: Exercise, text: str) -> int | str:
    """:meth:`Exercise.parse`, its complaint said in the command's language."""
    from jitlab.lab.exercise import AnswerKind

    try:
        return exercise.parse(text)
    except ValueError:
        if _usage.language() == "en":
            raise  # the exercise's own words
        raw = repr(str(text).strip())
        if exercise.kind is AnswerKind.NUMBER:
            whole = str(text).strip().lstrip("-").isdigit()
            key = "quiz.parse.negative" if whole else "quiz.parse.number"
            raise ValueError(_usage.say(key, exercise=exercise.id, value=raw)) from None
        allowed = messages.listing(
            (f"{'abcdefghij'[i]}/{o.id}" for i, o in enumerate(exercise.options)), _usage.language()
        )
        key = "quiz.parse.error" if exercise.kind is AnswerKind.ERROR else "quiz.parse.choice"
        raise ValueError(
            _usage.say(key, exercise=exercise.id, allowed=allowed, value=raw)
        ) from None


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
        "source": exercise.source_in(language),
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


class QuizView:
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
        print_json(obj)  # strict JSON (NaN and ±inf as null), to the real stdout

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
        shown = exercise.source_in(self.lang)
        self.console.print(Syntax(shown, "python", theme="ansi_dark", word_wrap=True))
        self._print(self._t(exercise.question))
        for position_, option in enumerate(exercise.options):
            self._print(f"  {'abcdefghij'[position_]}) {self._t(option.label)}")

    def ask(self, exercise: Exercise, interview: Interview | None = None) -> Any:
        from rich.markup import escape

        from jitlab.lab.exercise import AnswerKind

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
                return STOP
            if text.strip().lower() in ("q", "quit", "exit"):
                return STOP
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
