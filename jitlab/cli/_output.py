"""The one check every command that writes a file makes first (see jitlab.records.outputs).

Refused in one line, exit status 2, before anything runs: a folder, a user's file that is not
a jitlab file of the same kind, an input of the same command, a place that cannot be written.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

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
