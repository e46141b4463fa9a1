"""The event stream of a run: what the engine reports while it makes a call.

Plain frozen dataclasses with no JAX behind them, so the GUI can dispatch on their types
(and the CLI print them) without importing the engine. :mod:`jitlab.lab.engine`, which
makes them, re-exports them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from jitlab.records.calls import CallRecord, ParamValue

__all__ = ["CallFinished", "CallStarted", "Event", "Listener", "PhaseEnded"]


@dataclass(frozen=True)
class CallStarted:
    index: int
    params: dict[str, ParamValue]
    variant: str


@dataclass(frozen=True)
class PhaseEnded:
    """A phase of the probed function finished (``trace``, ``lower``, ``compile``, ``load``)."""

    index: int
    phase: str
    ms: float


@dataclass(frozen=True)
class CallFinished:
    record: CallRecord


Event = CallStarted | PhaseEnded | CallFinished
Listener = Callable[[Event], None]
