"""``jitlab open FILE``: a recording made by ``jitlab watch``, in the desktop app."""

from __future__ import annotations

import argparse
from typing import Any

from jitlab.cli._usage import fail


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "open",
        help="open a recording made by `jitlab watch` in the desktop app",
        description="Open a JSON-lines recording: per function, the chart, kitchen, log, "
        "signature ledger and shape histogram. Follows the file while it grows.",
    )
    parser.add_argument("recording", metavar="FILE")
    parser.add_argument(
        "--no-follow", action="store_true", help="read the file once; do not follow it"
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    path = Path(args.recording)
    if path.is_dir():
        fail(f"open: {path} is a folder, not a recording")
    if not path.exists() and args.no_follow:
        fail(f"open: no such recording: {path}")
    from jitlab.gui.recording_window import open_recording

    # A missing file is waited for (a program about to write it); it never imports JAX.
    return open_recording(str(path), follow=not args.no_follow, language=args.lang)
