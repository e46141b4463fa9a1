"""A block of real JAX code run under ``jitlab.watch`` in this process, with JAX's own compile
log (``jax_log_compiles``) captured in the same run: what jitlab recorded and diagnosed, and
what JAX says it compiled."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import jitlab
from jitlab.recordings.reader import Recording, read_recording
from jitlab.records.diagnoses import Diagnosis
from tests.real.conftest import jax_compile_log


@dataclass
class Measured:
    recording: Recording
    jax: Counter[str]  # backend compiles per function name, as JAX logged them

    @property
    def found(self) -> list[Diagnosis]:
        """Every diagnosis a face lists (the recorded ones and call-site-cost)."""
        return self.recording.every_diagnosis()

    def problems(self, ident: str | None = None) -> list[Diagnosis]:
        return [d for d in self.found if d.problem and ident in (None, d.id)]

    def of(self, ident: str) -> list[Diagnosis]:
        return [d for d in self.found if d.id == ident]


def measure(path: Path, body: Callable[[], object], warn_after: int = 8) -> Measured:
    """Run ``body`` watched (its functions jitted inside the block), JAX's log on. An
    earlier run's garbage is collected first: its jit objects (held in cycles through the
    classes they were made in) would keep their executables alive into this run."""
    gc.collect()
    with jax_compile_log() as log, jitlab.watch(path, warn_after=warn_after):
        body()
    return Measured(read_recording(path)[0], log.counts)


def named(fun: Callable[..., object], name: str) -> Callable[..., object]:
    """``fun`` under the name of one run, with a code object of its own: its compiles and
    the executables they keep alive are that run's alone (jitlab, like JAX, keeps one
    account per function across the watches of a process; live executables by code)."""
    code = fun.__code__  # type: ignore[attr-defined]
    fun.__code__ = code.replace(co_name=name)  # type: ignore[attr-defined]
    fun.__name__ = fun.__qualname__ = name
    return fun
