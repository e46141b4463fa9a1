"""``jitlab open FILE…``: a recording made by ``jitlab watch``, in the desktop app; several
files (``run.p*.jsonl``) are the processes of one job, side by side."""

from __future__ import annotations

import argparse
from typing import Any

from jitlab.cli._usage import fail, not_regular, say


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "open",
        help="open a recording made by `jitlab watch` in the desktop app",
        description="Open a JSON-lines recording: per function, the chart, kitchen, log, "
        "signature ledger and shape histogram. Follows the file while it grows. Several "
        "files (e.g. run.p*.jsonl of a jax.distributed job) open in one window: one lane "
        "per process and function, and where the processes diverged. Recorded with "
        "`jitlab watch --scripts`, a kitchen card opens the script of its compile.",
    )
    parser.add_argument(
        "recording",
        metavar="FILE",
        nargs="+",
        help="a recording; or each process's recording of one multi-process job",
    )
    parser.add_argument(
        "--no-follow", action="store_true", help="read the file once; do not follow it"
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from jitlab.recordings.reader import NotARegularFile, check_regular

    paths = [Path(name) for name in args.recording]
    for path in paths:
        if path.is_dir():
            fail(say("usage.folder_not_recording", command="open", path=path))
        if not path.exists() and args.no_follow:
            fail(say("usage.no_recording", command="open", path=path))
        try:  # a FIFO would hang the window, /dev/zero be read forever
            check_regular(path)
        except NotARegularFile as exc:
            fail(not_regular("open", path, exc))
        except OSError:
            pass  # missing (waited for) or unreadable: the window says so
    if len({p.resolve() for p in paths}) != len(paths):
        fail(say("usage.named_twice", command="open"))
    from jitlab.cli._qt import qt_or_exit

    with qt_or_exit():  # a bare server: one line naming the missing library
        from jitlab.gui.app import open_recording

    # A missing file is waited for (a program about to write it); it never imports JAX.
    names = [str(p) for p in paths]
    return open_recording(
        names[0] if len(names) == 1 else names, follow=not args.no_follow, language=args.lang
    )
