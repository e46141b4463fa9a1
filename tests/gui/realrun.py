"""Real engine runs feeding a run model, with the frame loop's notify done by hand."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from jitlab.gui.views.model import RunState
from jitlab.records.calls import CallRecord


def drive(
    state: RunState,
    sizes: Iterable[int],
    frame: int = 50,
    after_frame: Callable[[], None] | None = None,
    scenario: str = "dynamic-shapes",
) -> list[CallRecord]:
    """Make one real call per batch size; tell the views every ``frame`` calls.

    Returns every record made, from the engine's own events (to check the model against).
    """
    from jitlab.lab.discovery import scenarios
    from jitlab.lab.engine import CallFinished, Run

    made: list[CallRecord] = []

    def listen(event: object) -> None:
        state.apply(event)  # type: ignore[arg-type]
        if isinstance(event, CallFinished):
            made.append(event.record)

    run = Run(scenarios()[scenario], "pitfall", listener=listen)
    state.clear(scenario, "pitfall")
    for i, n in enumerate(sizes, 1):
        run.step({"batch_size": n})
        if i % frame == 0:
            state.notify()
            if after_frame is not None:
                after_frame()
    state.notify()
    if after_frame is not None:
        after_frame()
    return made
