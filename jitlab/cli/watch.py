"""``jitlab watch -- python SCRIPT ARGS``: run a program unchanged, record its compiles."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from pathlib import Path
from typing import Any

from jitlab.cli._usage import fail, language, say
from jitlab.cli.program import parse_program, reexec, run_program


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "watch",
        help="record a Python program's compiles: jitlab watch -- python train.py ARGS",
        description="Run a Python program unchanged, record every compile and recompile of "
        "its jitted functions to a JSON-lines file, and print a summary per function. "
        "In each process of a jax.distributed job it writes one file per process, "
        "run.p0.jsonl, run.p1.jsonl, … for --out run.jsonl (see `jitlab summary`). "
        "The program runs as `python ARGS` would run it: a script, a folder or zip with "
        "__main__.py, -m MODULE or -c COMMAND, with python's options (-X dev, -W error, -O, "
        "-u, -B, -I, …; not -i, -S or -x). A child forked by the program (multiprocessing's "
        "fork) writes its own NAME.pid<PID>.jsonl; children started by spawn or forkserver "
        "are not watched. --out never writes over a file that is not a recording.",
    )
    parser.add_argument(
        "--out",
        default="jitlab-watch.jsonl",
        help="recording file (default: %(default)s); process i of a multi-process job "
        "writes NAME.p{i}.jsonl",
    )
    parser.add_argument(
        "--include-internal",
        action="store_true",
        help="also record kernels JAX compiles for itself (e.g. jnp.ones(n))",
    )
    parser.add_argument(
        "--scripts",
        action="store_true",
        help="after each compile of a function jitted in the program, also record the "
        "figures of the program XLA made (equations, HLO instructions, flops, bytes "
        "accessed, argument/output/temp bytes) and the function's source; `jitlab open` "
        "shows them when a kitchen card is clicked. Each costs about one more compile of "
        "that signature, never counted as a compile",
    )
    parser.add_argument(
        "--script-texts",
        action="store_true",
        help="with --scripts, keep the jaxpr, StableHLO and optimized HLO texts as well "
        "(implies --scripts; large programs make large recordings)",
    )
    parser.add_argument(
        "--warn-after",
        metavar="N",
        default=None,
        help="the moment one function passes N compiles, say so once on stderr with the "
        "argument that keeps changing and the likely fix (recompile-limit; default: "
        "$JITLAB_WARN_AFTER, else 8; 0: never)",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="the end table's reasons in full: a pytree that changed structure shows both "
        "sub-trees whole (shortened otherwise; the recording always keeps them whole)",
    )
    parser.add_argument("program", nargs=argparse.REMAINDER, metavar="-- python SCRIPT ARGS")
    return parser


def run(args: argparse.Namespace) -> int:
    from jitlab.cli._output import checked_output
    from jitlab.records.diagnoses import resolve_warn_after
    from jitlab.records.outputs import RECORDING

    program = parse_program(list(args.program))
    try:  # a bad --warn-after or JITLAB_WARN_AFTER: one line, before the program runs
        warn_after = resolve_warn_after(args.warn_after, os.environ, language())
    except ValueError as exc:
        fail(f"watch: {exc}")
    # Resolved now, against the folder the program starts in (it may chdir before the end).
    scripts_read = [program.target] if program.file else []
    out = checked_output("watch", args.out, RECORDING, scripts_read, make_folders=True)
    if program.options:
        reexec(args, program)  # never returns

    import jitlab.recordings.reader  # noqa: F401  (imported before sys.path becomes the program's)
    from jitlab.probe import monitor
    from jitlab.watching.recorder import Recorder

    if getattr(args, "lang", None):  # what jitlab says from inside the program: as asked
        monitor.set_user_language(language())

    scripts = "texts" if args.script_texts else "figures" if args.scripts else False
    me = os.getpid()
    sys.argv = list(program.argv)  # the recording's start line names the program's argv
    saved_path = sys.path[:]
    recorder = Recorder(
        out, include_internal=args.include_internal, scripts=scripts, warn_after=warn_after
    )
    try:  # a recording that cannot even start (--out /dev/full): refused before the program
        recorder.start()
    except OSError as exc:
        fail(say("output.cannot_write", command="watch", path=args.out, error=_why(exc)))
    try:
        restore = _stop_on_signals(recorder)
        try:
            status, interrupted = run_program(program)
        finally:
            restore()
            sys.path[:] = saved_path  # jitlab's own imports for the summary, as before
    finally:
        recorder.stop()
    if os.getpid() != me:  # a forked child left the program: its own file, no summary
        return status
    _print_summaries(args.out, out, recorder, full=args.verbose)
    if interrupted:  # as plain Python does after an unhandled Ctrl-C: die of SIGINT
        _die_of(signal.SIGINT)
    return status


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


# -- the end: signals, summaries --------------------------------------------------------------
def _die_of(signum: int) -> None:
    """End with ``signum``'s status, as the plain program would (the shell sees -N)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _stop_on_signals(recorder: Any) -> Any:
    """SIGTERM / SIGHUP: write the last ``hits`` and the ``end`` line, then die of the signal."""
    me = os.getpid()
    saved: dict[int, Any] = {}

    def on_signal(signum: int, frame: Any) -> None:
        if os.getpid() == me or recorder.recording:
            with contextlib.suppress(BaseException):
                recorder.stop(signal=signal.Signals(signum).name)
        _die_of(signum)

    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        with contextlib.suppress(ValueError, OSError):
            if signal.getsignal(signum) == signal.SIG_DFL:  # an ignored signal stays ignored
                saved[signum] = signal.signal(signum, on_signal)

    def restore() -> None:
        for signum, handler in saved.items():
            with contextlib.suppress(ValueError, OSError):
                if signal.getsignal(signum) is on_signal:  # the program's own choice stands
                    signal.signal(signum, handler)

    return restore


def _error_stream() -> Any:
    """The program's stderr, or (when it closed it) a fresh one on the same descriptor."""
    err = sys.stderr
    if err is not None and not getattr(err, "closed", False):
        return err
    try:
        return open(os.dup(2), "w", encoding="utf-8", errors="backslashreplace")
    except OSError:
        return None


def _print_summaries(shown: str, out: Path, recorder: Any, *, full: bool = False) -> None:
    from jitlab.records import messages
    from jitlab.watching.files import child_recordings

    err = _error_stream()
    if err is None:
        return
    written = recorder.file_path or out
    name = str(written) if written != out else shown
    try:
        if written.is_file():
            print_watch_summary(name, file=err, read_from=str(written), full=full)
        elif not recorder.output.stream:  # the program deleted it (or its folder)
            print(say("watch.gone", name=name, n=recorder.output.calls_written), file=err)
        else:  # a device or a pipe: nothing to read back
            print(say("watch.stream", name=name, n=len(recorder.calls)), file=err)
        children = child_recordings(recorder.output)
        if recorder.forks and not written.is_file():
            print(say("watch.forks_not_recorded", n=recorder.forks), file=err)
        if children:
            names = messages.listing(children, language())
            print(say("watch.children", names=names), file=err)
        if "multiprocessing.popen_spawn_posix" in sys.modules or (
            "multiprocessing.popen_forkserver" in sys.modules
        ):
            print(say("watch.not_watched"), file=err)
        err.flush()
    except Exception as exc:  # the program's status stands; say what went wrong, briefly
        with contextlib.suppress(Exception):
            print(say("watch.no_summary", error=f"{type(exc).__name__}: {exc}"), file=err)


def print_watch_summary(
    path: str, file: Any = None, read_from: str | None = None, *, full: bool = False
) -> None:
    """The table on ``file`` (default stderr) for the recording shown as ``path`` (and read
    from ``read_from`` when that differs, e.g. its absolute name); ``full`` (``--verbose``):
    each reason in full, a pytree structure change with both sub-trees whole."""
    from rich.markup import escape
    from rich.table import Table

    from jitlab.cli._tables import console_for, fitted
    from jitlab.cli._usage import language, say
    from jitlab.cli.summary import print_diagnoses
    from jitlab.recordings.reader import read_recording
    from jitlab.recordings.summary import summarize
    from jitlab.records import messages

    recording, _ = read_recording(read_from or path)
    stream = sys.stderr if file is None else file
    console = console_for(stream)  # the terminal's width, TERM=dumb included
    table = Table(title=escape(say("watch.title", path=path)))
    for column, justify in (
        ("col.function", "left"),
        ("col.compiles", "right"),
        ("col.recompiles", "right"),
        ("col.hits", "right"),
        ("col.ms_compiling", "right"),
        ("col.signatures", "right"),
        ("col.what_differed", "left"),
    ):
        last = column == "col.what_differed"
        table.add_column(
            say(column),
            justify=justify,  # type: ignore[arg-type]
            overflow="fold",
            no_wrap=not last and column != "col.function",
            ratio=1 if last else None,
        )
    for s in summarize(recording):
        where = f"\n[dim]{escape(s.defined_at)}[/dim]" if s.defined_at else ""
        if s.internal:
            where = f"\n[dim]{escape(say('watch.eager_op'))}[/dim]"
        words = s.change_words(language(), full=full).most_common(4)
        differed = "\n".join(escape(f"{change} ×{n}") for change, n in words)
        table.add_row(
            f"{escape(s.function)}{where}",
            str(s.executables),  # the recording window's "compiles": the same count
            str(s.recompiles),
            "-" if s.hits is None else str(s.hits),
            s.ms_text,
            str(len(s.signatures)) if s.signatures else "-",
            differed,
        )
    console.print(fitted(table, console))  # stacked where a function would not show
    rest = ""
    if recording.scripts:
        made = sum(1 for s in recording.scripts.values() if s.script is not None)
        rest += say("sep") + say("n.scripts", n=made)
    if recording.bad_lines:
        rest += say("sep.semi") + messages.skipped_lines(recording.bad_lines, language())
    lines = say("n.compile_lines", n=len(recording.calls))
    console.print(escape(say("watch.recording", path=path, lines=lines, rest=rest)))
    noticed = messages.notice_texts(
        recording.notices, language(), recording.notice_counts, recording.notice_details
    )
    for notice in noticed:
        console.print(f"[yellow]{escape(say('watch.notice', notice=notice))}[/yellow]")
    print_diagnoses(console, [(0, recording)], language())
