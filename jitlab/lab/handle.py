"""The lab handle a scenario's setup uses to make probed calls (this part needs JAX).

It lives apart from :mod:`jitlab.lab.spec` (which imports no JAX, and names this class only
for type checkers) and is re-exported by :mod:`jitlab.lab.scenario`, where scenarios and
plugins import it from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the Lab is used once JAX runs; importing it (and plugins) loads no JAX
    from jitlab.probe.probe import PhaseCallback, Probe


class Lab:
    """What a scenario's setup receives: it makes probes wired to the running engine."""

    def __init__(self, on_phase: PhaseCallback | None = None) -> None:
        self.on_phase = on_phase
        self.probes: list[Probe] = []

    def probe(self, fn: Callable[..., Any], **kwargs: Any) -> Probe:
        from jitlab.probe.probe import Probe

        probe = Probe(fn, on_phase=self.on_phase, **kwargs)
        self.probes.append(probe)
        return probe
