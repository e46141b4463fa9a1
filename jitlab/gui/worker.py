"""Old home of the scenario worker: everything now lives in :mod:`jitlab.gui.executor`.

Kept so that ``from jitlab.gui.worker import Worker, …`` goes on working; new code imports
from :mod:`jitlab.gui.executor`. ``Worker`` is :class:`~jitlab.gui.executor.Executor`.
"""

from __future__ import annotations

from jitlab.gui.executor import (
    _LEFT_BEHIND,
    Discovered,
    Executor,
    Idle,
    RunReady,
    WorkerFailed,
    leave_behind,
    left_behind,
)

Worker = Executor

__all__ = [
    "_LEFT_BEHIND",
    "Discovered",
    "Executor",
    "Idle",
    "RunReady",
    "Worker",
    "WorkerFailed",
    "leave_behind",
    "left_behind",
]
