"""The report's functions: each recording labelled with its process, and every function
paired across them (:func:`jitlab.recordings.identity.job_key`), JAX-free."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from jitlab.recordings.identity import job_key
from jitlab.recordings.processes import process_of
from jitlab.recordings.reader import Recording
from jitlab.recordings.summary import FunctionSummary, summarize
from jitlab.records.lines import RecordedCall


@dataclass(frozen=True)
class Source:
    """One recording given to the report: its file, what was read, which process it is."""

    path: str
    recording: Recording
    process: int


@dataclass
class FunctionReport:
    """One function, in every process that ran it."""

    function: str
    defined_at: str | None
    calls: dict[int, list[RecordedCall]] = field(default_factory=dict)  # per process
    summaries: dict[int, FunctionSummary] = field(default_factory=dict)

    @property
    def compile_ms(self) -> float:
        return sum(s.compile_ms for s in self.summaries.values())

    @property
    def executables(self) -> int:
        return sum(s.executables for s in self.summaries.values())

    @property
    def recompiles(self) -> int:
        return sum(s.recompiles for s in self.summaries.values())

    @property
    def hits(self) -> int | None:
        counted = [s.hits for s in self.summaries.values() if s.hits is not None]
        return sum(counted) if counted else None

    @property
    def signatures(self) -> int:
        return len({sig for s in self.summaries.values() for sig in s.signatures})


def sources_of(recordings: Sequence[tuple[str, Recording]]) -> tuple[list[Source], bool]:
    """Label each recording with its process; True when they are the processes of one job.

    One recording is process 0 of a single-process run. Several are taken for the processes
    of one job when their indices (``process`` line, file name, else position) are distinct;
    otherwise they are numbered by position and compared no further.
    """
    indices = [process_of(r, path, i) for i, (path, r) in enumerate(recordings)]
    job = len(recordings) > 1 and len(set(indices)) == len(indices)
    if not job:
        indices = list(range(len(recordings)))
    return [Source(p, r, i) for (p, r), i in zip(recordings, indices, strict=True)], job


def functions_of(sources: Sequence[Source], include_internal: bool = False) -> list[FunctionReport]:
    """Every function of every recording, paired across processes by name and definition
    line (the line's folder ignored, as :func:`~jitlab.recordings.processes.merge` does); most time
    lost compiling first."""
    several = len(sources) > 1
    found: dict[tuple[str, str | None], FunctionReport] = {}

    def key(function: str, defined_at: str | None) -> tuple[str, str | None]:
        return job_key(function, defined_at) if several else (function, defined_at)

    for source in sources:
        for s in summarize(source.recording, include_internal):
            k = key(s.function, s.defined_at)
            entry = found.setdefault(k, FunctionReport(s.function, s.defined_at))
            entry.summaries[source.process] = s
        for call in source.recording.calls:
            if call.internal and not include_internal:
                continue
            k = key(*call.key)
            if k in found:
                found[k].calls.setdefault(source.process, []).append(call)
    return sorted(found.values(), key=lambda f: f.compile_ms, reverse=True)


def cost_ms(call: RecordedCall) -> float:
    r = call.record
    return r.trace_ms + r.lower_ms + r.compile_ms
