"""The ``jitlab`` command: the desktop app by default, plus ``list`` and ``run``."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn

USAGE_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are one line on stderr and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        fail(f"{message} (see `{self.prog} --help`)")


def fail(message: str) -> NoReturn:
    print(f"jitlab: error: {message}", file=sys.stderr)
    raise SystemExit(USAGE_ERROR)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="jitlab",
        description="See, call by call, what jax.jit really does. "
        "With no command, opens the desktop app.",
    )
    parser.add_argument(
        "--scenario", help="open the app on this scenario (default: dynamic-shapes)"
    )
    parser.add_argument("--variant", help="open the app on this variant (pitfall, fix, …)")
    parser.add_argument(
        "--autoplay", action="store_true", help="play the scenario's demo hands-free"
    )
    parser.add_argument("--lang", choices=("en", "zh"), help="interface language")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    commands.add_parser("list", help="list scenarios with their variants and parameters")

    run = commands.add_parser(
        "run",
        help="run a scenario in the terminal, one probed call per parameter value",
        description="Run SCENARIO once per value of --param (other parameters at their "
        "defaults). Without --param, plays the scenario's autoplay demo.",
    )
    run.add_argument("scenario", metavar="SCENARIO")
    run.add_argument("--variant", default="pitfall", help="pitfall, fix, … (default: pitfall)")
    run.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=V1,V2,...",
        help="a parameter and the sequence of values to call with (repeatable)",
    )
    run.add_argument("--json", action="store_true", help="one JSON object per call, then a summary")

    watch = commands.add_parser(
        "watch",
        help="record a Python program's compiles: jitlab watch -- python train.py ARGS",
        description="Run a Python program unchanged, record every compile and recompile of "
        "its jitted functions to a JSON-lines file, and print a summary per function.",
    )
    watch.add_argument(
        "--out", default="jitlab-watch.jsonl", help="recording file (default: %(default)s)"
    )
    watch.add_argument(
        "--include-internal",
        action="store_true",
        help="also record kernels JAX compiles for itself (e.g. jnp.ones(n))",
    )
    watch.add_argument("program", nargs=argparse.REMAINDER, metavar="-- python SCRIPT ARGS")

    open_ = commands.add_parser(
        "open",
        help="open a recording made by `jitlab watch` in the desktop app",
        description="Open a JSON-lines recording: per function, the chart, kitchen, log, "
        "signature ledger and shape histogram. Follows the file while it grows.",
    )
    open_.add_argument("recording", metavar="FILE")
    open_.add_argument(
        "--no-follow", action="store_true", help="read the file once; do not follow it"
    )

    from jitlab.quiz.cli import add_parser as add_quiz_parser

    add_quiz_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # `jitlab run … --json | head`: the reader left, nothing to say
        sys.stderr.close()
        return 0


def _main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "watch":
        return cmd_watch(args)  # the user's program keeps its own devices
    if args.command == "open":
        return cmd_open(args)
    # The sharding lessons need several devices; XLA only reads this before it starts.
    from jitlab.core.devices import simulate_cpu_devices

    simulate_cpu_devices(8)
    if args.command == "quiz":
        from jitlab.quiz.cli import run as cmd_quiz

        return cmd_quiz(args)
    if args.command == "list":
        return cmd_list()
    if args.command == "run":
        return cmd_run(args)
    return cmd_app(args)


# -- jitlab (the desktop app) -------------------------------------------------------------
def cmd_app(args: argparse.Namespace) -> int:
    try:
        from jitlab.gui.app import launch
    except ImportError as exc:
        if getattr(exc, "name", "") and not str(exc.name).startswith("jitlab.gui"):
            raise
        print(
            "jitlab: the desktop app is not part of this build yet. "
            "Try `jitlab list` or `jitlab run dynamic-shapes`.",
            file=sys.stderr,
        )
        return 1
    return launch(
        scenario=args.scenario, variant=args.variant, autoplay=args.autoplay, language=args.lang
    )


# -- jitlab list --------------------------------------------------------------------------
def cmd_list() -> int:
    from rich.console import Console
    from rich.table import Table

    from jitlab.core.discovery import discover

    table = Table(title="jitlab scenarios", show_lines=True)
    for column in ("scenario", "pitfall", "variants", "parameters"):
        table.add_column(column, overflow="fold")
    for entry in discover():
        if entry.scenario is None:
            table.add_row(f"[red]{entry.name}[/red]", "[red]broken[/red]", "", entry.error or "")
            continue
        cls = entry.scenario
        params = "\n".join(f"{p.name}={p.default} ({p.describe()})" for p in cls.params)
        table.add_row(
            f"{cls.id}\n[dim]{cls.title.en}[/dim]",
            cls.pitfall.title.en,
            ", ".join(cls.variant_ids()),
            params or "-",
        )
    Console(soft_wrap=False).print(table)
    return 0


# -- jitlab run ---------------------------------------------------------------------------
def parse_sequences(scenario: Any, specs: list[str]) -> list[dict[str, Any]]:
    """``["batch_size=8,16", "depth=2"]`` → one overrides dict per call (length-1 broadcasts)."""
    sequences: dict[str, list[Any]] = {}
    for spec in specs:
        name, sep, values = spec.partition("=")
        name = name.strip()
        if not sep or not values.strip():
            fail(f"--param expects NAME=V1,V2,..., got {spec!r}")
        if name in sequences:
            fail(f"--param {name} is given twice; give all its values once: {name}=V1,V2,...")
        try:
            param = scenario.param(name)
        except KeyError:
            names = ", ".join(p.name for p in scenario.params) or "none"
            fail(f"unknown parameter {name!r} for {scenario.id}; valid parameters: {names}")
        try:
            sequences[name] = [param.parse(v) for v in values.split(",")]
        except ValueError as exc:
            fail(str(exc))
    if not sequences:
        return []
    length = max(len(v) for v in sequences.values())
    for name, values in sequences.items():
        if len(values) not in (1, length):
            fail(f"--param {name} has {len(values)} values; give 1 or {length}")
    return [
        {name: values[i if len(values) > 1 else 0] for name, values in sequences.items()}
        for i in range(length)
    ]


def cmd_run(args: argparse.Namespace) -> int:
    from jitlab.core.discovery import discover, scenarios

    entries = discover()
    available = scenarios(entries)
    scenario = available.get(args.scenario)
    if scenario is None:
        broken = {e.name: e.error for e in entries if not e.ok}
        if args.scenario in broken:
            fail(f"scenario {args.scenario!r} is broken: {broken[args.scenario]}")
        fail(f"unknown scenario {args.scenario!r}; valid scenarios: {', '.join(available)}")
    if args.variant not in scenario.variant_ids():
        fail(
            f"unknown variant {args.variant!r} for {scenario.id}; "
            f"valid variants: {', '.join(scenario.variant_ids())}"
        )
    calls = parse_sequences(scenario, args.param)
    if not calls:
        # The variant's own demo beats if it has some, else the scenario's shared ones.
        own = [dict(b.params) for b in scenario.autoplay if b.variant == args.variant]
        shared = [dict(b.params) for b in scenario.autoplay if b.variant is None]
        calls = own or shared or [{}]

    from jitlab.core.engine import Run
    from jitlab.core.records import dumps_strict

    run = Run(scenario, args.variant)
    with _first_ctrl_c_stops_between_calls() as stop:
        try:
            if args.json:
                for overrides in _until(stop, calls):
                    record = run.step(overrides)
                    print(dumps_strict(record.to_json()), flush=True)
            else:
                _print_table(run, _until(stop, calls))
        except KeyboardInterrupt:  # the second Ctrl-C: stop inside the call
            stop.set()
    # Ctrl-C: the calls made so far stand; say so, summarise, and exit as a shell expects.
    interrupted = stop.is_set()
    if args.json:
        summary = run.summary().to_json()
        if interrupted:
            summary["interrupted"] = True
        print(dumps_strict({"summary": summary}), flush=True)
    else:
        _print_summary(run, interrupted)
    return 130 if interrupted else 0


@contextmanager
def _first_ctrl_c_stops_between_calls() -> Iterator[threading.Event]:
    """The first Ctrl-C lets the call in flight finish (a KeyboardInterrupt raised inside JAX
    may surface as another error, or be lost); the second interrupts it."""
    stop = threading.Event()

    def on_sigint(signum: int, frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        print("jitlab: stopping after this call (Ctrl-C again to stop now)", file=sys.stderr)

    try:
        previous = signal.signal(signal.SIGINT, on_sigint)
    except ValueError:  # not the main thread (jitlab.cli.main called from a thread)
        yield stop
        return
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def _until(stop: threading.Event, calls: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for overrides in calls:
        if stop.is_set():
            return
        yield overrides


def _short(value: Any, limit: int = 48) -> str:
    text = repr(value) if not isinstance(value, str) else value
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_KIND_STYLE = {
    "compile": "bold yellow",
    "recompile": "bold red",
    "cache_hit": "green",
    "persistent_hit": "cyan",
    "error": "bold magenta",
    "eager": "dim",
}


def _print_table(run: Any, calls: Iterable[dict[str, Any]]) -> None:
    from rich.console import Console
    from rich.live import Live
    from rich.markup import escape
    from rich.table import Table

    # Piped output has no width to measure: give the table room instead of folding words.
    console = Console(width=None if sys.stdout.isatty() else 120)
    table = Table(title=f"{run.scenario_cls.id} · {run.variant}")
    for column, justify in (
        ("#", "right"),
        ("params", "left"),
        ("kind", "left"),
        ("latency ms", "right"),
        ("trace", "right"),
        ("lower", "right"),
        ("compile", "right"),
        ("why / output", "left"),
    ):
        last = column == "why / output"
        table.add_column(
            column,
            justify=justify,  # type: ignore[arg-type]
            overflow="fold",
            no_wrap=not last,
            ratio=1 if last else None,
        )
    # The probe routes sys.stdout only while a call is in flight; Live must not redirect it
    # as well (each would feed the other).
    live = Live(
        table,
        console=console,
        auto_refresh=False,
        transient=False,
        vertical_overflow="visible",  # a run longer than the screen keeps every row
        redirect_stdout=False,
        redirect_stderr=False,
    )
    with live:
        for overrides in calls:
            record = run.step(overrides)
            kind = record.kind.value
            note = str(record.reason) if record.reason else ""
            if record.error:
                note = f"{record.error.type}: {record.error.message.splitlines()[0]}"
            note = escape(note)
            for line in record.stdout:
                note += escape(f"\n[{line.when}] {line.text}")
            notes = dict(record.notes or {})
            for key in [k for k, v in notes.items() if k.endswith("_error") and v]:
                # What went wrong beside the call (a cache the disk refused…): whole, in sight.
                note += f"\n[yellow]{escape(f'{key}: {notes.pop(key)}')}[/yellow]"
            if notes:
                facts = ", ".join(f"{k}={_short(v)}" for k, v in notes.items())
                note += "\n[dim]" + escape(facts) + "[/dim]"
            table.add_row(
                str(record.index),
                ", ".join(f"{k}={v}" for k, v in overrides.items()) or "defaults",
                f"[{_KIND_STYLE[kind]}]{kind}[/]",
                f"{record.latency_ms:.3f}",
                f"{record.trace_ms:.1f}",
                f"{record.lower_ms:.1f}",
                f"{record.compile_ms:.1f}",
                note,
            )
            live.refresh()


def _print_summary(run: Any, interrupted: bool) -> None:
    from rich.console import Console

    console = Console(width=None if sys.stdout.isatty() else 120)
    console.print()  # Live leaves the cursor on the table's last line when piped
    if interrupted:
        console.print("[yellow]interrupted (Ctrl-C): the calls made so far[/yellow]")
    s = run.summary()
    console.print(
        f"{s.calls} calls: {s.compiles} compile, {s.recompiles} recompile, "
        f"{s.cache_hits} cache hit, {s.persistent_hits} persistent hit, {s.errors} error · "
        f"hit rate {s.hit_rate:.0%} · time lost to compiling {s.time_lost_ms:.1f} ms"
    )


# -- jitlab open --------------------------------------------------------------------------
def cmd_open(args: argparse.Namespace) -> int:
    from pathlib import Path

    path = Path(args.recording)
    if path.is_dir():
        fail(f"open: {path} is a folder, not a recording")
    if not path.exists() and args.no_follow:
        fail(f"open: no such recording: {path}")
    from jitlab.gui.recording_window import open_recording

    # A missing file is waited for (a program about to write it); it never imports JAX.
    return open_recording(str(path), follow=not args.no_follow, language=args.lang)


# -- jitlab watch -------------------------------------------------------------------------
def cmd_watch(args: argparse.Namespace) -> int:
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
        with out.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        fail(f"watch: cannot write the recording {out}: {exc.strerror or exc}")

    from jitlab.core.watch import watch

    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = argv
    if program[0] != "-m":
        sys.path.insert(0, str(Path(target).resolve().parent))
    status = 0
    with watch(args.out, include_internal=args.include_internal):
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
    print_watch_summary(args.out)
    return status


def print_watch_summary(path: str) -> None:
    from rich.console import Console
    from rich.table import Table

    from jitlab.core.recording import read_recording, summarize

    recording, _ = read_recording(path)
    console = Console(stderr=True, width=None if sys.stderr.isatty() else 120)
    table = Table(title=f"jitlab watch · {path}")
    for column, justify in (
        ("function", "left"),
        ("compiles", "right"),
        ("recompiles", "right"),
        ("hits", "right"),
        ("ms compiling", "right"),
        ("signatures", "right"),
        ("what differed", "left"),
    ):
        last = column == "what differed"
        table.add_column(
            column,
            justify=justify,  # type: ignore[arg-type]
            overflow="fold",
            no_wrap=not last and column != "function",
            ratio=1 if last else None,
        )
    for s in summarize(recording):
        where = f"\n[dim]{s.defined_at}[/dim]" if s.defined_at else ""
        if s.internal:
            where = "\n[dim]eager op (JAX's own kernel)[/dim]"
        differed = "\n".join(f"{change} ×{n}" for change, n in s.changes.most_common(4))
        table.add_row(
            f"{s.function}{where}",
            str(s.executables),  # the recording window's "compiles": the same count
            str(s.recompiles),
            "-" if s.hits is None else str(s.hits),
            s.ms_text,
            str(len(s.signatures)) if s.signatures else "-",
            differed,
        )
    console.print(table)
    skipped = f"; {recording.skipped}" if recording.skipped else ""
    console.print(f"recording: {path} ({len(recording.calls)} compile lines{skipped})")


if __name__ == "__main__":
    raise SystemExit(main())
