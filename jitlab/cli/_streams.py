"""What every command does with its own standard streams (one place: :func:`jitlab.cli.main`).

- A character the stream cannot encode (an ASCII console: ``PYTHONIOENCODING=ascii``) is
  written as a plain stand-in — ``·`` as ``.``, ``→`` as ``->``, others as ``?``, a byte of a
  non-UTF-8 file name as ``\\xff`` — never a ``UnicodeEncodeError``.
- A reader that left (``jitlab diff a b | head -1``) ends the command quietly with status 141,
  what a shell reports for a writer killed by SIGPIPE (``cat``, ``yes``): never a traceback,
  never a status the command gives for its own reasons (diff's 1, "compiles more").

``jitlab watch`` hands the streams back before the program runs: the program's output is
its own, as under plain python.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

# 128 + the signal's number: what the shell shows for a writer SIGPIPE killed.
READER_LEFT = 128 + int(getattr(signal, "SIGPIPE", 13))
HANDLER = "jitlab.degrade"

_STAND_INS = {
    "·": ".",
    "→": "->",
    "←": "<-",
    "…": "...",
    "×": "x",
    "—": "-",
    "–": "-",
    "−": "-",
    "±": "+-",
    "≤": "<=",
    "≥": ">=",
    "µ": "u",
    "•": "*",
    "“": '"',
    "”": '"',
    "‘": "'",
    "’": "'",
    "：": ":",
    "，": ",",
    "；": ";",
    "（": "(",
    "）": ")",
    "✓": "v",
    "✗": "x",
}


def _degrade(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start : error.end]
    return "".join(_stand_in(c) for c in text), error.end


def _stand_in(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a file name that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return _STAND_INS.get(char, "?")


codecs.register_error(HANDLER, _degrade)


def degrade_unencodable() -> Callable[[], None]:
    """stdout and stderr write a stand-in for what their encoding cannot hold (when they would
    raise: an encoding that is not UTF, or strict errors); returns what puts them back."""
    saved: list[tuple[Any, str]] = []
    for stream in (sys.stdout, sys.stderr):
        errors = getattr(stream, "errors", None)
        reconfigure = getattr(stream, "reconfigure", None)
        if errors is None or reconfigure is None or errors == HANDLER:
            continue
        if errors == "strict" or not _is_utf(getattr(stream, "encoding", None)):
            with contextlib.suppress(Exception):
                reconfigure(errors=HANDLER)
                saved.append((stream, errors))

    def restore() -> None:
        while saved:
            stream, errors = saved.pop()
            with contextlib.suppress(Exception):
                stream.reconfigure(errors=errors)

    return restore


def _is_utf(encoding: str | None) -> bool:
    try:
        return codecs.lookup(encoding or "ascii").name.startswith("utf")
    except LookupError:
        return False


def is_reader_gone(exc: BaseException) -> bool:
    """A broken pipe, or an exit made on one (rich's consoles ``sys.exit(1)`` after
    pointing stdout at the null device, as Python's documentation shows)."""
    return isinstance(exc, BrokenPipeError) or (
        isinstance(exc, SystemExit) and isinstance(exc.__context__, BrokenPipeError)
    )


def reader_left() -> int:
    """The reader of stdout left: nothing more is written (what is still buffered goes to
    the null device, so the interpreter's last flush cannot fail) and the status is 141."""
    with contextlib.suppress(Exception):
        fd = sys.stdout.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, fd)
        finally:
            os.close(devnull)
    return READER_LEFT


class WordsStream:
    """``jitlab watch``'s own stream for its words: a descriptor of its own on what stderr was
    when the command started (the terminal it runs on), which the program does not move
    when it moves its stderr. Unbuffered; each write first checks the descriptor is still
    the one opened (a program that ran ``os.closerange(3, …)`` and opened a file of its own
    on that number never gets jitlab's words): otherwise it is ``closed``."""

    def __init__(self, fd: int, encoding: str) -> None:
        st = os.fstat(fd)
        self.fd = fd
        self._identity = (st.st_dev, st.st_ino)
        self.encoding = encoding
        # an ASCII console gets stand-ins (as every command's streams): never an error
        self.errors = "backslashreplace" if _is_utf(encoding) else HANDLER

    @property
    def closed(self) -> bool:
        try:
            st = os.fstat(self.fd)
        except OSError:
            return True
        return (st.st_dev, st.st_ino) != self._identity

    def write(self, text: str) -> int:
        if self.closed:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        data = memoryview(text.encode(self.encoding, self.errors))
        while data:
            data = data[os.write(self.fd, data) :]
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return not self.closed and os.isatty(self.fd)

    def fileno(self) -> int:
        return self.fd

    def writable(self) -> bool:
        return True


def words_stream(fd: int | None = None) -> WordsStream | None:
    """A :class:`WordsStream` on a duplicate of descriptor 2 (or on ``fd``, one an image
    that exec'd this one handed over), in stderr's encoding; None when there is none."""
    err = sys.stderr
    encoding = getattr(err, "encoding", None) or "utf-8"
    try:
        if fd is not None:
            os.set_inheritable(fd, False)  # handed to this image only, not to the program's
        return WordsStream(os.dup(2) if fd is None else fd, encoding)
    except OSError:
        return None
