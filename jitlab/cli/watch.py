"""``jitlab watch -- python SCRIPT ARGS``: run a program unchanged, record its compiles."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import signal
import sys
import types
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jitlab.cli._usage import fail, language, say


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
    parser.add_argument("program", nargs=argparse.REMAINDER, metavar="-- python SCRIPT ARGS")
    return parser


def run(args: argparse.Namespace) -> int:
    from jitlab.cli._output import checked_output
    from jitlab.records.outputs import RECORDING

    program = _parse_program(list(args.program))
    # Resolved now, against the folder the program starts in (it may chdir before the end).
    scripts_read = [program.target] if program.file else []
    out = checked_output("watch", args.out, RECORDING, scripts_read, make_folders=True)
    if program.options:
        _reexec(args, program)  # never returns

    import jitlab.recordings.reader  # noqa: F401  (imported before sys.path becomes the program's)
    from jitlab.probe import monitor
    from jitlab.watching.recorder import watch

    if getattr(args, "lang", None):  # what jitlab says from inside the program: as asked
        monitor.set_user_language(language())

    scripts = "texts" if args.script_texts else "figures" if args.scripts else False
    me = os.getpid()
    sys.argv = list(program.argv)  # the recording's start line names the program's argv
    saved_path = sys.path[:]
    with watch(out, include_internal=args.include_internal, scripts=scripts) as recorder:
        restore = _stop_on_signals(recorder)
        try:
            status, interrupted = _run_program(program)
        finally:
            restore()
            sys.path[:] = saved_path  # jitlab's own imports for the summary, as before
    if os.getpid() != me:  # a forked child left the program: its own file, no summary
        return status
    _print_summaries(args.out, out, recorder)
    if interrupted:  # as plain Python does after an unhandled Ctrl-C: die of SIGINT
        _die_of(signal.SIGINT)
    return status


# -- what `python ARGS` would run ---------------------------------------------------------------
_INTERPRETER = re.compile(r"python(\d+(\.\d+)*)?[a-z]?(\.exe)?", re.IGNORECASE)
_NO_ARGUMENT = set("bBdEIOPqRsuv")  # options honoured by starting the interpreter with them
_WITH_ARGUMENT = set("WX")
# Options `python` takes that leave no program for watch to run, or that it cannot honour.
# Each is said by the catalogue's entry watch.opt.<letter>.
_CANNOT = set("iSxhV?")


@dataclass
class _Program:
    mode: str  # "file", "main" (a folder or zip with __main__), "module", "command"
    target: str  # the script / folder / zip as given, the module name, or the command
    argv: list[str]  # sys.argv as python would set it
    options: list[str] = field(default_factory=list)  # interpreter options, as given

    @property
    def file(self) -> bool:
        return self.mode in ("file", "main")


def _is_interpreter(word: str) -> bool:
    if _INTERPRETER.fullmatch(Path(word).name):
        return True
    try:
        return os.path.samefile(word, sys.executable)
    except OSError:
        return False


def _parse_program(program: list[str]) -> _Program:
    """``[python] [OPTIONS] (SCRIPT | -m MODULE | -c COMMAND) ARGS`` as python reads them."""
    if program and program[0] == "--":
        program = program[1:]
    if program and _is_interpreter(program[0]):
        program = program[1:]  # it runs in this interpreter, where the watch is
    else:  # `jitlab watch -- train.py ARGS`: no interpreter, no interpreter options
        program = ["--", *program] if program else program
    if not program:
        fail(say("watch.no_program"))
    options: list[str] = []
    i = 0
    while i < len(program):
        word = program[i]
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or word == "-":
            break
        if word.startswith("--"):
            name, _, value = word.partition("=")
            if name != "--check-hash-based-pycs":
                fail(say("watch.option_runs_nothing", option=name))
            if not value:
                i += 1
                if i >= len(program):
                    fail(say("watch.needs_value", option=name))
                value = program[i]
            options += [name, value]
            i += 1
            continue
        j = 1
        while j < len(word):
            letter = word[j]
            if letter in ("m", "c"):
                rest = word[j + 1 :] or (program[i + 1] if i + 1 < len(program) else None)
                if rest is None:
                    key = "watch.needs_module" if letter == "m" else "watch.needs_command"
                    fail(say(key, option=f"-{letter}"))
                after = program[i + (1 if word[j + 1 :] else 2) :]
                if letter == "m":
                    return _Program("module", rest, ["-m", *after], options)
                return _Program("command", rest, ["-c", *after], options)
            if letter in _WITH_ARGUMENT:
                value = word[j + 1 :]
                if not value:
                    i += 1
                    if i >= len(program):
                        fail(say("watch.needs_value", option=f"-{letter}"))
                    value = program[i]
                options.append(f"-{letter}{value}")
                break
            if letter in _CANNOT:
                fail(say("watch.cannot_honour", option=say(f"watch.opt.{letter}")))
            if letter not in _NO_ARGUMENT:
                fail(say("watch.unknown_option", option=f"-{letter}"))
            options.append(f"-{letter}")
            j += 1
        i += 1
    argv = program[i:]
    if not argv:
        fail(say("watch.no_program"))
    target = argv[0]
    if target == "-":
        fail(say("watch.stdin"))
    path = Path(target)
    if path.is_dir() or (path.is_file() and zipfile.is_zipfile(path)):
        main = path / "__main__.py" if path.is_dir() else None
        if main is not None and not main.exists() and not main.with_suffix(".pyc").exists():
            fail(say("watch.no_main", target=repr(target)))
        return _Program("main", target, argv, options)
    if not path.is_file():
        fail(say("watch.no_script", target=target))
    return _Program("file", target, argv, options)


def _reexec(args: argparse.Namespace, program: _Program) -> None:
    """Start this interpreter again with the program's interpreter options (``-X dev``,
    ``-W error``, ``-O``, ``-u``, …): most act only at start-up, and then they hold exactly as
    under plain python (sys.flags, warnings, buffering), for jitlab's code as for the program's."""
    own = ["--out", args.out]  # the same folder: exec keeps the working directory
    own += ["--include-internal"] * args.include_internal
    own += ["--scripts"] * args.scripts + ["--script-texts"] * args.script_texts
    own += ["--lang", language()]  # the started interpreter speaks the command's language
    if program.mode == "module":
        tail = ["-m", program.target, *program.argv[1:]]
    elif program.mode == "command":
        tail = ["-c", program.target, *program.argv[1:]]
    else:
        tail = program.argv
    argv = [sys.executable, *program.options, "-m", "jitlab.cli", "watch", *own, "--", "python"]
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        os.execv(sys.executable, argv + tail)
    except OSError as exc:
        fail(say("watch.cannot_start", python=sys.executable, error=exc.strerror or exc))


def _fresh_main(**names: Any) -> types.ModuleType:
    """A ``__main__`` module as python makes it, installed as ``sys.modules["__main__"]``."""
    import builtins

    main = types.ModuleType("__main__")
    main.__dict__.update(__annotations__={}, __builtins__=builtins, **names)
    sys.modules["__main__"] = main
    return main


def _run_program(program: _Program) -> tuple[int, bool]:
    """Run it as ``python ARGS`` would: (exit status, whether Ctrl-C ended it)."""
    import runpy

    sys.argv = list(program.argv)
    safe_path = getattr(sys.flags, "safe_path", False)
    if program.mode == "file":
        path = os.path.abspath(program.target)
        first = os.path.dirname(os.path.realpath(path))
    elif program.mode == "main":
        path = first = os.path.abspath(program.target)
    elif program.mode == "module":
        path, first = "", os.getcwd()
    else:
        path, first = "", ""
    # Python puts the program's place first (where jitlab's own entry was); with -P or -I
    # only a folder or zip is put there (python must import its __main__ from it).
    if not safe_path and sys.path:
        sys.path[0] = first
    elif not safe_path or program.mode == "main":
        sys.path.insert(0, first)
    try:
        if program.mode == "file":
            from importlib.machinery import SourceFileLoader, SourcelessFileLoader

            pyc = path.endswith((".pyc", ".pyo"))
            loader = (SourcelessFileLoader if pyc else SourceFileLoader)("__main__", path)
            main = _fresh_main(__loader__=loader, __file__=path, __cached__=None)
            if pyc:
                code = loader.get_code("__main__")
            else:
                with io.open_code(path) as f:
                    source = f.read()
                code = compile(source, path, "exec", dont_inherit=True)
            _exec(code, main.__dict__)
        elif program.mode == "command":
            import importlib

            main = _fresh_main(__loader__=importlib.machinery.BuiltinImporter)
            _exec(compile(program.target, "<string>", "exec", dont_inherit=True), main.__dict__)
        else:  # what python itself calls for a folder, a zip or -m (its frames show as then)
            import importlib

            _fresh_main(__loader__=importlib.machinery.BuiltinImporter)
            name = "__main__" if program.mode == "main" else program.target
            _run_as_main(runpy, name, program.mode == "module")
    except SystemExit as exc:
        return _exit_status(exc), False
    except BaseException as exc:  # as python: the program's own sys.excepthook, from its frames
        _unhandled(exc)
        return 1, isinstance(exc, KeyboardInterrupt)
    finally:
        _join_threads()
    return 0, False


def _exec(code: Any, namespace: dict[str, Any]) -> None:
    exec(code, namespace)  # the traceback's first frame here is dropped (see _unhandled)


def _run_as_main(runpy: Any, name: str, alter_argv: bool) -> None:
    runpy._run_module_as_main(name, alter_argv=alter_argv)  # what `python -m` calls


_OUR_FRAMES = {"_exec", "_run_as_main"}


def _our_files() -> set[str]:
    """The files whose frames a watched call passes through (the stand-in, the probe): every
    module of jitlab.watching and jitlab.probe loaded, whichever of them a call passes."""
    import jitlab.watching.recorder  # noqa: F401  # loads the stand-in and the probe

    ours = {__file__}
    for name, module in list(sys.modules.items()):
        if name.startswith(("jitlab.watching.", "jitlab.probe.")):
            ours.add(str(getattr(module, "__file__", "") or ""))
    ours.discard("")
    return ours


def _without_our_frames(tb: Any, ours: set[str]) -> Any:
    """The traceback with jitlab's frames left out (rebuilt: traceback objects are linked
    from the outermost frame in)."""
    kept = []
    while tb is not None:
        if tb.tb_frame.f_code.co_filename not in ours:
            kept.append(tb)
        tb = tb.tb_next
    rebuilt = None
    for entry in reversed(kept):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return rebuilt


def _strip_chain(exc: BaseException, ours: set[str]) -> None:
    """Drop jitlab's frames from an exception and those it was raised from or during."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        e.__traceback__ = _without_our_frames(e.__traceback__, ours)
        todo += [e.__cause__, e.__context__]
        todo += list(getattr(e, "exceptions", ()) or ())  # an ExceptionGroup's


def _unhandled(exc: BaseException) -> None:
    tb = exc.__traceback__
    # Drop jitlab's frames: the traceback starts where python's would (the program's code,
    # or runpy's for -m and folders, as under plain python).
    while tb is not None and (
        tb.tb_frame.f_code.co_filename == __file__ or tb.tb_frame.f_code.co_name in _OUR_FRAMES
    ):
        seen = tb.tb_frame.f_code.co_name in _OUR_FRAMES
        tb = tb.tb_next
        if seen:
            break
    exc.__traceback__ = tb
    with contextlib.suppress(Exception):  # and those of the watched calls on the way
        _strip_chain(exc, _our_files())
    tb = exc.__traceback__
    sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, tb
    try:
        sys.excepthook(type(exc), exc, tb)
    except BaseException as hook_error:  # as python says it
        err = sys.stderr
        if err is not None:
            with contextlib.suppress(Exception):
                print("Error in sys.excepthook:", file=err)
                sys.__excepthook__(type(hook_error), hook_error, hook_error.__traceback__)
                print("\nOriginal exception was:", file=err)
                sys.__excepthook__(type(exc), exc, tb)


def _exit_status(exc: SystemExit) -> int:
    """What python exits with for ``SystemExit(code)`` (a message printed, then 1)."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    err = sys.stderr
    if err is not None:
        with contextlib.suppress(Exception):
            print(code, file=err)
    return 1


def _join_threads() -> None:
    """Python waits for the program's non-daemon threads before it ends: so does watch."""
    import threading

    for _ in range(10_000):
        alive = [
            t
            for t in threading.enumerate()
            if t is not threading.current_thread() and not t.daemon and t.is_alive()
        ]
        if not alive:
            return
        for thread in alive:
            thread.join()


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


def _print_summaries(shown: str, out: Path, recorder: Any) -> None:
    from jitlab.records import messages
    from jitlab.watching.files import child_recordings

    err = _error_stream()
    if err is None:
        return
    written = recorder.file_path or out
    name = str(written) if written != out else shown
    try:
        if written.is_file():
            print_watch_summary(name, file=err, read_from=str(written))
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


def print_watch_summary(path: str, file: Any = None, read_from: str | None = None) -> None:
    """The table on ``file`` (default stderr) for the recording shown as ``path`` (and read
    from ``read_from`` when that differs, e.g. its absolute name)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from jitlab.cli._usage import language, say
    from jitlab.recordings.reader import read_recording, summarize
    from jitlab.records import messages
    from jitlab.records.changes import render

    recording, _ = read_recording(read_from or path)
    stream = sys.stderr if file is None else file
    console = Console(file=stream, width=None if stream.isatty() else 120)
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
    for notice in messages.notice_texts(recording.notices, language(), recording.notice_counts):
        console.print(f"[yellow]{escape(say('watch.notice', notice=notice))}[/yellow]")
