"""The ``jitlab`` command: the desktop app by default, plus one module per subcommand.

Each of :mod:`~jitlab.cli.list`, :mod:`~jitlab.cli.run`, :mod:`~jitlab.cli.watch`,
:mod:`~jitlab.cli.open`, :mod:`~jitlab.cli.diff`, :mod:`~jitlab.cli.summary`,
:mod:`~jitlab.cli.quiz`, :mod:`~jitlab.cli.notebook` and :mod:`~jitlab.cli.explain` has
``add_parser(commands)`` and ``run(args) -> int``. Importing them is cheap (no JAX, no Qt):
`jitlab` builds its parser before the desktop window shows, and JAX must not load first.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from jitlab.cli._streams import degrade_unencodable, is_reader_gone, reader_left
from jitlab.cli._usage import USAGE_ERROR, UsageParser, fail, language_in, say, set_language

__all__ = ["USAGE_ERROR", "build_parser", "fail", "main"]

# In the order `jitlab --help` lists them. (Inside this file the submodules `list` and `open`
# become package attributes that shadow the builtins: neither builtin is used here.)
LANG_HELP = "interface language: en (default) or zh (tables, summaries, errors, the report)"

COMMANDS = (
    "list",
    "run",
    "watch",
    "open",
    "diff",
    "summary",
    "report",
    "quiz",
    "notebook",
    "check",
    "doctor",
    "explain",
)
# The commands that run JAX and probe: refused in one line on a JAX jitlab cannot see.
PROBING = ("run", "quiz", "check")


def build_parser() -> argparse.ArgumentParser:
    parser = UsageParser(
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
    parser.add_argument("--lang", choices=("en", "zh"), help=LANG_HELP)
    parser.add_argument(
        "--version", action=_Versions, nargs=0, help="print jitlab's, JAX's and jaxlib's versions"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=UsageParser)
    for name in COMMANDS:
        command = _command(name).add_parser(commands)
        # `jitlab report --lang zh …` as well as `jitlab --lang zh report …`; SUPPRESS keeps a
        # --lang given to the main command. (quiz has its own: the conflict is suppressed.)
        with contextlib.suppress(argparse.ArgumentError):
            command.add_argument(
                "--lang", choices=("en", "zh"), default=argparse.SUPPRESS, help=LANG_HELP
            )
    return parser


class _Versions(argparse.Action):
    """``jitlab --version``: read from the installed metadata, JAX not imported."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from jitlab.cli.doctor import installed_version, jitlab_version

        jax, jaxlib = installed_version("jax"), installed_version("jaxlib")
        print(f"jitlab {jitlab_version()} (JAX {jax or '-'}, jaxlib {jaxlib or '-'})")
        parser.exit()


def _command(name: str) -> ModuleType:
    return importlib.import_module(f"jitlab.cli.{name}")


def main(argv: Sequence[str] | None = None) -> int:
    # Every command's own streams (see jitlab.cli._streams): what an ASCII console cannot
    # show is written as a stand-in, and a reader that left (`| head -1`) ends it quietly
    # with 141, as a shell shows a writer SIGPIPE killed, never with a status of its own.
    streams = _Streams()
    try:
        status = _main(argv, streams)
        out = sys.stdout
        if streams.ours and out is not None and not out.closed:
            out.flush()  # a reader that left is met here, not in the interpreter's last flush
        return status
    except (BrokenPipeError, SystemExit) as exc:
        if not is_reader_gone(exc):
            raise
        return reader_left()
    finally:  # main() called in a process that goes on (tests): back to the default
        streams.give_back()
        set_language(None)


def _say_ignored_floor() -> None:
    """A ``JITLAB_SITE_COST_FLOOR_MS`` jitlab cannot use is said once, before the command
    (the default floor is used), never ignored in silence."""
    from jitlab.cli._usage import language
    from jitlab.records.site_costs import floor_ignored

    said = floor_ignored(language())
    if said is not None:
        print(said, file=sys.stderr)


class _Streams:
    def __init__(self) -> None:
        self.give_back = degrade_unencodable()
        self.ours = True

    def to_program(self) -> None:
        """``jitlab watch``: the program's stdout and stderr behave as under plain python."""
        self.give_back()
        self.ours = False


def _main(argv: Sequence[str] | None, streams: _Streams) -> int:
    # The language first, from the raw arguments: argparse's own errors are said in it.
    set_language(language_in(sys.argv[1:] if argv is None else argv))
    args = build_parser().parse_args(argv)
    set_language(getattr(args, "lang", None))  # English unless --lang says otherwise
    if args.command in ("watch", "open", "diff", "summary", "report"):
        _say_ignored_floor()
    if args.command in ("watch", "open", "diff", "summary", "report", "doctor"):
        # watch: the user's program keeps its own devices (and its backend: the check of JAX
        # starts none there); doctor shows the real ones; the others never import JAX.
        if args.command == "watch":
            streams.to_program()
            return _refused_or(args, compile=False)
        return _command(args.command).run(args)
    if args.command is None:  # a mistyped --scenario is said before any window opens
        _known_scenario_or_fail(args.scenario)
    # The sharding lessons need several devices; XLA only reads this before it starts.
    from jitlab.probe.devices import simulate_cpu_devices

    simulate_cpu_devices(8)
    if args.command is not None:
        return _refused_or(args, compile=True)
    return open_app(args)


def _refused_or(args: argparse.Namespace, *, compile: bool) -> int:
    """Run the command, unless jitlab's check of the installed JAX fails: then one line
    naming the JAX version and what is missing, and exit status 1 (never a guess)."""
    from jitlab.cli._output import machine_output
    from jitlab.probe.contract import JaxContractError, check

    # watch checks JAX itself: in a child, or here where the program will run here
    report = check(compile=compile) if args.command in PROBING else None
    try:
        if report is not None and not report.ok:
            raise JaxContractError(report)
        with machine_output(bool(getattr(args, "json", False))):
            return _command(args.command).run(args)
    except JaxContractError as exc:
        from jitlab.cli.doctor import refused_line

        print(refused_line(exc.report), file=sys.stderr)
        return 1


def _known_scenario_or_fail(scenario: str | None) -> None:
    """``jitlab --scenario nope``: a usage error naming the nearest ids, not the default
    scenario opened in silence. The built-ins' ids come from the manifest (no JAX); an id
    it lacks (a plugin's, a changed file's) is looked for in the full discovery."""
    if scenario is None:
        return
    from jitlab.lab import manifest

    ids = [listing.id for listing in manifest.listed()]
    if scenario in ids:
        return
    from jitlab.lab.discovery import scenarios

    ids = sorted(set(ids) | set(scenarios()))
    if scenario in ids:
        return
    import difflib

    near = difflib.get_close_matches(scenario, ids, n=3, cutoff=0.5)
    if near:
        fail(say("usage.scenario_near", scenario=repr(scenario), near=", ".join(near)))
    fail(say("usage.scenario_unknown", scenario=repr(scenario), valid=", ".join(ids)))


# -- jitlab (the desktop app) -------------------------------------------------------------
def open_app(args: argparse.Namespace) -> int:
    from jitlab.cli._qt import qt_or_exit

    try:
        with qt_or_exit():  # a bare server: one line naming the missing library
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
