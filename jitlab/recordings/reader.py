"""Read a watch recording (JSON lines) into typed records.

Each line is read by its own type's strict ``from_json`` (:mod:`jitlab.records.lines`): a
``call`` line becomes a :class:`~jitlab.records.lines.RecordedCall`, the probe's
:class:`~jitlab.records.calls.CallRecord` plus what only a recording knows — where the
function is defined, which line called it, when, and whether it was seen through JAX's
compile events only. The summary per function is :mod:`jitlab.recordings.summary`'s.

Reading is defensive: a file cut off mid-line by a killed process still opens (its last,
partial line waits until it ends), and a line that is not what ``jitlab watch`` writes —
garbage bytes, JSON that is not an object, a field of the wrong type — is skipped and
counted, so whatever reads the recording can trust the types of what it gets. So is a
number no recording holds (a 400-digit count, a time past 1e18) and a line longer than
:data:`MAX_LINE_BYTES` (read no further than that: memory stays bounded). Only regular files
are read: a FIFO or a device (``/dev/zero``) is refused (:class:`NotARegularFile`), never
waited on or read forever; so is a file of a newer major format (:class:`NewerFormat`).
"""

from __future__ import annotations

import errno
import gc
import json
import os
import re
import stat
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jitlab.records.diagnoses import in_order

# Moved to summary.py and buckets.py; the faces (and older scripts) import them from here.
from jitlab.records.lines import (
    FORMAT_MAJOR,
    Diagnosis,
    Key,
    ProcessInfo,
    RecordedCall,
    RecordedHits,
    RecordedNotice,
    RecordedScript,
    RecordingStart,
)
from jitlab.records.messages import say
from jitlab.records.site_costs import site_cost_diagnoses
from jitlab.records.strict import KEPT_AT_MOST, intern, is_object
from jitlab.records.text import FIELD_LIMIT, may_hide, visible_strings


@dataclass
class Recording:
    start: RecordingStart | None = None
    process_line: ProcessInfo | None = None  # the ``process`` line, in multi-process runs
    calls: list[RecordedCall] = field(default_factory=list)
    hits: dict[Key, int] = field(default_factory=dict)  # latest count
    # A file holding several recordings one after another (joined with ``cat``, a program
    # that watched twice into one file, or replaced itself by ``exec``): each ``start`` line
    # begins one; compiles and hits are summed over them (a ``hits`` line counts from its own
    # recording's start, added to the totals of those before it), and a notice says so.
    recordings: int = 0  # ``start`` lines read
    hits_before: dict[Key, int] = field(default_factory=dict)  # the earlier recordings' hits
    # ``jitlab watch --scripts``: per (function key, card index), the script of the compile
    # that made the card (a card rewritten later keeps the newest).
    scripts: dict[tuple[Key, int], RecordedScript] = field(default_factory=dict)
    ended: bool = False
    # ``notice`` lines, (notice, t) in order: "listeners_removed" (the program cleared
    # jitlab's JAX listeners: compiles before t may be missing from the counts).
    notices: list[tuple[str, float | None]] = field(default_factory=list)  # the first few
    notice_counts: dict[str, int] = field(default_factory=dict)  # every one, by notice
    notice_details: dict[str, str] = field(default_factory=dict)  # the last detail, by notice
    # ``diagnosis`` lines (format 1.2), in order: recompile-limit, … (jitlab/records/diagnoses.py)
    diagnoses: list[Diagnosis] = field(default_factory=list)
    partial_line: bool = False  # the file ended mid-line (the program was killed)
    bad_lines: int = 0  # complete lines skipped as unreadable
    long_lines: int = 0  # of which: longer than MAX_LINE_BYTES (read no further than that)
    # Inside a line too long to read: the bytes up to its end are skipped (a reader that
    # resumes at the offset returned goes on skipping).
    skipping_line: bool = False
    # The language of a face that shows the strings raw (the recording window): each string
    # read is made visible and a long one-line string bounded (see
    # jitlab.records.text.visible_strings), so keys and counts are of the strings so made.
    # None: every string as the file holds it.
    shown: str | None = None

    @property
    def process(self) -> ProcessInfo | None:
        """Which process of a multi-process job wrote this; None for a single process."""
        if self.process_line is not None:
            return self.process_line
        start = self.start
        if start is None or start.process is None:
            return None
        return ProcessInfo(start.process, start.processes, start.host)

    def every_diagnosis(self) -> list[Diagnosis]:
        """What every face lists: the recorded diagnoses, then ``call-site-cost`` (computed
        from the call lines, never written: :mod:`jitlab.records.site_costs`); the problems
        first, then those shown for information (:func:`~jitlab.records.diagnoses.in_order`)."""
        return in_order([*self.diagnoses, *site_cost_diagnoses(self.calls, self.diagnoses)])

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
        """File one parsed line; False (and nothing filed) when it is not a valid line.

        Raises :class:`NewerFormat` at a ``start`` line of a format this jitlab cannot read."""
        if not is_object(obj):
            return False
        kind = obj.get("type")
        if kind == "call":
            call = RecordedCall.from_json(obj)
            if call is None:
                return False
            self.calls.append(call)
        elif kind == "hits":
            hits = RecordedHits.from_json(obj)
            if hits is None:
                return False
            self.hits[hits.key] = self.hits_before.get(hits.key, 0) + hits.hits
        elif kind == "start":
            start = RecordingStart.from_json(obj)
            if start is None:
                return False
            if not start.readable:
                raise NewerFormat(start.format)
            self.recordings += 1
            if self.recordings > 1:  # another recording after the first: summed, and said
                self.hits_before = dict(self.hits)
                self.ended = False
                self.notice_counts[JOINED] = self.recordings - 1
                if self.recordings == 2:
                    self.notices.append((JOINED, None))
                return True
            self.start = start  # the first recording's is the file's header
        elif kind == "process":
            info = ProcessInfo.from_json(obj)
            if info is None:
                return False
            self.process_line = info
        elif kind == "script":
            script = RecordedScript.from_json(obj)
            if script is None:
                return False
            self.scripts[(script.key, script.card)] = script
        elif kind == "end":
            self.ended = True  # any end line ends the recording
        elif kind == "notice":
            notice = RecordedNotice.from_json(obj)
            if notice is None:
                return False
            self.notice_counts[notice.notice] = self.notice_counts.get(notice.notice, 0) + notice.n
            if notice.detail:
                self.notice_details[notice.notice] = notice.detail
            if len(self.notices) < _NOTICES_KEPT:  # bounded: a program clearing in a loop
                self.notices.append((notice.notice, notice.t))
        elif kind == "diagnosis":
            diagnosis = Diagnosis.from_json(obj)
            if diagnosis is None:
                return False
            if len(self.diagnoses) < _NOTICES_KEPT:  # at most one per function and id
                self.diagnoses.append(diagnosis)
        return True  # other types: from a newer jitlab, ignored


class NewerFormat(OSError):
    """A recording written by a newer jitlab, in a format whose major version this one
    cannot read (``version``: the file's). Refused at its ``start`` line, in one line."""

    def __init__(self, version: str) -> None:
        self.version = version
        super().__init__(errno.EINVAL, newer_format_text(version, "en"))


def newer_format_text(version: str, lang: str) -> str:
    """The line that refuses a recording of a newer format, in ``lang``."""
    return say("recording.newer_format", lang, version=version[:20], major=FORMAT_MAJOR)


@contextmanager
def paused_collector() -> Generator[None, None, None]:
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
# The notice a reader adds itself where a file holds several recordings (see Recording).
JOINED = "recordings_joined"
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
    hits, hits_line, before = recording.hits, _HITS_LINE.fullmatch, recording.hits_before
    for raw in complete.split(b"\n"):
        if len(raw) > MAX_LINE_BYTES:  # whole in this piece, yet too long: not parsed
            recording.bad_lines += 1
            recording.long_lines += 1
            continue
        # Most lines of a long recording are ``hits`` lines as jitlab writes them: only the
        # count is kept, read without building anything (any other line: parsed).
        match = hits_line(raw)
        if match is not None and (recording.shown is None or _plain_ascii(raw)):
            key = _HIT_KEYS.get(match[1]) or _hit_key(match[1])
            if key is not None:
                hits[key] = before.get(key, 0) + int(match[2]) if before else int(match[2])
                continue
        if raw.strip() and not recording.add_line(_parse(raw, recording.shown)):
            recording.bad_lines += 1
        before = recording.hits_before  # a new recording's start line may have begun


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
    key = (intern(fields["function"]), fields["defined_at"])
    if len(_HIT_KEYS) >= KEPT_AT_MOST:
        _HIT_KEYS.clear()
    _HIT_KEYS[text] = key
    return key


_UNREADABLE = object()
# One decoder for every line (json.loads with an option builds a new one per call).
# Bare NaN/Infinity (older writers) read as null, the rule jitlab writes by.
_decode = json.JSONDecoder(parse_constant=lambda _: None).decode


def _parse(raw: bytes, shown: str | None = None) -> Any:
    """A line parsed (``shown``: its strings made visible, elisions said in that language),
    or :data:`_UNREADABLE`."""
    try:  # "utf-8-sig": a byte-order mark (a file saved on Windows) is no part of the line
        text = raw.decode("utf-8-sig")
        value = _decode(text)
    except (ValueError, RecursionError):  # not UTF-8, not JSON, nested past the limit
        return _UNREADABLE
    return visible_strings(value, shown) if shown is not None and may_hide(text) else value


def _plain_ascii(raw: bytes) -> bool:
    """A hits line a face showing strings raw may take the quick path with: nothing in it
    to make visible (no escape, no control character, DEL is ASCII too; nothing to elide)."""
    return raw.isascii() and b"\x7f" not in raw and len(raw) <= FIELD_LIMIT
