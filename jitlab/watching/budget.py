"""Compile budgets: ``with jitlab.budget(0):`` fails when the block compiles more than allowed.

A budget is a :class:`~jitlab.watching.recorder.Recorder` without a file; the pytest plugin
(:mod:`jitlab.pytest_plugin`) hands it to tests as a fixture and a marker.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from jitlab.probe import contract, monitor
from jitlab.records import messages
from jitlab.records.change_words import reason_text
from jitlab.records.lines import RecordedCall
from jitlab.watching.recorder import Recorder


class CompileBudgetExceeded(AssertionError):
    """Raised when code compiled more often than its budget allows."""


@dataclass
class Budget:
    max_compiles: int
    recorder: Recorder = field(repr=False)
    # The failure's language (``en``, ``zh``): English unless asked (``%%jitlab --lang zh``
    # asks). None: English, and a budget that could not see says so in the user's language.
    lang: str | None = None

    @property
    def compiles(self) -> list[RecordedCall]:
        return self.recorder.compiles

    def check(self) -> None:
        __tracebackhide__ = True  # pytest shows the user's line, not ours
        compiles = self.compiles
        blinded = self.recorder.blinded > 0
        if len(compiles) <= self.max_compiles and not blinded:
            return
        lang = messages.language_of(self.lang)
        n, allowed = len(compiles), self.max_compiles
        if blinded:  # never a pass that could not see
            said = lang if self.lang is not None else monitor.user_language()
            lines = [messages.say("budget.blinded", said, n=n, max=allowed)]
        else:
            lines = [messages.say("budget.over", lang, n=n, max=allowed)]
        for i, call in enumerate(compiles, 1):
            lines.append(_compile_line(i, call, i > allowed, lang))
        raise CompileBudgetExceeded("\n".join(lines))


def _compile_line(number: int, call: RecordedCall, over: bool, lang: str) -> str:
    """One compile of a failed budget: its function, kind, call site, reason and cost."""
    c = call.record
    # In English the kind as code names it; the reason's words in the language asked.
    kind = c.kind.value if lang == "en" else messages.kind_name(c.kind, lang)
    reason = reason_text(c.reason, lang)
    return messages.say(
        "budget.compile",
        lang,
        number=number,
        function=c.function,
        kind=kind,
        where=messages.say("budget.where", lang, where=call.called_from)
        if call.called_from
        else "",
        reason=reason or "?",
        ms=f"{c.trace_ms + c.lower_ms + c.compile_ms:.1f}",
        over=messages.say("budget.over_mark", lang) if over else "",
    )


def checked_max(max_compiles: object, lang: str | None = None, name: str = "max_compiles") -> int:
    """A budget is a count: an ``int`` >= 0 (never a bool, a string or a float); anything
    else is refused before the block runs, naming the argument (``TypeError``/``ValueError``)."""
    if isinstance(max_compiles, int) and not isinstance(max_compiles, bool) and max_compiles >= 0:
        return max_compiles
    said = messages.say(
        "budget.bad_max", messages.language_of(lang), name=name, value=repr(max_compiles)
    )
    if isinstance(max_compiles, int) and not isinstance(max_compiles, bool):
        raise ValueError(said)
    raise TypeError(said)


@contextmanager
def budget(
    max_compiles: int = 0, *, include_internal: bool = False, lang: str | None = None
) -> Iterator[Budget]:
    """Fail (``CompileBudgetExceeded``) if the block compiles more than ``max_compiles`` times.

    ``max_compiles=0`` after a warm-up forbids any further compile. Each extra compile is
    listed with its function, call site and reason, in English (``lang="zh"``: Chinese).
    """
    __tracebackhide__ = True
    checked_max(max_compiles, lang)
    # The whole check of JAX, its known compile here (a budget counts compiles in a test or
    # a cell, not at a program's start): a JAX whose compiles jitlab cannot see is refused.
    contract.require(compile=True)
    recorder = Recorder(None, include_internal=include_internal)
    guard = Budget(max_compiles, recorder, lang)
    with recorder:
        yield guard
    guard.check()
