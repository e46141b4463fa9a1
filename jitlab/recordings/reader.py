"""Read a watch recording (JSON lines) into typed records, and summarise it per function.

A ``call`` line becomes a :class:`RecordedCall`: the :class:`~jitlab.records.calls.CallRecord`
the probe made (read back with ``CallRecord.from_json``) plus what only a recording knows —
where the function is defined, which line called it, when, and whether it was seen through
JAX's compile events only. Counts per function are the probe's own
:class:`~jitlab.records.calls.Summary` of those records.

Reading is defensive: a file cut off mid-line by a killed process still opens (its last,
partial line waits until it ends), and a line that is not what ``jitlab watch`` writes —
garbage bytes, JSON that is not an object, a field of the wrong type — is skipped and
counted, so whatever reads the recording can trust the types of what it gets. So is a
number no recording holds (a 400-digit count, a time past 1e18) and a line longer than
:data:`MAX_LINE_BYTES` (read no further than that: memory stays bounded). Only regular files
are read: a FIFO or a device (``/dev/zero``) is refused (:class:`NotARegularFile`), never
waited on or read forever.
"""

from __future__ import annotations

import errno
import gc
import json
import os
import re
import stat
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jitlab.records.calls import (
    CallKind,
    CallRecord,
    ErrorInfo,
    OutputLine,
    Reason,
    Signature,
    Summary,
)
from jitlab.records.lines import (
    CALL_KINDS,
    COMPILED,
    COUNTS,
    HIGH,
    KINDS,
    LOW,
    NUMBER_TYPES,
    TIMES,
    Key,
    ProcessInfo,
    RecordedCall,
    RecordedHits,
    RecordedScript,
    RecordingStart,
    float_or_none,
    is_number,
    is_of,
    whole_or_none,
)


@dataclass
class Recording:
    start: RecordingStart | None = None
    process_line: ProcessInfo | None = None  # the ``process`` line, in multi-process runs
    calls: list[RecordedCall] = field(default_factory=list)
    hits: dict[Key, int] = field(default_factory=dict)  # latest count
    # ``jitlab watch --scripts``: per (function key, card index), the script of the compile
    # that made the card (a card rewritten later keeps the newest).
    scripts: dict[tuple[Key, int], RecordedScript] = field(default_factory=dict)
    ended: bool = False
    # ``notice`` lines, (notice, t) in order: "listeners_removed" (the program cleared
    # jitlab's JAX listeners: compiles before t may be missing from the counts).
    notices: list[tuple[str, float | None]] = field(default_factory=list)  # the first few
    notice_counts: dict[str, int] = field(default_factory=dict)  # every one, by notice
    partial_line: bool = False  # the file ended mid-line (the program was killed)
    bad_lines: int = 0  # complete lines skipped as unreadable
    long_lines: int = 0  # of which: longer than MAX_LINE_BYTES (read no further than that)
    # Inside a line too long to read: the bytes up to its end are skipped (a reader that
    # resumes at the offset returned goes on skipping).
    skipping_line: bool = False

    @property
    def process(self) -> ProcessInfo | None:
        """Which process of a multi-process job wrote this; None for a single process."""
        if self.process_line is not None:
            return self.process_line
        start = self.start
        if start is None or start.process is None:
            return None
        return ProcessInfo(start.process, start.processes, start.host)

    @property
    def skipped(self) -> str:
        """``"3 unreadable lines skipped"``, or ``""`` when every line was read (with how
        many were too long: ``"… (1 longer than 16 MiB)"``)."""
        if not self.bad_lines:
            return ""
        noun = "line" if self.bad_lines == 1 else "lines"
        text = f"{self.bad_lines} unreadable {noun} skipped"
        if self.long_lines:
            text += f" ({self.long_lines} longer than {MAX_LINE_BYTES >> 20} MiB)"
        return text

    def add_line(self, obj: Any) -> bool:
        """File one parsed line; False (and nothing filed) when it is not a valid line."""
        if not isinstance(obj, dict):
            return False
        kind = obj.get("type")
        if kind == "call":
            call = _call(obj)
            if call is None:
                return False
            self.calls.append(call)
        elif kind == "hits":
            if not _valid_hits(obj):
                return False
            hits = RecordedHits.from_json(obj)
            self.hits[hits.key] = hits.hits
        elif kind == "start":
            if not (is_of(obj.get("argv"), list, none=True) and is_number(obj.get("time"))):
                return False
            if any(is_of(obj.get(n), int) and whole_or_none(obj.get(n)) is None for n in COUNTS):
                return False  # a process index no job has (a 400-digit number)
            self.start = RecordingStart.from_json(obj)
        elif kind == "process":
            info = ProcessInfo.from_json(obj)
            if info is None or not is_number(obj.get("t")):
                return False
            if any(is_of(obj.get(n), int) and whole_or_none(obj.get(n)) is None for n in COUNTS):
                return False
            self.process_line = info
        elif kind == "script":
            script = RecordedScript.from_json(obj)
            if script is None:
                return False
            self.scripts[(script.key, script.card)] = script
        elif kind == "end":
            self.ended = True
        elif kind == "notice":
            notice = obj.get("notice")
            if not is_of(notice, str) or not (obj.get("t") is None or is_number(obj.get("t"))):
                return False
            notice = _intern(notice[:200])
            self.notice_counts[notice] = self.notice_counts.get(notice, 0) + 1
            if len(self.notices) < _NOTICES_KEPT:  # bounded: a program clearing in a loop
                self.notices.append((notice, float_or_none(obj.get("t"))))
        return True  # other types: from a newer jitlab, ignored


@contextmanager
def paused_collector() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block (then as it was).

    Records hold no cycles, yet each allocation counts toward a collection that walks every
    object made so far: reading and merging long recordings runs ~1.4x faster without it
    (8 files of 100,000 lines: reading 13.0 s -> 9.0 s)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def read_recording(
    path: str | Path, offset: int = 0, into: Recording | None = None, limit: int | None = None
) -> tuple[Recording, int]:
    """Parse complete lines from ``offset``; returns the recording and the offset to resume at.

    Following a file that is still being written is calling this again with that offset.
    ``limit``: read about that many bytes (up to the end of the line they stop in), so a
    window can read a long file a piece at a time; when the offset moved by ``limit`` or
    more, more may follow.
    Only opening or reading the file can raise (OSError), before anything is filed, so a
    caller that retries never files a line twice (a read that fails later stops the reading
    there: the offset returned is where to resume).
    The file is read :data:`READ_PIECE` at a time, so memory holds the records, never the
    whole file's bytes; a line longer than :data:`MAX_LINE_BYTES` is counted and skipped as
    it is read. A path that is not a regular file (a FIFO, ``/dev/zero``, a socket) raises
    :class:`NotARegularFile` (an OSError) before anything is read.
    """
    recording = into or Recording()
    consumed, total, pending = 0, 0, b""
    with _open_regular(path) as f, paused_collector():
        f.seek(offset)
        while True:
            size = READ_PIECE if limit is None else min(READ_PIECE, limit - total)
            try:
                piece = f.read(size)
                total += len(piece)
                done = len(piece) < size or (limit is not None and total >= limit)
                if done and limit is not None and len(piece) == size and piece[-1:] != b"\n":
                    # The piece ends with a whole line (or the file's end, or a line too long).
                    piece += f.readline(MAX_LINE_BYTES + 1)
            except OSError:
                if not consumed:
                    raise
                break
            buffer = pending + piece
            if recording.skipping_line:  # the rest of a line too long to read
                end = buffer.find(b"\n")
                skipped = len(buffer) if end < 0 else end + 1
                consumed += skipped
                buffer = buffer[skipped:]
                recording.skipping_line = end < 0
            complete, newline, pending = buffer.rpartition(b"\n")
            if newline:
                _file_lines(recording, complete)
                consumed += len(complete) + 1
            if len(pending) > MAX_LINE_BYTES:  # counted now, its rest skipped as it comes
                recording.bad_lines += 1
                recording.long_lines += 1
                recording.skipping_line = True
                consumed += len(pending)
                pending = b""
            if done:
                break
    recording.partial_line = bool(pending.strip())
    return recording, offset + consumed


READ_PIECE = 1 << 20  # bytes read at a time
_NOTICES_KEPT = 1000  # notice lines kept per recording (all counted: notice_counts)
# The longest line read (a ``call`` line of a 70,000-argument signature, a script line with
# long texts): a longer one is skipped and counted, so that no line holds memory without
# bound (a 220 MB signature line took 1.4 GB to summarise).
MAX_LINE_BYTES = 16 << 20


class NotARegularFile(OSError):
    """The path names a FIFO, a device, a socket or a folder: not a recording to read
    (a FIFO would wait for a writer, ``/dev/zero`` never ends). ``kind`` says which
    (``fifo``, ``char_device``, ``block_device``, ``socket``, ``folder``, ``other``),
    ``what`` in English."""

    def __init__(self, path: str | Path, kind: str) -> None:
        self.kind = kind
        self.what = _KIND_WORDS.get(kind, "not a regular file")
        super().__init__(errno.EINVAL, f"not a regular file ({self.what})", str(path))


_KIND_WORDS = {
    "fifo": "a named pipe (FIFO)",
    "char_device": "a character device",
    "block_device": "a block device",
    "socket": "a socket",
    "folder": "a folder",
}


def _open_regular(path: str | Path) -> Any:
    """The file opened for reading, once it is known to be a regular file (checked on the
    opened file itself, so a name swapped in between cannot slip through; opened without
    blocking, so a FIFO with no writer does not hold the caller)."""
    nonblocking = getattr(os, "O_NONBLOCK", 0)  # none on Windows (no FIFOs there either)
    fd = os.open(path, os.O_RDONLY | nonblocking | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotARegularFile(path, _file_kind(mode))
        if nonblocking:
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def check_regular(path: str | Path) -> None:
    """Raise :class:`NotARegularFile` when ``path`` exists and is not a regular file (an
    OSError when it cannot be opened at all)."""
    _open_regular(path).close()


def _file_kind(mode: int) -> str:
    kinds = (
        (stat.S_ISDIR, "folder"),
        (stat.S_ISFIFO, "fifo"),
        (stat.S_ISCHR, "char_device"),
        (stat.S_ISBLK, "block_device"),
        (stat.S_ISSOCK, "socket"),
    )
    return next((kind for test, kind in kinds if test(mode)), "other")


def _file_lines(recording: Recording, complete: bytes) -> None:
    """File whole lines (``complete``: lines joined by newlines, the last one's left off)."""
    hits, hits_line = recording.hits, _HITS_LINE.fullmatch
    for raw in complete.split(b"\n"):
        if len(raw) > MAX_LINE_BYTES:  # whole in this piece, yet too long: not parsed
            recording.bad_lines += 1
            recording.long_lines += 1
            continue
        # Most lines of a long recording are ``hits`` lines as jitlab writes them: only the
        # count is kept, read without building anything (any other line: parsed).
        match = hits_line(raw)
        if match is not None:
            key = _HIT_KEYS.get(match[1]) or _hit_key(match[1])
            if key is not None:
                hits[key] = int(match[2])
                continue
        if raw.strip() and not recording.add_line(_parse(raw)):
            recording.bad_lines += 1


# A ``hits`` line exactly as jitlab writes it (``RecordedHits.to_json``, then ``process``
# in a multi-process job): strings without escapes or control characters, the count a
# plain whole number, ``t`` a JSON number or null. Any other line (whitespace, escapes,
# another order, a bad value) takes the general path, which decides what it is.
_STRING = rb'"[^"\\\x00-\x1f]*"'
_NUMBER = rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
_HITS_LINE = re.compile(
    rb'\{"type": "hits", ("function": '
    + _STRING
    + rb', "defined_at": (?:'
    + _STRING
    + rb'|null)), "hits": (0|[1-9][0-9]{0,17}), "t": (?:'
    + _NUMBER
    + rb"|null)"
    rb'(?:, "process": (?:0|[1-9][0-9]{0,8}))?\}'
)
_HIT_KEYS: dict[bytes, Key] = {}  # a hits line's function and definition: its key


def _hit_key(text: bytes) -> Key | None:
    """The key of a hits line's ``"function": …, "defined_at": …`` (None: not UTF-8)."""
    try:
        fields = _decode("{" + text.decode("utf-8") + "}")
    except ValueError:
        return None
    key = (_intern(fields["function"]), fields["defined_at"])
    if len(_HIT_KEYS) >= _KEPT_AT_MOST:
        _HIT_KEYS.clear()
    _HIT_KEYS[text] = key
    return key


_UNREADABLE = object()
# One decoder for every line (json.loads with an option builds a new one per call).
# Bare NaN/Infinity (older writers) read as null, the rule jitlab writes by.
_decode = json.JSONDecoder(parse_constant=lambda _: None).decode


def _parse(raw: bytes) -> Any:
    try:
        return _decode(raw.decode("utf-8"))
    except (ValueError, RecursionError):  # not UTF-8, not JSON, nested past the limit
        return _UNREADABLE


def _valid_hits(obj: dict[str, Any]) -> bool:
    hits = obj.get("hits")
    return (
        is_of(obj.get("function"), str)
        and is_of(obj.get("defined_at"), str, none=True)
        and whole_or_none(hits) is not None
    )


_DICT_OR_NULL = ("signature", "error", "reason", "params", "notes")


def _call(obj: dict[str, Any]) -> RecordedCall | None:
    """The typed call of a ``call`` line, or None when a field has the wrong type.

    ``CallRecord.from_json`` is tolerant by design (missing fields default); this is strict
    about the types it reads, so a damaged line is counted rather than read as zeros. JSON
    gives exact types (dict, list, str, int, float, bool), so ``type(v) is`` checks suffice.
    The value is ``RecordedCall.from_json``'s, made faster: reading a long recording spends
    most of its time here. A signature or reason already read (an equal JSON object) is the
    same object again, names are interned: a long recording repeats a few signatures,
    reasons and names a hundred thousand times (also most of its memory).
    """
    get = obj.get
    function, kind = get("function"), get("kind")
    if type(function) is not str or type(kind) is not str or kind not in KINDS:
        return None
    for name in TIMES:
        value = get(name)
        # A number in range: finite, and no 400-digit count (float() would overflow later).
        if value is not None and not (type(value) in NUMBER_TYPES and LOW < value < HIGH):
            return None
    index, card, defined_at, variant = get("index"), get("card"), get("defined_at"), get("variant")
    if (index is not None and (type(index) is not int or not LOW < index < HIGH)) or (
        card is not None and (type(card) is not int or not LOW < card < HIGH)
    ):
        return None
    if (defined_at is not None and type(defined_at) is not str) or (
        variant is not None and type(variant) is not str
    ):
        return None
    signature, reason, error = get("signature"), get("reason"), get("error")
    params, notes, stdout = get("params"), get("notes"), get("stdout")
    for value in (signature, reason, error, params, notes):
        if value is not None and type(value) is not dict:
            return None
    if stdout is not None and type(stdout) is not list:
        return None
    texts = [error.get("type"), error.get("message")] if error else []
    for line in stdout or ():
        if type(line) is not dict:
            return None
        texts += (line.get("when"), line.get("text"))
    if any(t is not None and type(t) is not str for t in texts):
        return None
    try:
        if signature:
            signature = _kept(signature, _SIGNATURES, _signature)
        if reason:
            reason = _kept(reason, _REASONS, _reason)
        trace = float(get("trace_ms") or 0.0)
        lower = float(get("lower_ms") or 0.0)
        compile_ms = float(get("compile_ms") or 0.0)
        latency, called_from, t = get("latency_ms"), get("called_from"), get("t")
        record = CallRecord(
            int(index or 0),
            _intern(function or "?"),
            CALL_KINDS[kind],
            # Calls seen only through compile events have no latency: the phases bound it.
            float(latency) if latency is not None else 0 + trace + lower + compile_ms,
            trace,
            lower,
            compile_ms,
            signature or None,
            card,
            reason or None,
            ErrorInfo(error.get("type", "?"), error.get("message", "")) if error else None,
            tuple(OutputLine(o["when"], o["text"]) for o in stdout) if stdout else (),
            params,
            variant,
            notes,
        )
        return RecordedCall(
            record,
            defined_at=_intern(defined_at) if defined_at is not None else None,
            called_from=_intern(called_from) if type(called_from) is str else None,
            events_only=get("source") == "events",
            internal=bool(get("internal")),
            t=float(t) if t is not None else None,
        )
    except Exception:  # _Unfit, or a shape from_json cannot take: KeyError, TypeError…
        return None


class _Unfit(Exception):
    """A signature or reason of a type the reader does not trust."""


def _signature(data: dict[str, Any]) -> Signature:
    text = data.get("text")
    if text is not None and type(text) is not str:
        raise _Unfit
    # Texts where jitlab writes texts, numbers in shapes, or the line is unreadable: a dtype
    # that is a list would be read, and later fail to hash in a summary. (Numbers are not
    # told apart by type: an equal signature read before serves for 1.0 as for 1.)
    args, static = data.get("args", []), data.get("static") or {}
    if type(args) is not list or type(static) is not dict or type(data.get("tree", "")) is not str:
        raise _Unfit
    for arg in args:
        if not (
            type(arg) is dict
            and type(arg.get("path")) is str
            and type(arg.get("dtype")) is str
            and type(arg.get("sharding")) in (str, type(None))
            and type(arg.get("shape")) is list
            and all(type(d) in NUMBER_TYPES and 0 <= d < HIGH for d in arg["shape"])
        ):
            raise _Unfit
    return Signature.from_json(data)


def _reason(data: dict[str, Any]) -> Reason:
    changes = data.get("changes", [])
    if type(changes) is not list or any(type(c) is not str for c in changes):
        raise _Unfit
    return Reason.from_json(data)


# Signatures and reasons already read, by their text, with the JSON object each was made
# from: an equal object (``==``) makes an equal value, so the one made before serves. Only
# values whose text is the line's own are kept (as jitlab writes them), so a line whose
# text agrees with its fields reads exactly as it would alone; one that does not (1.0 where
# jitlab writes 1) may read as the equal value read before. Shared by all recordings read
# (a merge then compares the same objects); emptied when it grows past _KEPT_AT_MOST.
_SIGNATURES: dict[str, tuple[dict[str, Any], Signature]] = {}
_REASONS: dict[str, tuple[dict[str, Any], Reason]] = {}
_KEPT_AT_MOST = 1 << 16
_intern = sys.intern


def _kept(data: dict[str, Any], kept: dict[str, tuple[dict[str, Any], Any]], make: Any) -> Any:
    text = data.get("text")
    if type(text) is not str:  # none, or a damaged line's: made, not kept
        return make(data)
    seen = kept.get(text)
    if seen is not None and seen[0] == data:
        return seen[1]
    value = make(data)
    try:
        own = str(value) == text
    except Exception:  # a damaged line's value that cannot be written (dtype {}): not kept
        return value
    if own:
        if len(kept) >= _KEPT_AT_MOST:
            kept.clear()
        kept[text] = (data, value)
    return value


@dataclass(frozen=True)
class FunctionSummary:
    """One function of a recording: the probe's :class:`Summary` of its recorded calls, with
    its cache hits (counted apart: a hit is a count in the recording, not a line)."""

    function: str
    defined_at: str | None
    totals: Summary = field(default_factory=lambda: Summary.of(()))
    hits: int | None = None  # None when hits were not counted (function jitted before watch)
    signatures: tuple[str, ...] = ()  # distinct compiled signatures, in order of appearance
    changes: Counter[str] = field(default_factory=Counter)  # what differed, how often
    internal: bool = False  # JAX's own kernels (eager ops, jnp.* outside jit): one per primitive

    @property
    def compiles(self) -> int:
        return self.totals.compiles

    @property
    def recompiles(self) -> int:
        return self.totals.recompiles

    @property
    def persistent_hits(self) -> int:
        return self.totals.persistent_hits

    @property
    def errors(self) -> int:
        return self.totals.errors

    @property
    def compile_ms(self) -> float:
        """Trace + lower + compile: the time lost producing executables."""
        return self.totals.time_lost_ms

    @property
    def executables(self) -> int:
        """Programs compiled for it: first compile, recompiles, persistent loads. The
        "compiles" count of both the terminal summary and the recording window."""
        return self.compiles + self.recompiles + self.persistent_hits

    @property
    def ms_text(self) -> str:
        """Time lost compiling as both the terminal summary and the recording window show it."""
        return f"{self.compile_ms:.1f}"


def summarize(recording: Recording, include_internal: bool = True) -> list[FunctionSummary]:
    """Per function, sorted by time lost to compiling (the first one to fix comes first).

    JAX's own kernels (recorded with ``--include-internal``) are one row per primitive,
    wherever they were called from; rows with nothing in them are left out.
    """
    return Summarizer(include_internal).update(recording)


class _Tally:
    """One function's running totals (added in the order :meth:`Summary.of` adds them)."""

    __slots__ = (
        "changes",
        "compile",
        "counts",
        "first",
        "internal",
        "lower",
        "n",
        "signatures",
        "trace",
    )

    def __init__(self, first: int, internal: bool) -> None:
        self.first = first  # the position of its first call line
        self.internal = internal
        self.n = 0
        self.counts = dict.fromkeys(CallKind, 0)
        self.trace = self.lower = self.compile = 0.0
        self.signatures: dict[str, None] = {}  # an ordered set
        # What differed, per recompile: each reason's changes (a few distinct ones, counted
        # whole; spelt out change by change, in the same order, by Summarizer._row).
        self.changes: dict[tuple[str, ...], int] = {}


class Summarizer:
    """:func:`summarize`, kept up to date as a recording grows: each :meth:`update` reads
    only the call lines added since the last one, so following a long file (or reading it
    a piece at a time) costs in proportion to what is new. Same rows, same order."""

    def __init__(self, include_internal: bool = True) -> None:
        self.include_internal = include_internal
        self._seen = 0
        self._tallies: dict[Key, _Tally] = {}

    def update(self, recording: Recording) -> list[FunctionSummary]:
        """The rows, the call lines added since the last look counted first."""
        self.count(recording)
        tallies = self._tallies
        keys = sorted(tallies, key=lambda k: tallies[k].first)
        keys += [key for key in recording.hits if key not in tallies]
        rows = [self._row(key, tallies.get(key), recording.hits.get(key)) for key in keys]
        rows = [s for s in rows if s.executables or s.errors or s.hits]
        return sorted(rows, key=lambda s: s.compile_ms, reverse=True)

    def count(self, recording: Recording) -> None:
        """Count the call lines added since the last look (a window reading a long file
        counts each piece as it comes, so that showing the rows costs little)."""
        calls = recording.calls
        if len(calls) < self._seen:  # another recording, or read again: start over
            self._seen, self._tallies = 0, {}
        tallies = self._tallies
        include_internal = self.include_internal
        # A recording's reasons are a few objects read again and again: each one's words
        # once (kept by id while its calls hold it, for this update only).
        words: dict[int, tuple[str, ...]] = {}
        for position in range(self._seen, len(calls)):
            call = calls[position]
            internal = call.internal
            if internal and not include_internal:
                continue
            record = call.record
            key = (record.function, None if internal else call.defined_at)  # call.key
            tally = tallies.get(key)
            if tally is None:
                tally = tallies[key] = _Tally(position, internal)
            kind = record.kind
            tally.n += 1
            tally.counts[kind] += 1
            tally.trace += record.trace_ms
            tally.lower += record.lower_ms
            tally.compile += record.compile_ms
            if kind in COMPILED:
                signature = record.signature
                if signature is not None:
                    tally.signatures.setdefault(str(signature))
                reason = record.reason
                if kind is CallKind.RECOMPILE and reason is not None:
                    changes = words.get(id(reason))
                    if changes is None:
                        changes = words[id(reason)] = reason.changes
                    tally.changes[changes] = tally.changes.get(changes, 0) + 1
        self._seen = len(calls)

    @staticmethod
    def _row(key: Key, tally: _Tally | None, hits: int | None) -> FunctionSummary:
        if tally is None:
            return FunctionSummary(*key, totals=Summary.of(()), hits=hits)
        count = tally.counts
        changes: Counter[str] = Counter()  # each change first seen first, as counted one by one
        for words, n in tally.changes.items():
            for word in words:
                changes[word] += n
        totals = Summary.from_counts(count, tally.n, tally.trace, tally.lower, tally.compile)
        return FunctionSummary(
            *key,
            totals=totals,
            hits=hits,
            signatures=tuple(tally.signatures),
            changes=changes,
            internal=tally.internal,
        )


def suggest_buckets(sizes: list[int], max_compiles: int) -> list[int]:
    """Bucket sizes covering every observed size with the least total padding.

    Each observed size ``n`` is padded up to the smallest bucket ``≥ n``; with at most
    ``max_compiles`` buckets (chosen among the observed sizes; the largest is always one),
    the total padding over all calls is minimal. Exact dynamic programme, O(k·m²) for m
    distinct sizes.
    """
    if not sizes or max_compiles < 1:
        return []
    counts = Counter(sizes)
    values = sorted(counts)
    m = len(values)
    k = min(max_compiles, m)
    # cost[i][j]: padding when sizes values[i..j] all use bucket values[j].
    prefix_n = [0]
    prefix_sum = [0]
    for v in values:
        prefix_n.append(prefix_n[-1] + counts[v])
        prefix_sum.append(prefix_sum[-1] + counts[v] * v)

    def cost(i: int, j: int) -> int:
        n = prefix_n[j + 1] - prefix_n[i]
        return n * values[j] - (prefix_sum[j + 1] - prefix_sum[i])

    inf = float("inf")
    # best[b][j]: least padding covering values[0..j] with b buckets, the last at values[j].
    # The padding cost is Monge (cost(a,d) + cost(b,c) ≥ cost(a,c) + cost(b,d) for
    # a ≤ b ≤ c ≤ d), so the best previous bucket moves right as j does: each layer is
    # solved by divide and conquer in O(m log m), the leftmost best kept as before.
    best = [[inf] * m for _ in range(k + 1)]
    back = [[-1] * m for _ in range(k + 1)]
    for j in range(m):
        best[1][j] = cost(0, j)

    def solve(b: int, lo: int, hi: int, first: int, last: int) -> None:
        # best[b][j] for j in [lo, hi], its previous bucket i within [first, last].
        stack = [(lo, hi, first, last)]
        previous, row, links = best[b - 1], best[b], back[b]
        while stack:
            lo, hi, first, last = stack.pop()
            if lo > hi:
                continue
            j = (lo + hi) // 2
            value, at = inf, -1
            n_j, sum_j, v_j = prefix_n[j + 1], prefix_sum[j + 1], values[j]
            for i in range(first, min(last, j - 1) + 1):
                candidate = (
                    previous[i] + (n_j - prefix_n[i + 1]) * v_j - (sum_j - prefix_sum[i + 1])
                )
                if candidate < value:
                    value, at = candidate, i
            row[j], links[j] = value, at
            split = at if at >= 0 else first
            stack.append((lo, j - 1, first, split))
            stack.append((j + 1, hi, split, last))

    for b in range(2, k + 1):
        solve(b, 0, m - 1, 0, m - 1)
    b = min(range(1, k + 1), key=lambda b: (best[b][m - 1], b))
    buckets, j = [], m - 1
    while j >= 0 and b >= 1:
        buckets.append(values[j])
        j, b = back[b][j], b - 1
    return sorted(buckets)
