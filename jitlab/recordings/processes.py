"""The processes of one job side by side: what each compiled, and where they diverged.

``jitlab watch`` run in every process of a ``jax.distributed`` job leaves one recording per
process (``run.p0.jsonl``, ``run.p1.jsonl``, …). :func:`merge` pairs their functions (same
name and definition line, the line's folder ignored: hosts may check the code out in different
places) and finds the **divergences**: a signature that some processes compiled and others did
not, or, with the same signatures, a different number of programs compiled. In SPMD code
every process should compile the same programs; when they do not, a collective may wait on a
process that is still compiling, or two processes run different programs.

A signature compiled by every process counts once per process. JAX-free: reads files only.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePath
from typing import Any

from jitlab.recordings.identity import job_key
from jitlab.recordings.reader import Recording, paused_collector
from jitlab.recordings.summary import FunctionSummary, summarize
from jitlab.records.calls import CallKind, Signature
from jitlab.records.lines import RecordedCall

_COMPILED = frozenset(kind for kind in CallKind if kind.compiled)
_NAMED = re.compile(r"\.p(\d+)\.[^.]*$|\.p(\d+)$")


def process_of(recording: Recording, name: str, position: int) -> int:
    """The process index a recording says (its ``process`` / ``start`` line), else its file
    name's (``run.p3.jsonl``), else its position among the files given."""
    if recording.process is not None:
        return recording.process.index
    match = _NAMED.search(PurePath(name).name)
    if match:
        return int(match.group(1) or match.group(2))
    return position


@dataclass(frozen=True)
class FirstCall:
    """Where a process first compiled what made it diverge."""

    process: int
    called_from: str | None
    t: float | None  # seconds since that process's recording started
    compile_number: int  # the n-th program compiled for this function in that process (1-based)

    def __str__(self) -> str:
        where = f" at {self.called_from}" if self.called_from else ""
        when = f", t={self.t:.2f} s" if self.t is not None else ""
        return f"process {self.process}'s compile #{self.compile_number}{where}{when}"

    def to_json(self) -> dict[str, Any]:
        return {
            "process": self.process,
            "called_from": self.called_from,
            "t": self.t,
            "compile_number": self.compile_number,
        }


def _plural(processes: Sequence[int]) -> str:
    names = ", ".join(str(p) for p in processes)
    return f"process {names}" if len(processes) == 1 else f"processes {names}"


@dataclass(frozen=True)
class Divergence:
    """One function compiled differently by the processes."""

    function: str
    defined_at: str | None
    kind: str  # "signature": compiled by some processes only; "compiles": counts differ
    processes: tuple[int, ...]  # those that compiled it (or compiled more)
    others: tuple[int, ...]  # those that did not (or compiled fewer)
    first: FirstCall | None
    signature: str | None = None
    fields: tuple[str, ...] = ()  # "x: f32[8,128] → f32[7,128]", against the others' closest
    counts: dict[int, int] = field(default_factory=dict)  # programs compiled, per process

    @property
    def message(self) -> str:
        if self.kind == "signature":
            text = (
                f"{_plural(self.processes)} compiled {self.function} for {self.signature}; "
                f"{_plural(self.others)} did not"
            )
            if self.fields:
                text += f" (differs in {'; '.join(self.fields)})"
        else:
            counts = ", ".join(f"process {p}: {n}" for p, n in sorted(self.counts.items()))
            text = f"{self.function} compiled a different number of programs ({counts})"
        if self.first is not None:
            text += f"; first: {self.first}"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "function": self.function,
            "defined_at": self.defined_at,
            "kind": self.kind,
            "processes": list(self.processes),
            "others": list(self.others),
            "signature": self.signature,
            "fields": list(self.fields),
            "counts": {str(p): n for p, n in sorted(self.counts.items())},
            "first": self.first.to_json() if self.first else None,
            "message": self.message,
        }


@dataclass(frozen=True)
class FunctionAcross:
    """One function in every process: its summary in each (None where it never ran)."""

    function: str
    defined_at: str | None
    per_process: dict[int, FunctionSummary | None]

    @property
    def compile_ms(self) -> float:
        return sum(s.compile_ms for s in self.per_process.values() if s is not None)

    def to_json(self) -> dict[str, Any]:
        rows: dict[str, dict[str, Any] | None] = {}
        for process, s in sorted(self.per_process.items()):
            rows[str(process)] = None
            if s is not None:
                rows[str(process)] = {
                    "compiles": s.executables,
                    "recompiles": s.recompiles,
                    "hits": s.hits,
                    "compile_ms": round(s.compile_ms, 3),
                    "signatures": list(s.signatures),
                }
        return {"function": self.function, "defined_at": self.defined_at, "processes": rows}


@dataclass(frozen=True)
class MergedRecordings:
    processes: tuple[int, ...]
    functions: tuple[FunctionAcross, ...]
    divergences: tuple[Divergence, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "processes": list(self.processes),
            "functions": [f.to_json() for f in self.functions],
            "divergences": [d.to_json() for d in self.divergences],
        }


def merge(
    recordings: Sequence[tuple[int, Recording]],
    include_internal: bool = False,
    summaries: Sequence[list[FunctionSummary]] | None = None,
    divergences: bool = True,
) -> MergedRecordings:
    """Pair the processes' functions and name where they diverge (see the module docstring).

    ``recordings``: (process index, recording) pairs, indices distinct (``ValueError``
    otherwise). ``summaries``: each recording's ``summarize(recording, include_internal)``
    when the caller keeps them up to date (a :class:`Summarizer` per file). Without
    ``divergences``, none are looked for (a window still reading the files: the processes
    are at different points of their recordings, so what they compiled differs anyway).
    """
    steps = merge_in_steps(recordings, include_internal, summaries, divergences)
    with paused_collector():  # millions of records in memory: see paused_collector
        while True:
            try:
                next(steps)
            except StopIteration as done:
                merged: MergedRecordings = done.value
                return merged


# Calls looked at between two yields of merge_in_steps: a few milliseconds of work.
STEP_CALLS = 5_000


def merge_in_steps(
    recordings: Sequence[tuple[int, Recording]],
    include_internal: bool = False,
    summaries: Sequence[list[FunctionSummary]] | None = None,
    divergences: bool = True,
) -> Generator[None, None, MergedRecordings]:
    """:func:`merge` a few milliseconds at a time: a generator that yields now and then and
    returns the merge (``StopIteration.value``). A window drives it a slice per turn of its
    event loop, so that merging long recordings never holds it for long; the recordings
    must not change meanwhile."""
    summarized = summaries
    indices = [index for index, _ in recordings]
    if len(set(indices)) != len(indices):
        twice = sorted({i for i in indices if indices.count(i) > 1})
        raise ValueError(f"two recordings are of the same process: {_plural(twice)}")
    processes = tuple(sorted(indices))
    by_key: dict[tuple[str, str | None], dict[int, FunctionSummary]] = {}
    calls: dict[tuple[str, str | None], dict[int, list[RecordedCall]]] = {}
    names: dict[tuple[str, str | None], tuple[str, str | None]] = {}
    for position, (index, recording) in enumerate(recordings):
        rows = summarized[position] if summarized is not None else None
        for s in summarize(recording, include_internal) if rows is None else rows:
            key = job_key(s.function, s.defined_at)
            by_key.setdefault(key, {})[index] = s
            names.setdefault(key, (s.function, s.defined_at))
        if not divergences:
            continue
        lists: dict[tuple[str, str | None], list[RecordedCall]] = {}  # call.key: its list
        for number, call in enumerate(recording.calls, 1):
            if not number % STEP_CALLS:
                yield
            record = call.record
            if record.kind in _COMPILED and (include_internal or not call.internal):
                key = (record.function, None if call.internal else call.defined_at)
                bucket = lists.get(key)
                if bucket is None:
                    bucket = lists[key] = calls.setdefault(job_key(*key), {}).setdefault(index, [])
                bucket.append(call)
    functions: list[FunctionAcross] = []
    found: list[Divergence] = []
    for key, by_process in by_key.items():
        function, defined_at = names[key]
        across = FunctionAcross(function, defined_at, {p: by_process.get(p) for p in processes})
        functions.append(across)
        if divergences:
            found += _diverged(across, calls.get(key, {}), processes)
            yield
    functions.sort(key=lambda f: f.compile_ms, reverse=True)
    found.sort(key=lambda d: d.first.t if d.first and d.first.t is not None else 0.0)
    return MergedRecordings(processes, tuple(functions), tuple(found))


def _diverged(
    across: FunctionAcross, calls: dict[int, list[RecordedCall]], processes: tuple[int, ...]
) -> list[Divergence]:
    # Per process: each signature's first compile, in order, and the compile's number.
    firsts: dict[int, dict[str, tuple[int, RecordedCall]]] = {}
    for process in processes:
        seen: dict[str, tuple[int, RecordedCall]] = {}
        for number, call in enumerate(calls.get(process, []), 1):
            signature = call.record.signature
            if signature is not None:
                seen.setdefault(_across_processes(signature), (number, call))
        firsts[process] = seen
    found: list[Divergence] = []
    everything: dict[str, None] = {}
    for process in processes:
        everything.update(dict.fromkeys(firsts[process]))
    for text in everything:
        having = tuple(p for p in processes if text in firsts[p])
        if len(having) == len(processes):
            continue
        missing = tuple(p for p in processes if p not in having)
        first_process = min(having, key=lambda p: (firsts[p][text][1].t or 0.0, p))
        number, call = firsts[first_process][text]
        others = [c.record.signature for p in missing for _, c in firsts[p].values()]
        found.append(
            Divergence(
                across.function,
                across.defined_at,
                "signature",
                having,
                missing,
                FirstCall(first_process, call.called_from, call.t, number),
                signature=str(call.record.signature),
                fields=_closest_difference(call.record.signature, others),
                counts=_counts(across, processes),
            )
        )
    counts = _counts(across, processes)
    if not found and len(set(counts.values())) > 1:
        least = min(counts.values())
        more = tuple(p for p in processes if counts[p] > least)
        fewer = tuple(p for p in processes if counts[p] == least)
        first = None
        extra = [(p, calls[p][least]) for p in more if len(calls.get(p, [])) > least]
        if extra:
            process, call = min(extra, key=lambda pc: (pc[1].t or 0.0, pc[0]))
            first = FirstCall(process, call.called_from, call.t, least + 1)
        found.append(
            Divergence(
                across.function, across.defined_at, "compiles", more, fewer, first, counts=counts
            )
        )
    return found


def _across_processes(signature: Signature) -> str:
    """A signature's text as the job's processes compare it: an array committed to a device
    of its process reads alike in each (``cpu:0`` in process 0, ``cpu:1`` in process 1: the
    same program of the job, each on its own device)."""
    if not any(leaf.device for leaf in signature.leaves):
        return str(signature)
    leaves = tuple(
        replace(leaf, device="committed") if leaf.device else leaf for leaf in signature.leaves
    )
    return str(replace(signature, leaves=leaves))


def _counts(across: FunctionAcross, processes: tuple[int, ...]) -> dict[int, int]:
    return {p: (s.executables if (s := across.per_process.get(p)) else 0) for p in processes}


def _closest_difference(
    signature: Signature | None, others: list[Signature | None]
) -> tuple[str, ...]:
    """What differs between ``signature`` and the most alike of ``others`` (same arguments;
    a device of each process's own is no difference, see :func:`_across_processes`)."""
    if signature is None:
        return ()
    best: tuple[str, ...] | None = None
    for other in others:
        if other is None or [a.path for a in other.leaves] != [a.path for a in signature.leaves]:
            continue
        fields = tuple(
            f"{mine.path}: {theirs.type_text} → {mine.type_text}"
            for mine, theirs in zip(signature.leaves, other.leaves, strict=True)
            if (mine.type_text, mine.sharding) != (theirs.type_text, theirs.sharding)
        )
        fields += tuple(
            f"{name}: {dict(other.statics).get(name)} → {value}"
            for name, value in signature.statics
            if dict(other.statics).get(name) != value
        )
        if best is None or len(fields) < len(best):
            best = fields
    return best or ()
