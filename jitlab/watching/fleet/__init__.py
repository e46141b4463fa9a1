"""The fleet view: a watch's compiles, recompiles, hits and diagnoses as metrics, through
the monitoring a fleet already runs — Prometheus (:mod:`.prometheus`) and OpenTelemetry
(:mod:`.otlp`). The libraries come with the ``jitlab[fleet]`` extra and are imported only
when a door is asked for."""

from __future__ import annotations

from jitlab.watching.fleet.metrics import (
    DEFAULT_MAX_FUNCTIONS,
    METRICS,
    CannotServe,
    Door,
    Fleet,
    MissingExtra,
)

__all__ = ["METRICS", "CannotServe", "Fleet", "MissingExtra", "exporters"]


def exporters(
    metrics_port: int | None = None,
    metrics_host: str = "127.0.0.1",
    otlp: bool = False,
    max_functions: int | None = None,
) -> Fleet | None:
    """The doors asked for, as one :class:`Fleet` (None when none is). Their libraries are
    imported here, so a missing extra is said before anything runs (:class:`MissingExtra`);
    a bad port or cap is a ValueError."""
    if max_functions is not None and max_functions < 1:
        raise ValueError(f"metrics_max_functions={max_functions!r}: at least 1")
    doors: list[Door] = []
    if metrics_port is not None:
        if not 0 < metrics_port < 65536:
            raise ValueError(f"metrics_port={metrics_port!r}: a port from 1 to 65535")
        from jitlab.watching.fleet.prometheus import PrometheusDoor

        doors.append(PrometheusDoor(metrics_port, metrics_host))
    if otlp:
        from jitlab.watching.fleet.otlp import OtlpDoor

        doors.append(OtlpDoor())
    if not doors:
        return None
    return Fleet(doors, DEFAULT_MAX_FUNCTIONS if max_functions is None else max_functions)
