"""Following recordings as they are written: one file, or one job's per-process files side
by side, read a piece at a time and merged into one row per function (and process).

Free of Qt and JAX: the recording window drives a :class:`Follower` on its timer (one
:meth:`Follower.read` per turn of its event loop, then :meth:`Follower.update` when it
shows what was read), and tests drive it the same way without a window. A half-written last
line waits for its end; a file that shrank or starts with a new ``start`` line was rewritten
by a new run (:attr:`Read.reload`: read it again from the start).
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jitlab.recordings.processes import (
    Divergence,
    MergedRecordings,
    merge,
    merge_in_steps,
    process_of,
)
from jitlab.recordings.reader import (
    NewerFormat,
    NotARegularFile,
    Recording,
    paused_collector,
    read_recording,
)
from jitlab.recordings.summary import FunctionSummary, Summarizer
from jitlab.records.diagnoses import Diagnosis, of_function
from jitlab.records.lines import Key, RecordedCall

READ_BYTES = 1 << 16  # read a long file this much at a time, the window answering in between
SLICE_MS = 4.0  # read (or look for divergences) for about this long per turn
FREEZE_EVERY = 5000  # calls read between two gc.freeze() (see Follower._count)
# Calls in all files above which a job's divergences are looked for a slice per turn
# (merge_in_steps) rather than at once: 8 x 100,000 lines held the window ~300-440 ms.
MERGE_AT_ONCE = 20_000

# A lane: one function in one process (process None: a single recording).
Lane = tuple[str, str | None, int | None]


@dataclass
class Source:
    """One file being followed and how far it was read."""

    path: Path
    position: int  # among the files given
    # Read for a window, in its language: every string made visible (a bidi override would
    # reorder a label), a long one-line string bounded (Recording.shown).
    shown: str = "en"
    recording: Recording = field(init=False)
    offset: int = 0
    last_size: int = -1
    missing: bool = False
    refused: bool = False  # not a regular file (a FIFO, a device): never read
    newer: str | None = None  # the format version of a file a newer jitlab wrote: not read
    # Its rows, counted as they are read (several files: merge() takes them from here).
    summarizer: Summarizer = field(default_factory=lambda: Summarizer(include_internal=False))

    def __post_init__(self) -> None:
        self.recording = Recording(shown=self.shown)

    def reset(self) -> None:
        self.recording = Recording(shown=self.shown)
        self.offset = 0
        self.last_size = -1
        self.refused = False
        self.newer = None
        self.summarizer = Summarizer(include_internal=False)

    def size(self) -> int:
        """The file's size now (what was read, when it cannot be looked at)."""
        try:
            return os.stat(self.path).st_size
        except OSError:
            return self.offset


@dataclass(frozen=True)
class Read:
    """What one :meth:`Follower.read` found."""

    changed: bool = False  # new lines (or a file's end, or a cut line) were read
    more: bool = False  # a long file: more to read on the next turn
    reload: bool = False  # a file was rewritten: read everything again (Follower.reset)


class DivergenceSearch:
    """A long job's divergences, looked for a slice at a time (the files are not read
    meanwhile); :attr:`found` once :meth:`step` says it is over."""

    def __init__(
        self,
        follower: Follower,
        steps: Generator[None, None, MergedRecordings],
        read: int,
    ) -> None:
        self.follower = follower
        self.steps = steps
        self.read = read  # calls read when the search began
        self.reloads = follower.reloads
        self.found = False

    def step(self, budget_ms: float | None = None) -> bool:
        """Look for a slice (at least one, about ``budget_ms``); True when it is over:
        found (:attr:`found`, the follower's divergences set) or stale (read again)."""
        follower = self.follower
        if follower.reloads != self.reloads:  # read again from the start: these are stale
            return True
        budget = SLICE_MS if budget_ms is None else budget_ms
        deadline = time.perf_counter() + budget / 1e3
        with paused_collector():
            try:
                next(self.steps)
                while time.perf_counter() < deadline:
                    next(self.steps)
            except StopIteration as done:
                follower.divergences = done.value.divergences
                follower.divergences_at = self.read
                self.found = True
                return True
        return False


class Follower:
    """One recording, or one job's processes' recordings, read as they grow."""

    def __init__(self, paths: Sequence[str | Path], language: str = "en") -> None:
        """``language``: the window's, that a long string's elision is said in."""
        if not paths:
            raise ValueError("no recording to follow")
        self.sources = [Source(Path(p), i, language) for i, p in enumerate(paths)]
        self.multi = len(self.sources) > 1  # one job's processes, side by side
        self.rows: list[tuple[Lane, FunctionSummary]] = []  # one per lane, costliest first
        self.divergences: tuple[Divergence, ...] = ()
        self.divergences_at = -1  # calls read when they were looked for (-1: not yet)
        self.reloads = 0  # times read again from the start (a slow search stops)
        self._calls: dict[Lane, list[RecordedCall]] = {}
        self._indexed: dict[int, int] = {}
        self._summarizer = Summarizer()  # one file's rows, updated with the new lines only
        self._frozen_at = 0  # calls read at the last gc.freeze()
        self._turn = 0  # the file whose piece is read first at the next read

    # -- where the files stand --------------------------------------------------------------
    @property
    def recording(self) -> Recording:
        """The first file's recording (the only one, unless it follows several processes)."""
        return self.sources[0].recording

    @property
    def missing(self) -> list[Path]:
        return [s.path for s in self.sources if s.missing]

    @property
    def refused(self) -> list[Path]:
        return [s.path for s in self.sources if s.refused]

    @property
    def newer(self) -> list[tuple[Path, str]]:
        """Files in a format newer than this jitlab reads, with their format versions."""
        return [(s.path, s.newer) for s in self.sources if s.newer is not None]

    @property
    def ended(self) -> bool:
        """Every file has its end line: the program finished."""
        return all(s.recording.ended for s in self.sources)

    @property
    def unended(self) -> list[Path]:
        return [s.path for s in self.sources if not s.recording.ended]

    @property
    def partial_line(self) -> bool:
        return any(s.recording.partial_line for s in self.sources)

    @property
    def bad_lines(self) -> int:
        return sum(s.recording.bad_lines for s in self.sources)

    @property
    def long_lines(self) -> int:
        return sum(s.recording.long_lines for s in self.sources)

    @property
    def calls_read(self) -> int:
        return sum(len(s.recording.calls) for s in self.sources)

    def progress(self) -> float:
        """The share of the files' bytes read so far (0 to 1)."""
        read = sum(s.offset for s in self.sources)
        return read / max(sum(s.size() for s in self.sources), 1)

    # -- reading ----------------------------------------------------------------------------
    def reset(self) -> None:
        """Read the files again from their first line."""
        for source in self.sources:
            source.reset()
        self._calls = {}
        self._indexed = {}
        self._summarizer = Summarizer()
        self.divergences_at = -1
        self.reloads += 1

    def read(self, budget_ms: float | None = None) -> Read:
        """Read the lines written since the last look, a piece (:data:`READ_BYTES`) of each
        file in turn for about ``budget_ms`` (:data:`SLICE_MS`); :attr:`Read.more` when a
        long file has more to read on the next turn."""
        budget = SLICE_MS if budget_ms is None else budget_ms
        changed = more = False
        started = time.perf_counter()
        # Several files: a piece of each in turn, this turn starting after the last one read.
        turn = self._turn % len(self.sources)
        waiting = self.sources[turn:] + self.sources[:turn]
        while waiting:
            source = waiting.pop(0)
            self._turn = source.position + 1
            outcome = self._read_source(source)
            if outcome == "reload":
                return Read(changed=True, reload=True)
            changed |= outcome in ("changed", "more")
            if outcome == "more":  # a long file: the time spent counts
                waiting.append(source)
                if (time.perf_counter() - started) * 1e3 >= budget:
                    more = True  # the rest on the next turn
                    break
        if changed:
            self._count()
        return Read(changed, more)

    def _read_source(self, source: Source) -> str:
        """ "" (nothing new), "changed", "more" (changed, and more to read) or "reload"."""
        try:
            size = os.stat(source.path).st_size
        except OSError:
            source.missing = True
            return ""
        source.missing = False
        if size < source.offset:  # the program started again and rewrote the file
            return "reload"
        if size == source.last_size:
            return ""
        rec = source.recording
        start = rec.start
        before = (len(rec.calls), len(rec.hits), sum(rec.hits.values()), len(rec.scripts))
        ended = rec.ended
        try:
            rec, offset = read_recording(source.path, source.offset, rec, limit=READ_BYTES)
        except NotARegularFile:  # a FIFO would hold the reader, /dev/zero never end
            source.refused = True
            return ""
        except NewerFormat as exc:  # said in one line, never read as something else
            source.newer = exc.version
            return ""
        except OSError:
            return ""
        source.refused = False
        more = offset - source.offset >= READ_BYTES
        source.recording, source.offset = rec, offset
        if not more:
            source.last_size = size
        if start is not None and rec.start is not start:
            return "reload"  # a new run rewrote the file while we were away
        after = (len(rec.calls), len(rec.hits), sum(rec.hits.values()), len(rec.scripts))
        if after != before or rec.ended != ended or rec.partial_line:
            return "more" if more else "changed"
        return "more" if more else ""

    def _count(self) -> None:
        """Index and count the lines just read (cheap, a piece at a time); every
        :data:`FREEZE_EVERY` calls, move what was read out of the garbage collector's way:
        records are kept for good, and a full collection over the objects of a
        million-line recording would hold the window ~100 ms (as in WorkerLink.drain)."""
        self._index_calls()
        if not self.multi:
            self._summarizer.count(self.recording)
        else:
            for source in self.sources:
                source.summarizer.count(source.recording)
        calls = self.calls_read
        if calls < self._frozen_at:  # read again from the start
            self._frozen_at = 0
        if calls - self._frozen_at >= FREEZE_EVERY:
            gc.freeze()
            self._frozen_at = calls

    # -- what was read ----------------------------------------------------------------------
    def process_of(self, source: Source) -> int | None:
        """The process a file is of (None when one recording is followed)."""
        if not self.multi:
            return None
        return process_of(source.recording, source.path.name, source.position)

    def _index_calls(self) -> None:
        for source in self.sources:
            process = self.process_of(source)
            calls = source.recording.calls
            start = self._indexed.get(source.position, 0)
            for call in calls[start:]:
                function, defined_at = call.key
                self._calls.setdefault((function, defined_at, process), []).append(call)
            self._indexed[source.position] = len(calls)

    def calls_of(self, key: Key | Lane) -> list[RecordedCall]:
        """A lane's calls (a (function, defined at) key: its first process's)."""
        return self._calls.get(self.lane(key), [])

    def lane(self, key: Key | Lane) -> Lane:
        """A lane from a (function, defined at) key: its first process's lane."""
        if len(key) == 3:
            return (key[0], key[1], key[2])
        for lane, _ in self.rows:
            if lane[:2] == (key[0], key[1]):
                return lane
        return (key[0], key[1], None)

    def source_of(self, lane: Lane) -> Source:
        """The file a lane was read from."""
        for source in self.sources:
            if self.process_of(source) == lane[2]:
                return source
        return self.sources[0]

    def diagnoses_of(self, lane: Lane) -> list[Diagnosis]:
        """What the recording of a lane's process diagnosed about its function (call-site-cost
        included: :meth:`~jitlab.recordings.reader.Recording.every_diagnosis`)."""
        found = self.source_of(lane).recording.every_diagnosis()
        return of_function(found, lane[0], lane[1])

    def update(self, loading: bool = False) -> DivergenceSearch | None:
        """Bring :attr:`rows` (and, several files, :attr:`divergences`) up to the lines read.

        ``loading``: the files are still being read; divergences are looked for once they
        are (meanwhile the processes are at different points of their recordings: what they
        compiled differs anyway). A long job's search is returned to be run a slice per turn
        (:class:`DivergenceSearch`); the divergences found before stay until it ends.
        """
        self._index_calls()
        if not self.multi:
            self.divergences = ()
            rows = self._summarizer.update(self.recording)
            self.rows = [((s.function, s.defined_at, None), s) for s in rows]
            return None
        processes = [self.process_of(source) for source in self.sources]
        pairs = [
            (index if index is not None else source.position, source.recording)
            for index, source in zip(processes, self.sources, strict=True)
        ]
        if len({index for index, _ in pairs}) < len(pairs):
            # Two files say they are the same process: keep them apart.
            pairs = [(source.position, source.recording) for source in self.sources]
        summaries = [source.summarizer.update(source.recording) for source in self.sources]
        read = self.calls_read
        wanted = not loading and self.divergences_at != read
        later = wanted and read > MERGE_AT_ONCE
        merged = merge(pairs, summaries=summaries, divergences=wanted and not later)
        search = None
        if later:
            search = DivergenceSearch(self, merge_in_steps(pairs, summaries=summaries), read)
        elif wanted:
            self.divergences, self.divergences_at = merged.divergences, read
        elif loading:
            self.divergences = ()
        self.rows = [
            ((s.function, s.defined_at, process), s)
            for across in merged.functions
            for process, s in sorted(across.per_process.items())
            if s is not None
        ]
        return search

    def diverged(self, lane: Lane) -> Divergence | None:
        """The divergence a lane is part of (its function, in a process that compiled
        something the others did not, or more), else None."""
        name = os.path.basename(lane[1]) if lane[1] else None
        for d in self.divergences:
            where = os.path.basename(d.defined_at) if d.defined_at else None
            if (d.function, where) == (lane[0], name) and lane[2] in d.processes:
                return d
        return None

    def diverged_function(self, lane: Lane) -> bool:
        """The processes diverged on this lane's function (in whichever process)."""
        name = os.path.basename(lane[1]) if lane[1] else None
        return any(
            (d.function, os.path.basename(d.defined_at) if d.defined_at else None)
            == (lane[0], name)
            for d in self.divergences
        )
