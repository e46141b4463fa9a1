"""The one check every command that writes a file makes first (see jitlab.records.outputs).

Refused in one line, exit status 2, before anything runs: a folder, a user's file that is not
a jitlab file of the same kind, an input of the same command, a place that cannot be written.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from jitlab.cli._usage import fail, language, say
from jitlab.records.outputs import is_stream, refusal


def checked_output(
    command: str,
    text: str,
    kind: str,
    inputs: Iterable[str | Path] = (),
    *,
    make_folders: bool = False,
) -> Path:
    """``text`` as an absolute path that ``command`` may write (resolved against the folder
    it started in: a program that changes folder does not move it); ``make_folders``: its
    missing folders are made (watch: the recording's place is ready before the program runs)."""
    why = refusal(text, kind, inputs, language())
    path = Path(os.path.abspath(text))
    if why is not None:
        fail(say("output.refused", command=command, why=why))
    try:
        if path.exists():
            if not os.access(path, os.W_OK):
                raise PermissionError(13, "Permission denied")
        else:  # create nothing yet: a process of a job may write NAME.p1.jsonl instead
            if make_folders:
                path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryFile(dir=path.parent):
                pass
    except OSError as exc:
        fail(say("output.cannot_write", command=command, path=text, error=exc.strerror or exc))
    return path


def write_output(command: str, out: Path | None, text: str, data: bytes) -> bool:
    """``data`` written where :func:`checked_output` allowed (``out``; None: stdout, as ``-``
    says), a failure refused in one line (exit status 2). True when a file was written, so
    the command says so; False for stdout or a stream (a device, a pipe: the data is the
    output, nothing more is printed)."""
    if out is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return False
    try:
        if is_stream(out):  # /dev/stdout, a pipe: written as it comes
            with out.open("wb") as stream:
                stream.write(data)
            return False
        out.write_bytes(data)
    except OSError as exc:
        fail(say("output.cannot_write", command=command, path=text, error=exc.strerror or exc))
    return True


# ``--json``: the stream the JSON lines go to while the command runs with ``sys.stdout`` sent
# to stderr (see :func:`machine_output`); None: sys.stdout.
_MACHINE: list[TextIO | None] = [None]


@contextmanager
def machine_output(on: bool = True) -> Iterator[None]:
    """``--json`` output stays pure JSON lines whatever else prints to ``sys.stdout`` while
    the command runs (JAX 0.11–0.12 print a debug line from ``pjit.py`` on an uneven-sharding
    error; a snippet may print outside a probed call): that text goes to stderr, the JSON to
    the real stdout through :func:`print_json`. Off: nothing changes."""
    if not on or _MACHINE[0] is not None:
        yield
        return
    real = sys.stdout
    _MACHINE[0], sys.stdout = real, sys.stderr
    try:
        yield
    finally:
        if sys.stdout is sys.stderr:  # (a program may have replaced it meanwhile: kept)
            sys.stdout = real
        _MACHINE[0] = None


def print_json(obj: Any) -> None:
    """``--json``: ``obj`` as one line of strict JSON on stdout, always UTF-8 whatever the
    console's encoding (never degraded: it is data). A string holding a byte that was not
    UTF-8 (a file name's, kept by Python as a lone surrogate) is escaped as a recording
    escapes it (``"\\udcff"``), never written raw; so is every control and format
    character (:func:`jitlab.records.text.json_escaped`)."""
    from jitlab.records.calls import dumps_strict
    from jitlab.records.text import json_escaped

    # A recording's strings may hold terminal commands (C1's CSI, bidi overrides): escaped,
    # as JSON escapes the rest, and a lone surrogate with them.
    data = json_escaped(dumps_strict(obj)).encode("utf-8")
    out = _MACHINE[0] or sys.stdout
    out.flush()
    buffer = getattr(out, "buffer", None)
    if buffer is None:  # a stream of text only (a test's StringIO): ASCII then
        out.write(json.dumps(json.loads(data), ensure_ascii=True) + "\n")
        out.flush()
        return
    buffer.write(data + b"\n")
    buffer.flush()
