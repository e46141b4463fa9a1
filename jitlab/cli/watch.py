"""``jitlab watch -- python SCRIPT ARGS``: run a program unchanged, record its compiles."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from jitlab.cli._usage import fail


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "watch",
        help="record a Python program's compiles: jitlab watch -- python train.py ARGS",
        description="Run a Python program unchanged, record every compile and recompile of "
        "its jitted functions to a JSON-lines file, and print a summary per function. "
        "In each process of a jax.distributed job it writes one file per process, "
        "run.p0.jsonl, run.p1.jsonl, … for --out run.jsonl (see `jitlab summary`).",
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
    parser.add_argument("program", nargs=argparse.REMAINDER, metavar="-- python SCRIPT ARGS")
    return parser


def run(args: argparse.Namespace) -> int:
    import runpy
    import traceback
    from pathlib import Path

    program = list(args.program)
    if program and program[0] == "--":
        program = program[1:]
    if program and Path(program[0]).name.startswith("python"):
        program = program[1:]  # it runs in this interpreter, where the watch is
    if not program:
        fail("watch needs a program, e.g. `jitlab watch -- python train.py ARGS`")
    if program[0] == "-m":
        if len(program) < 2:
            fail("watch: -m needs a module name")
        target, argv = program[1], program[1:]
    elif program[0].startswith("-"):
        fail(f"watch runs a script or `-m module`; option {program[0]!r} is not supported")
    else:
        target, argv = program[0], program
        if not Path(target).is_file():
            fail(f"watch: no such script: {target}")

    out = Path(args.out)
    if out.is_dir():
        fail(f"watch: --out {out} is a folder; name a file, e.g. {out / 'run.jsonl'}")
    try:  # fail now, not after the user's program has run for an hour
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.exists():
            with out.open("a", encoding="utf-8"):
                pass
        else:  # create nothing: a process of a job may write NAME.p1.jsonl instead
            import tempfile

            with tempfile.TemporaryFile(dir=out.parent):
                pass
    except OSError as exc:
        fail(f"watch: cannot write the recording {out}: {exc.strerror or exc}")

    from jitlab.core.watch import watch

    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = argv
    if program[0] != "-m":
        sys.path.insert(0, str(Path(target).resolve().parent))
    status = 0
    scripts = "texts" if args.script_texts else "figures" if args.scripts else False
    with watch(args.out, include_internal=args.include_internal, scripts=scripts) as recorder:
        try:
            if program[0] == "-m":
                runpy.run_module(target, run_name="__main__", alter_sys=True)
            else:
                runpy.run_path(target, run_name="__main__")
        except SystemExit as exc:
            # As plain Python does: sys.exit("message") prints the message and exits 1.
            code = exc.code
            if code is None or isinstance(code, int):
                status = code or 0
            else:
                print(code, file=sys.stderr)
                status = 1
        except KeyboardInterrupt:
            status = 130
        except BaseException:
            traceback.print_exc()
            status = 1
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
    print_watch_summary(str(recorder.file_path or args.out))
    return status


def print_watch_summary(path: str) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from jitlab.cli._usage import language, say
    from jitlab.core import messages
    from jitlab.core.changes import render
    from jitlab.core.recording import read_recording, summarize

    recording, _ = read_recording(path)
    console = Console(stderr=True, width=None if sys.stderr.isatty() else 120)
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
    # The summary counts each change by its English words; the same changes in the
    # command's language, from the recorded changes themselves.
    words = {}
    if language() != "en":
        for call in recording.calls:
            for change in call.record.reason.items if call.record.reason else ():
                words[render(change, "en")] = render(change, language())
    for s in summarize(recording):
        where = f"\n[dim]{escape(s.defined_at)}[/dim]" if s.defined_at else ""
        if s.internal:
            where = f"\n[dim]{escape(say('watch.eager_op'))}[/dim]"
        differed = "\n".join(
            escape(f"{words.get(change, change)} ×{n}") for change, n in s.changes.most_common(4)
        )
        table.add_row(
            f"{escape(s.function)}{where}",
            str(s.executables),  # the recording window's "compiles": the same count
            str(s.recompiles),
            "-" if s.hits is None else str(s.hits),
            s.ms_text,
            str(len(s.signatures)) if s.signatures else "-",
            differed,
        )
    console.print(table)
    rest = ""
    if recording.scripts:
        made = sum(1 for s in recording.scripts.values() if s.script is not None)
        rest += say("sep") + say("n.scripts", n=made)
    if recording.bad_lines:
        rest += say("sep.semi") + messages.skipped_lines(recording.bad_lines, language())
    lines = say("n.compile_lines", n=len(recording.calls))
    console.print(escape(say("watch.recording", path=path, lines=lines, rest=rest)))
