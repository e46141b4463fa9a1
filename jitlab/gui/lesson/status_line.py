"""The lab window's status line: JAX starting, this run's calls, a slow call's seconds, and
the wait for a call in flight when the window closes.

:class:`StatusLine` owns that text; the window asks it to :meth:`~StatusLine.refresh` when
the run model changes or a command was given.
"""

from __future__ import annotations

import time

from PySide6.QtWidgets import QLabel, QWidget

from jitlab.gui.lesson.worker_link import SLOW_CALL_S, WorkerLink
from jitlab.gui.views.kitchen import KitchenPanel
from jitlab.gui.views.model import RunState


class StatusLine(QLabel):
    """The status bar's one line (see the module's doc)."""

    def __init__(
        self, state: RunState, link: WorkerLink, kitchen: KitchenPanel, parent: QWidget
    ) -> None:
        super().__init__(parent)
        self.setObjectName("workerStatus")
        self.state, self.link, self.kitchen = state, link, kitchen

    def refresh(self, loaded: bool) -> None:
        """``loaded``: discovery has ended (JAX runs); before, the calls asked for wait."""
        if not loaded:
            if self.link.executor.waiting_calls():
                self.setText(self.tr("Preparing JAX… your call runs as soon as it is ready."))
            else:
                self.setText(self.tr("Starting JAX on the worker thread…"))
            return
        s = self.state.segment_summary()
        n = s.calls
        text = (
            self.tr("%1 · %n call this run · %3 in total", "", n)
            if n == 1
            else self.tr("%1 · %n calls this run · %3 in total", "", n)
        )
        text = text.replace("%1", self.kitchen.canvas.status())
        text = text.replace("%3", str(len(self.state.records)))
        elapsed = time.perf_counter() - self.state.started_at
        if self.state.in_flight is not None and elapsed >= SLOW_CALL_S:
            text += " · " + self.tr(
                "still running after %1 s (Pause, Reset or another scenario abandons it)",
            ).replace("%1", f"{elapsed:.0f}")
        self.setText(text)

    def closing(self, waited: float, limit: float) -> None:
        """Closing: how long the call in flight has been waited for, and at most."""
        self.setText(
            self.tr(
                "Closing: waiting for the call in flight to finish… %1 s (at most %2 s)",
            )
            .replace("%1", f"{waited:.0f}")
            .replace("%2", f"{limit:.0f}")
        )
