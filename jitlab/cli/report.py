"""``jitlab report run.jsonl -o report.html``: one self-contained HTML page to share."""

from __future__ import annotations

import argparse
from typing import Any

from jitlab.cli._usage import language, read_recording_or_fail, say


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "report",
        help="write one HTML page about a recording, to share: jitlab report run.jsonl -o r.html",
        description="One self-contained HTML file (no script, no network) about recordings "
        "of `jitlab watch`: the run's header, then per function its compile timeline, "
        "signature ledger, reasons, time lost compiling and a bucket suggestion; for the "
        "per-process recordings of one job (run.p0.jsonl run.p1.jsonl …), where the "
        "processes diverged. Prints well. Exits 0, or 2 for bad input.",
    )
    parser.add_argument(
        "recordings",
        nargs="+",
        metavar="RECORDING",
        help="a recording of `jitlab watch`, or one per process of a job",
    )
    parser.add_argument(
        "-o",
        "--out",
        required=True,
        metavar="FILE",
        help="where to write the page (`-` for stdout)",
    )
    parser.add_argument(
        "--include-internal",
        action="store_true",
        help="also show kernels JAX compiled for itself (eager ops)",
    )
    return parser


def _read(path_text: str) -> Any:
    return read_recording_or_fail("report", path_text)


def run(args: argparse.Namespace) -> int:
    import datetime

    from jitlab._version import __version__
    from jitlab.cli._output import checked_output, write_output
    from jitlab.records.outputs import REPORT
    from jitlab.report.page import render_report

    # Never over a user's file or one of the recordings it reads (one line, exit 2).
    out = None if args.out == "-" else checked_output("report", args.out, REPORT, args.recordings)
    recordings = [(path, _read(path)) for path in args.recordings]
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    page = render_report(
        recordings,
        include_internal=args.include_internal,
        generated=now,
        jitlab_version=__version__,
        lang=language(),
    )
    # The page is UTF-8 (its <meta charset>); a lone surrogate from a recording (a non-UTF-8
    # byte in the program's argv) is written escaped, never a UnicodeEncodeError.
    data = page.encode("utf-8", errors="backslashreplace")
    if not write_output("report", out, args.out, data):  # stdout, /dev/stdout | …: nothing more
        return 0
    size = len(data)
    print(say("report.wrote", out=args.out, size=f"{size / 1024:.0f}"))
    return 0
