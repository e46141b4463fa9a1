"""Where jitlab may write: never over a user's file, never over its own input.

One rule for every command that writes a file (``jitlab watch --out``, ``jitlab report -o``)
and for the files a recording renames itself to (``run.p1.jsonl``) or a forked child opens:

* a path that does not exist, or an empty regular file, may be written;
* an existing regular file only when it is a jitlab file *of the same kind* (a recording
  for ``watch``, a report page for ``report``) and not one of the command's inputs;
* a device or a pipe (``/dev/null``, ``/dev/stdout | cat``) is written as a stream: no
  truncation, no seek, no rename.

JAX-free: the reading commands use it too.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from jitlab.records.messages import LANGUAGES, say

RECORDING = "recording"
REPORT = "report"

_SNIFF_BYTES = 4096
# The first bytes of what jitlab writes: a recording's ``start`` line (dumps_strict's
# default separators) and the report page's head (jitlab/report/page.py).
_RECORDING_HEAD = b'{"type": "start"'
_REPORT_HEAD = b"<!DOCTYPE html>"
# A report page says what made it in its head, in no language: a page in any language is
# jitlab's. Pages from before the mark are known by their title, in either language.
REPORT_MARK = '<meta name="generator" content="jitlab report">'


def _head(path: Path) -> bytes | None:
    try:
        with path.open("rb") as f:
            return f.read(_SNIFF_BYTES)
    except OSError:
        return None


def is_kind(path: str | Path, kind: str) -> bool:
    """Whether the regular file ``path`` is a jitlab file of ``kind`` (its first bytes say)."""
    head = _head(Path(path))
    if head is None:
        return False
    if kind == RECORDING:
        return head.startswith(_RECORDING_HEAD)
    if kind == REPORT:
        return head.lstrip().startswith(_REPORT_HEAD) and (
            REPORT_MARK.encode() in head
            or any(f"<title>{say('report.title', lang)}".encode() in head for lang in LANGUAGES)
        )
    raise ValueError(f"unknown kind {kind!r}")


def is_stream(path: str | Path) -> bool:
    """A device, pipe or socket (after symlinks): written as it comes, never truncated."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _held_by_a_writer(path: Path) -> bool:
    """Another jitlab process is writing this recording (it holds the lock a recorder takes,
    see jitlab.watching.recorder._claim): nothing is written over it, a provisional file is used."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no locks to see
        return False
    try:
        with path.open("rb") as f:
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
    except OSError:
        return False
    return False


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def refusal(
    path: str | Path, kind: str, inputs: Iterable[str | Path] = (), lang: str = "en"
) -> str | None:
    """Why ``path`` must not be written as a file of ``kind``, or None when it may be.

    ``inputs``: the files the same command reads (never written over, whatever they are);
    ``lang``: the language of the reason (``en`` or ``zh``).
    """
    path = Path(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return say("output.cannot_use", lang, path=path, error=exc.strerror or exc)
    if stat.S_ISDIR(info.st_mode):
        return say("output.folder", lang, path=path)
    for source in inputs:
        if _same_file(path, Path(source)):
            return say("output.input", lang, path=path)
    if not stat.S_ISREG(info.st_mode):
        return None  # a device or a pipe: written as a stream
    if info.st_size == 0 or is_kind(path, kind):
        return None
    if kind == RECORDING and _held_by_a_writer(path):
        return None
    what = say("output.recording" if kind == RECORDING else "output.report", lang)
    return say("output.not_ours", lang, path=path, what=what)
