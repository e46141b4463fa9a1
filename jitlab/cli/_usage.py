"""Usage errors shared by every command: one line on stderr, exit status 2, in the CLI's
language (``jitlab --lang zh …``)."""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from jitlab.records import messages

USAGE_ERROR = 2

# The command's language: one command per process, set by main() from --lang (before
# parsing from the raw arguments, so that argparse's own errors are in it too).
_state = {"language": "en"}


def set_language(lang: str | None) -> None:
    _state["language"] = messages.language_of(lang)


def language() -> str:
    """The language the command speaks: ``en`` (the default) or ``zh``."""
    return _state["language"]


def language_in(argv: Sequence[str]) -> str:
    """The ``--lang`` given in raw arguments (up to a ``--``), else English."""
    found = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(argv):
            found = argv[i + 1]
        elif arg.startswith("--lang="):
            found = arg.partition("=")[2]
    return messages.language_of(found)


def say(key: str, /, **fields: Any) -> str:
    """A catalogue entry (:mod:`jitlab.records.messages`) in the command's language."""
    return messages.say(key, language(), **fields)


class UsageParser(argparse.ArgumentParser):
    """argparse, but errors are one line on stderr and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        near = _near_command(message)
        if near is not None:  # `jitlab wach`: the nearest command, not the list of all
            fail(say("usage.command_near", command=near[0], near=near[1]))
        if language() != "en":
            message = _argparse_words(message)
        fail(say("usage.see_help", message=message, prog=self.prog))


# argparse's own English errors (as its templates word them) → our catalogue's words.
_ARGPARSE = (
    (r"unrecognized arguments: (?P<args>.*)", "argparse.unrecognized"),
    (r"invalid choice: (?P<value>.*) \(choose from (?P<choices>.*)\)", "argparse.invalid_choice"),
    (r"the following arguments are required: (?P<args>.*)", "argparse.required"),
    (r"expected one argument", "argparse.one_argument"),
    (r"invalid (?P<type>\S+) value: (?P<value>.*)", "argparse.invalid_value"),
    (r"ambiguous option: (?P<option>\S+) could match (?P<matches>.*)", "argparse.ambiguous"),
)


def _near_command(message: str) -> tuple[str, str] | None:
    """(what was typed, the nearest command) when ``message`` refuses a mistyped command."""
    found = re.fullmatch(
        r"argument COMMAND: invalid choice: (?P<value>.*?) \(choose from (?P<choices>.*)\)",
        message,
        re.DOTALL,
    )
    if found is None:
        return None
    value = found["value"].strip("'\"")
    choices = [choice.strip(" '\"") for choice in found["choices"].split(",")]
    near = difflib.get_close_matches(value, choices, n=1)
    return (repr(value), near[0]) if near else None


def _argparse_words(message: str) -> str:
    about = re.fullmatch(r"argument (?P<name>.+?): (?P<message>.*)", message, re.DOTALL)
    if about is not None:
        inner = _argparse_words(about["message"])
        return say("argparse.argument", name=about["name"], message=inner)
    for pattern, key in _ARGPARSE:
        found = re.fullmatch(pattern, message, re.DOTALL)
        if found is not None:
            return say(key, **found.groupdict())
    return message  # words argparse has that we do not know: kept as it said them


def fail(message: str) -> NoReturn:
    print(say("usage.error", message=message), file=sys.stderr)
    raise SystemExit(USAGE_ERROR)


def not_regular(command: str, path: Path, exc: Any) -> str:
    """The one line that refuses a FIFO, a device or a socket given as a recording."""
    return say("usage.not_regular", command=command, path=path, what=say(f"file.{exc.kind}"))


def read_recording_or_fail(command: str, path_text: str) -> Any:
    """A recording of `jitlab watch`, read whole; anything else is a usage error naming it.

    Used by the commands that read recordings (``diff``, ``summary``, ``report``)."""
    from jitlab.recordings.reader import (
        NewerFormat,
        NotARegularFile,
        newer_format_text,
        read_recording,
    )

    path = Path(path_text)
    if path.is_dir():
        fail(say("usage.folder_not_recording", command=command, path=path))
    try:
        recording, _ = read_recording(path)
    except NotARegularFile as exc:  # a FIFO would wait for a writer, /dev/zero never end
        fail(not_regular(command, path, exc))
    except NewerFormat as exc:  # in the command's language, not the exception's English
        error = newer_format_text(exc.version, language())
        fail(say("usage.cannot_read", command=command, path=path, error=error))
    except OSError as exc:
        fail(say("usage.cannot_read", command=command, path=path, error=exc.strerror or exc))
    if recording.start is None and not recording.calls and not recording.hits:
        fail(say("usage.not_recording", command=command, path=path))
    return recording
