"""``jitlab watch -- python SCRIPT ARGS``: run a program unchanged, record its compiles."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import io
import os
import signal
import sys
from pathlib import Path
from typing import Any

from jitlab.cli._usage import fail, language, say, set_language
from jitlab.cli.launch import can_launch, launch
from jitlab.cli.program import (
    hook_exec,
    is_this_interpreter,
    own_options,
    parse_program,
    reexec,
    run_elsewhere,
    run_program,
)


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "watch",
        help="record a Python program's compiles: jitlab watch -- python train.py ARGS",
        description="Run a Python program unchanged, record every compile and recompile of "
        "its jitted functions to a JSON-lines file, and print a summary per function. "
        "In each process of a jax.distributed job it writes one file per process, "
        "run.p0.jsonl, run.p1.jsonl, … for --out run.jsonl (see `jitlab summary`). "
        "Python itself runs the program, as `python ARGS` would: a script, a folder or zip "
        "with __main__.py, -m MODULE or -c COMMAND, with python's options (-X dev, -W error, "
        "-O, -u, -B, …; not -i, -S or -x; with -E or -I it runs inside jitlab's own frames); "
        "JAX is imported where the program imports it. A child forked by the program "
        "(multiprocessing's fork) writes its own NAME.pid<PID>.jsonl; children started by "
        "spawn or forkserver are not watched. --out never writes over a file that is not a "
        "recording.",
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
    fleet = parser.add_argument_group(
        "the fleet view",
        "compiles, recompiles, hits and diagnoses as metrics while the program runs "
        "(needs pip install 'jitlab[fleet]')",
    )
    fleet.add_argument(
        "--metrics-port",
        metavar="PORT",
        type=int,
        default=None,
        help="serve the metrics for Prometheus at http://127.0.0.1:PORT/metrics while the "
        "program runs (PROMETHEUS_MULTIPROC_DIR: prometheus_client's multiprocess mode, "
        "for a program that forks workers)",
    )
    fleet.add_argument(
        "--metrics-host",
        metavar="HOST",
        default=None,
        help="the address --metrics-port listens on (default: 127.0.0.1; 0.0.0.0 for every "
        "interface)",
    )
    fleet.add_argument(
        "--otlp",
        action="store_true",
        help="push the metrics over OTLP/HTTP with the OpenTelemetry SDK, configured by "
        "OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES "
        "and OTEL_METRIC_EXPORT_INTERVAL",
    )
    fleet.add_argument(
        "--metrics-max-functions",
        metavar="N",
        type=int,
        default=None,
        help="label at most N functions by name; the rest are counted as 'other' (default: 50)",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="the end table's reasons in full: a pytree that changed structure shows both "
        "sub-trees whole (shortened otherwise; the recording always keeps them whole)",
    )
    # Handed on by an image of the program that replaced itself by exec (never typed): the
    # recording goes on in the same file, and jitlab speaks where the first image did.
    parser.add_argument("--after-exec", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--words-fd", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("program", nargs=argparse.REMAINDER, metavar="-- python SCRIPT ARGS")
    return parser


def run(args: argparse.Namespace) -> int:
    from jitlab.cli._output import checked_output
    from jitlab.probe import contract
    from jitlab.records.diagnoses import resolve_warn_after
    from jitlab.records.outputs import RECORDING

    environment = dict(os.environ)  # the program's: before anything here imports JAX
    program = parse_program(list(args.program))
    try:  # a bad --warn-after or JITLAB_WARN_AFTER: one line, before the program runs
        warn_after = resolve_warn_after(args.warn_after, os.environ, language())
    except ValueError as exc:
        fail(f"watch: {exc}")
    _check_fleet(args)
    if program.interpreter is not None:
        run_elsewhere(args, program)  # another Python named: it runs there (never returns)
    # Resolved now, against the folder the program starts in (it may chdir before the end).
    scripts_read = [program.target] if program.file else []
    out = checked_output("watch", args.out, RECORDING, scripts_read, make_folders=True)
    if can_launch(program):
        can_serve(args)  # (the fleet view imports JAX here: the environment was kept before)
        launch(args, program, out, warn_after, environment)  # never returns
    if program.options:
        reexec(args, program)  # never returns
    # -E or -I: python reads no PYTHONPATH, so the program runs here, in jitlab's frames
    import jitlab.recordings.reader  # noqa: F401  (imported before sys.path becomes the program's)

    contract.require_before_counting()  # refused before anything is written
    can_serve(args)
    sys.argv = list(program.argv)  # the recording's start line names the program's argv
    end = begin_watch(args, out, warn_after, args.words_fd)  # JAX is imported: it starts now
    status, end.interrupted = run_program(program)
    return status


def begin_watch(
    args: argparse.Namespace,
    out: Path,
    warn_after: int,
    words_fd: int | None,
    *,
    jax_version: str | None = None,
    contract: Any = None,
) -> _End:
    """Open the recording (its start line), set the end as an exit function, and start the
    recorder when the program imports JAX (now where it is imported); ``words_fd``: where
    jitlab speaks (None: a copy of stderr now), ``jax_version``/``contract``: what the
    command found of the JAX the program will import (see :mod:`jitlab.cli.launch`)."""
    import jitlab.recordings.reader  # noqa: F401  (imported before sys.path becomes the program's)
    from jitlab.cli._streams import words_stream
    from jitlab.watching import files
    from jitlab.watching.deferred import Deferred

    words = words_stream(words_fd)  # jitlab's words go where the command was started
    scripts = "texts" if args.script_texts else "figures" if args.scripts else None
    saved_path = sys.path[:]
    if args.after_exec:  # the image before this one wrote its recording there: go on after it
        files.written_before(out)
    output = files.RecordingFile(out)
    try:  # a recording that cannot even start (--out /dev/full): refused before the program
        output.open(scripts, jax_version)
    except OSError as exc:
        fail(say("output.cannot_write", command="watch", path=args.out, error=_why(exc)))

    def make(output: Any) -> Any:
        return _recorder(args, output, words, warn_after, contract)

    recording = Deferred(output, scripts, make, lambda exc: _not_started(exc, words))
    try:
        recording.begin()
    except Exception as exc:  # JAX imported already, and the recorder cannot start
        recording.stop()
        _not_started(exc, words)
        raise SystemExit(2) from None
    end = _End(args, out, recording, _stop_on_signals(recording), saved_path, words)
    # The recording ends, and the table is printed, when the program's interpreter ends: after
    # its threads and after its own exit functions and JAX's (registered later, run first: a
    # compile there is recorded), as python runs them.
    atexit.register(end)
    end.unhook_exec = hook_exec(lambda path, argv, env: _exec(end, path, argv, env))
    return end


def _recorder(
    args: argparse.Namespace, output: Any, words: Any, warn_after: int, contract: Any
) -> Any:
    """The recorder, started: once the program has imported JAX (``output`` open already)."""
    from jitlab.probe import contract as jax_contract
    from jitlab.probe import monitor
    from jitlab.watching.recorder import Recorder

    if getattr(args, "lang", None):  # what jitlab says from inside the program: as asked
        monitor.set_user_language(language())
    monitor.set_words_stream(words)
    if contract is not None:  # checked by the command, in the image before this one
        jax_contract.take_over(contract)
    scripts = "texts" if args.script_texts else "figures" if args.scripts else False
    recorder = Recorder(
        output.path,
        include_internal=args.include_internal,
        scripts=scripts,
        warn_after=warn_after,
        metrics=_fleet(args),
        output=output,
    )
    recorder.start()
    return recorder


def _not_started(exc: BaseException, words: Any) -> None:
    """The recorder could not start at the program's import of JAX: said in one line; the
    program goes on, unwatched, and the recording ends with what it holds."""
    from jitlab.probe.contract import JaxContractError
    from jitlab.watching.fleet import CannotServe

    if isinstance(exc, SystemExit):  # fail() has said it
        return
    if isinstance(exc, JaxContractError):
        from jitlab.cli.doctor import refused_line

        line = refused_line(exc.report)
    elif isinstance(exc, CannotServe):  # the port was taken after the command's check
        line = say("watch.cannot_serve", address=exc.address, error=exc.why)
    else:
        line = say("watch.not_started", error=f"{type(exc).__name__}: {exc}")
    _say(words, line + "\n")


def _say(words: Any, text: str) -> None:
    """jitlab's words on its own stream (else as the monitor says them); never raises."""
    with contextlib.suppress(Exception):
        if words is not None and not words.closed:
            words.write(text)
            return
        from jitlab.probe import monitor

        monitor.say_words(text)


def can_serve(args: argparse.Namespace) -> None:
    """The fleet view's extra installed, and the metrics port bound and let go, before the
    program runs (one line otherwise); the recorder binds it again once JAX is imported."""
    if _fleet(args) is None or args.metrics_port is None:
        return
    from jitlab.watching.fleet import CannotServe, exporters

    fleet = exporters(args.metrics_port, args.metrics_host or "127.0.0.1")
    assert fleet is not None
    try:
        fleet.open()
    except CannotServe as exc:
        fail(say("watch.cannot_serve", address=exc.address, error=exc.why))
    fleet.close()


def begin_launched(text: str) -> None:
    """In the program's interpreter, as it starts (``boot/sitecustomize.py``): the
    environment as the command found it, and the watch started. What cannot start (the
    recording's file) is said in one line, exit 2, before the program runs."""
    import json

    settings: dict[str, Any] = json.loads(text)
    if settings["pythonpath"] is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = settings["pythonpath"]
    orig_argv = getattr(sys, "orig_argv", None)
    if isinstance(orig_argv, list):  # as `python OPTIONS PROGRAM ARGS` typed would have it
        orig_argv[:] = settings["orig_argv"]
    set_language(settings["lang"])
    args = argparse.Namespace(**settings["args"])
    try:
        begin_watch(
            args,
            Path(settings["out"]),
            settings["warn_after"],
            settings["words_fd"],
            jax_version=settings["jax"],
            contract=settings["contract"],
        )
    except SystemExit as exc:  # refused: python must not go on into the program
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        os._exit(exc.code if isinstance(exc.code, int) else 2)


_EITHER = "--metrics-port | --otlp"


def _check_fleet(args: argparse.Namespace) -> None:
    """The fleet view's options: one line for a bad one, before the program runs."""
    serves = args.metrics_port is not None
    for option, value, asked, needs in (
        ("--metrics-host", args.metrics_host, serves, "--metrics-port"),
        ("--metrics-max-functions", args.metrics_max_functions, serves or args.otlp, _EITHER),
    ):
        if value is not None and not asked:
            fail(say("watch.metrics_alone", option=option, needs=needs))
    if args.metrics_port is not None and not 0 < args.metrics_port < 65536:
        fail(say("watch.port_range", option="--metrics-port", value=args.metrics_port))
    if args.metrics_max_functions is not None and args.metrics_max_functions < 1:
        fail(
            say(
                "watch.at_least_one",
                option="--metrics-max-functions",
                value=args.metrics_max_functions,
            )
        )


def _fleet(args: argparse.Namespace) -> Any:
    """The fleet view asked for (None when not): a missing extra is said in one line."""
    from jitlab.watching.fleet import MissingExtra, exporters

    try:
        return exporters(
            args.metrics_port,
            args.metrics_host or "127.0.0.1",
            args.otlp,
            args.metrics_max_functions,
        )
    except MissingExtra as exc:
        fail(say("watch.needs_fleet", option=exc.option, package=exc.package))


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


class _End:
    """What ``jitlab watch`` does once the program's interpreter ends (an exit function):
    the recording's last lines, then (in the process the command started) the table."""

    def __init__(
        self,
        args: argparse.Namespace,
        out: Path,
        recorder: Any,
        restore_signals: Any,
        saved_path: list[str],
        words: Any,
    ) -> None:
        self.args, self.out, self.recorder, self.words = args, out, recorder, words
        self.restore_signals, self.saved_path = restore_signals, saved_path
        self.pid, self.lang = os.getpid(), language()
        self.interrupted = False
        self.unhook_exec: Any = None
        self.done = False

    def stop(self, *, summary: bool = True) -> None:
        """End the recording; the table too with ``summary`` (and in this process only)."""
        if self.done:
            return
        self.done = True
        if self.unhook_exec is not None:
            self.unhook_exec()
        self.restore_signals()
        sys.path[:] = self.saved_path  # jitlab's own imports for the summary, as before
        self.recorder.stop()
        if os.getpid() != self.pid or not summary:  # a forked child: its own file, no table
            return
        set_language(self.lang)  # the command's language (main() has given it back)
        _print_summaries(self.args.out, self.out, self.recorder, self.words, self.args.verbose)

    def __call__(self) -> None:
        with contextlib.suppress(Exception, SystemExit):  # never into the interpreter's exit
            self.stop()
        if os.getpid() != self.pid:
            return
        if self.interrupted:  # run here: as python after an unhandled ^C
            _die_of(signal.SIGINT)
        elif isinstance(getattr(sys, "last_value", None), KeyboardInterrupt):
            _still_interrupted()


def _still_interrupted() -> None:
    """Python, whose program ended on an unhandled Ctrl-C, ends by SIGINT once it has
    finalised (the shell shows 130) — unless code was run from a string since: each such run
    (``exec`` of a string: every dataclass and namedtuple the table's imports define) clears
    its flag first. The flag is set again as python sets it: a string run that ends on
    KeyboardInterrupt."""
    with contextlib.suppress(KeyboardInterrupt):
        exec("raise KeyboardInterrupt")


def _exec(end: _End, path: Any, argv: list[Any], env: Any) -> tuple[str, list[str]] | None:
    """The program replaces itself (``os.execv``/``os.execve``): the recording says so and
    ends; a Python that runs jitlab, given a program it can run, is followed — the command
    starts again in the new image, its recording going on in the same file — else the table
    is printed now, with one line saying what follows is not watched. What to exec instead
    (None: the program's own exec)."""
    recorder = end.recorder
    follow = _followed(path, argv)
    recorder.note("exec" if follow else "exec_not_followed")
    if not follow:
        end.stop()
        if os.getpid() == end.pid:  # a forked child's exec is the child's business
            _say(end.words, say("watch.exec_not_followed", program=_shown(path)) + "\n")
        return None
    end.stop(summary=False)
    own = own_options(end.args)
    own += ["--out", str(recorder.file_path or end.out), "--after-exec"]
    words = end.words
    if words is not None and not words.closed:
        os.set_inheritable(words.fileno(), True)  # the next image speaks where this one did
        own += ["--words-fd", str(words.fileno())]
    tail = [os.fsdecode(a) if isinstance(a, bytes) else str(a) for a in argv[1:]]
    command = [sys.executable, "-m", "jitlab.cli", "watch", *own, "--", "python", *tail]
    return sys.executable, command


def _shown(path: Any) -> str:
    return os.fsdecode(path) if isinstance(path, (str, bytes)) else f"fd {path}"


def _followed(path: Any, argv: list[Any]) -> bool:
    """Is the exec a Python that runs jitlab (this one), given a program it can run?"""
    if not isinstance(path, (str, bytes)) or not is_this_interpreter(os.fsdecode(path)):
        return False
    words = [os.fsdecode(a) if isinstance(a, bytes) else str(a) for a in argv[1:]]
    err = sys.stderr
    try:  # what watch would refuse (no script, -i, …) is left to python, unwatched
        sys.stderr = io.StringIO()
        parse_program(["python", *words])
    except SystemExit:
        return False
    finally:
        sys.stderr = err
    return True


# -- the end: signals, summaries --------------------------------------------------------------
def _die_of(signum: int) -> None:
    """End with ``signum``'s status, as the plain program would (the shell sees -N)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


# Signals whose default action ends the process, that a program, its launcher or the
# system sends: a stop (SIGTERM), a closed terminal (SIGHUP), the program's own watchdog
# (signal.alarm, setitimer), a launcher's warning before preemption (Slurm's --signal=USR1),
# a CPU-time limit (ulimit -t). Each is caught only where python has the default action.
STOP_SIGNALS = (
    "SIGTERM",
    "SIGHUP",
    "SIGALRM",
    "SIGUSR1",
    "SIGUSR2",
    "SIGVTALRM",
    "SIGPROF",
    "SIGXCPU",
)


def _stop_on_signals(recorder: Any) -> Any:
    """:data:`STOP_SIGNALS`: write the last ``hits`` and the ``end`` line, then die of the
    signal, as the plain program would (its status, a core where the signal makes one).

    Installed only where python has the default action (SIG_DFL). A handler the program
    installs later may chain to the one it replaced (PyTorch Lightning's signal connector
    calls it when it is callable): python's SIG_DFL there is no callable, so the program's
    handler goes on without it, and so does it with this one, which does nothing when it is
    no longer the handler installed."""
    me = os.getpid()
    saved: dict[int, Any] = {}

    def on_signal(signum: int, frame: Any) -> None:
        with contextlib.suppress(ValueError, OSError):
            if signal.getsignal(signum) is not on_signal:
                return  # chained to by the program's own handler: as SIG_DFL, nothing
        if os.getpid() == me or recorder.recording:
            with contextlib.suppress(BaseException):
                recorder.stop(signal=signal.Signals(signum).name)
        _die_of(signum)

    for name in STOP_SIGNALS:
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


def _print_summaries(shown: str, out: Path, recorder: Any, words: Any, full: bool = False) -> None:
    from jitlab.records import messages
    from jitlab.watching.files import child_recordings

    err = words if words is not None and not words.closed else None
    if err is None and "jax" in sys.modules:  # else the program's stderr, as jitlab's words
        from jitlab.probe import monitor

        err = monitor.words_stream()
    elif err is None:
        err = sys.stderr if sys.stderr is not None and not sys.stderr.closed else None
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
    except SystemExit:  # the reader of the terminal left (rich exits on a broken pipe)
        return
    except Exception as exc:  # the program's status stands; say what went wrong, briefly
        if isinstance(exc, BrokenPipeError):
            return
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

    from jitlab.cli._tables import console_for, fitted, function_cell, prose, shown
    from jitlab.cli._usage import language, say
    from jitlab.cli.summary import print_diagnoses
    from jitlab.recordings.reader import read_recording
    from jitlab.recordings.summary import summarize
    from jitlab.records import messages
    from jitlab.records.text import FIELD_LIMIT

    recording, _ = read_recording(read_from or path)
    stream = sys.stderr if file is None else file
    console = console_for(stream)  # the terminal's width, TERM=dumb included
    table = Table(title=shown(say("watch.title", path=path)))  # a file's name
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
        name = function_cell(shown(s.function), s.defined_at)
        if s.internal:
            name = f"{shown(s.function)}\n[dim]{escape(say('watch.eager_op'))}[/dim]"
        words, more = s.listed_changes(language(), full=full)  # the most telling first
        limit = None if full else FIELD_LIMIT  # --verbose: each reason in full
        differed = "\n".join(shown(f"{c} ×{n}", lines=full, limit=limit) for c, n in words)
        if more:  # never dropped silently
            differed += "\n" + escape(say("n.more", n=more))
        table.add_row(
            name,
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
    console.print(prose(say("watch.recording", path=path, lines=lines, rest=rest)))
    noticed = messages.notice_texts(
        recording.notices, language(), recording.notice_counts, recording.notice_details
    )
    for notice in noticed:
        console.print(f"[yellow]{shown(say('watch.notice', notice=notice))}[/yellow]")
    print_diagnoses(console, [(0, recording)], language())
