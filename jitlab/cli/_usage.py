"""Usage errors shared by every command: one line on stderr, exit status 2."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, NoReturn

USAGE_ERROR = 2


class UsageParser(argparse.ArgumentParser):
    """argparse, but errors are one line on stderr and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        fail(f"{message} (see `{self.prog} --help`)")


def fail(message: str) -> NoReturn:
    print(f"jitlab: error: {message}", file=sys.stderr)
    raise SystemExit(USAGE_ERROR)


def read_recording_or_fail(command: str, path_text: str) -> Any:
    """A recording of `jitlab watch`, read whole; anything else is a usage error naming it.

    Used by the commands that read recordings (``diff``, ``summary``, ``report``)."""
    from jitlab.core.recording import read_recording

    path = Path(path_text)
    if path.is_dir():
        fail(f"{command}: {path} is a folder, not a recording")
    try:
        recording, _ = read_recording(path)
    except OSError as exc:
        fail(f"{command}: cannot read {path}: {exc.strerror or exc}")
    if recording.start is None and not recording.calls and not recording.hits:
        fail(f"{command}: {path} is not a recording of `jitlab watch` (no line it could read)")
    return recording
