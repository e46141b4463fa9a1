"""Run a scenario call by call and turn what the probes record into an event stream.

The CLI prints the events, the tests assert on them, and the GUI worker forwards them to
the Qt thread. Nothing here knows about Qt.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import jax

from jitlab.lab.events import CallFinished, CallStarted, Event, Listener, PhaseEnded
from jitlab.lab.raised import plugin_roots, raised_in
from jitlab.lab.scenario import Lab, Scenario, Step
from jitlab.lab.spec import ParamValues
from jitlab.probe.probe import Card, Probe
from jitlab.records.calls import CallKind, CallRecord, ErrorInfo, ParamValue, Summary

# The events are defined JAX-free in jitlab.lab.events; importing them from here still works.
__all__ = ["CallFinished", "CallStarted", "Event", "Listener", "PhaseEnded", "Run"]


class Run:
    """One scenario, one variant, a growing list of records.

    The scenario's step is built lazily on the first call, so a scenario whose setup raises
    yields an ``error`` record instead of breaking the caller. Building it clears JAX's
    in-memory caches, so every run (and every variant switch or reset) starts cold.
    """

    def __init__(
        self,
        scenario: type[Scenario],
        variant: str = "pitfall",
        listener: Listener | None = None,
    ) -> None:
        if variant not in scenario.variant_ids():
            raise ValueError(
                f"unknown variant {variant!r} for {scenario.id}; "
                f"choose from {', '.join(scenario.variant_ids())}"
            )
        self.scenario_cls = scenario
        # Made on the first call, inside its guard: a plugin's constructor may raise or exit.
        self.scenario: Scenario | None = None
        self.variant = variant
        self.listener = listener
        self.records: list[CallRecord] = []
        self.last_probe: Probe | None = None
        self._lab: Lab | None = None
        self._step: Step | None = None
        self._index = 0

    # -- control --------------------------------------------------------------------------
    def set_variant(self, variant: str) -> None:
        if variant not in self.scenario_cls.variant_ids():
            raise ValueError(f"unknown variant {variant!r}")
        if variant != self.variant:
            self.variant = variant
            self._lab = self._step = None
            self.last_probe = None

    def reset(self) -> None:
        """Forget the compiled executables: caches are cleared before the next call."""
        self._lab = self._step = None
        self.last_probe = None

    def params(self, overrides: ParamValues | None = None) -> dict[str, ParamValue]:
        values = self.scenario_cls.defaults()
        for name, value in (overrides or {}).items():
            values[name] = self.scenario_cls.param(name).check(value)
        return values

    # -- calls ----------------------------------------------------------------------------
    def step(self, overrides: ParamValues | None = None) -> CallRecord:
        """Make one probed call with these parameter values (others at their defaults)."""
        params = self.params(overrides)
        index = self._index
        self._index += 1
        self._emit(CallStarted(index, params, self.variant))
        start = time.perf_counter()
        failure: BaseException | None = None
        during = "setup"  # what the scenario's own code was doing, should it raise
        new: list[CallRecord] = []
        try:
            lab = self._lab
            if self._step is None or lab is None:  # both set, and reset, together
                if self.scenario is None:
                    self.scenario = self.scenario_cls()
                # Start cold, as a fresh process would: JAX caches outlive our probes.
                jax.clear_caches()
                lab = self._lab = Lab(on_phase=self._phase_ended)
                self._step = self.scenario.setup(lab, self.variant)
            during = "step"
            # Calls so far, not len(records): a long session's records are trimmed.
            counts = [p.calls for p in lab.probes]
            try:
                self._step(params)
            finally:
                for probe, before in zip(lab.probes, counts, strict=False):
                    made = probe.records_since(before) if probe.calls > before else []
                    if made:
                        new.extend(made)
                        self.last_probe = probe
                # Probes created during the step (a new function object per call).
                for probe in lab.probes[len(counts) :]:
                    new.extend(probe.records)
                    self.last_probe = probe
        except KeyboardInterrupt:  # Ctrl-C belongs to the user, not to the scenario
            raise
        except BaseException as exc:  # sys.exit() in a plugin is its error, not the tool's end
            failure = exc
        own: dict[str, Any] = {}
        if not new or (failure is not None and new[-1].kind is not CallKind.ERROR):
            # The step failed outside any probe (in setup or around the call): the
            # scenario's own exception, said with its line (notes' "scenario_error").
            new.append(self._error_record(failure, (time.perf_counter() - start) * 1e3))
            raised = (
                raised_in(failure, plugin_roots(self.scenario_cls), during) if failure else None
            )
            if raised is not None:
                own["scenario_error"] = raised.to_json()
        try:
            notes = (self.scenario.facts() or None) if self.scenario is not None else None
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # a scenario bug must not lose the record
            notes = {"facts_error": _describe(exc, with_type=True)}
        if notes is not None and not (
            isinstance(notes, dict) and all(isinstance(k, str) for k in notes)
        ):
            notes = {"facts_error": f"facts() returned {type(notes).__name__}, not a dict"}
        if own:
            notes = {**(notes or {}), **own}
        record = new[-1]._replace(index=index, params=params, variant=self.variant, notes=notes)
        self.records.append(record)
        self._emit(CallFinished(record))
        return record

    def play(self, values: Iterable[ParamValues]) -> list[CallRecord]:
        return [self.step(overrides) for overrides in values]

    # -- views ----------------------------------------------------------------------------
    @property
    def cards(self) -> list[Card]:
        """The card holder of the function that made the last call."""
        return list(self.last_probe.ledger.cards) if self.last_probe else []

    def summary(self) -> Summary:
        return Summary.of(self.records)

    def _phase_ended(self, phase: str, ms: float) -> None:
        # The lab outlives a step: read the index of the call in flight, not the first one.
        self._emit(PhaseEnded(self._index - 1, phase, ms))

    def _emit(self, event: Event) -> None:
        if self.listener is not None:
            self.listener(event)

    def _error_record(self, exc: BaseException | None, latency_ms: float) -> CallRecord:
        if exc is None:
            exc = RuntimeError("the step made no probed call")
        return CallRecord(
            index=self._index - 1,
            function=self.scenario_cls.id,
            kind=CallKind.ERROR,
            latency_ms=latency_ms,
            error=ErrorInfo(type(exc).__name__, _describe(exc)[:2000], exc),
        )


def _describe(exc: BaseException, with_type: bool = False) -> str:
    """An exception in words; SystemExit's own str() is a bare code such as ``5``."""
    if not isinstance(exc, Exception):
        return f"{exc!r} raised by the scenario"
    return f"{type(exc).__name__}: {exc}" if with_type else str(exc).strip()
