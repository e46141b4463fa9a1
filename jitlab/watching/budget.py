"""Compile budgets: ``with jitlab.budget(0):`` fails when the block compiles more than allowed.

A budget is a :class:`~jitlab.watching.recorder.Recorder` without a file; the pytest plugin
(:mod:`jitlab.pytest_plugin`) hands it to tests as a fixture and a marker.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from jitlab.probe import monitor
from jitlab.records import messages
from jitlab.records.lines import RecordedCall
from jitlab.watching.recorder import Recorder


class CompileBudgetExceeded(AssertionError):
    """Raised when code compiled more often than its budget allows."""


@dataclass
class Budget:
    max_compiles: int
    recorder: Recorder = field(repr=False)

    @property
    def compiles(self) -> list[RecordedCall]:
        return self.recorder.compiles

    def check(self) -> None:
        __tracebackhide__ = True  # pytest shows the user's line, not ours
        compiles = self.compiles
        blinded = self.recorder.blinded > 0
        if len(compiles) <= self.max_compiles and not blinded:
            return
        lines = [
            f"{len(compiles)} compile(s) where the budget allows {self.max_compiles}:",
        ]
        if blinded:  # never a pass that could not see
            lang = monitor.user_language()
            n = len(compiles)
            lines = [messages.say("budget.blinded", lang, n=n, max=self.max_compiles)]
        for i, call in enumerate(compiles, 1):
            c = call.record
            over = "  ← over budget" if i > self.max_compiles else ""
            where = f" at {call.called_from}" if call.called_from else ""
            reason = str(c.reason) if c.reason else "?"
            lines.append(
                f"  {i}. {c.function} {c.kind.value}{where}: {reason}"
                f" ({c.trace_ms + c.lower_ms + c.compile_ms:.1f} ms){over}"
            )
        raise CompileBudgetExceeded("\n".join(lines))


@contextmanager
def budget(max_compiles: int = 0, *, include_internal: bool = False) -> Iterator[Budget]:
    """Fail (``CompileBudgetExceeded``) if the block compiles more than ``max_compiles`` times.

    ``max_compiles=0`` after a warm-up forbids any further compile. Each extra compile is
    listed with its function, call site and reason.
    """
    __tracebackhide__ = True
    recorder = Recorder(None, include_internal=include_internal)
    guard = Budget(max_compiles, recorder)
    with recorder:
        yield guard
    guard.check()
