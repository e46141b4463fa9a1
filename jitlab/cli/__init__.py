"""The ``jitlab`` command: the desktop app by default, plus one module per subcommand.

Each of :mod:`~jitlab.cli.list`, :mod:`~jitlab.cli.run`, :mod:`~jitlab.cli.watch`,
:mod:`~jitlab.cli.open`, :mod:`~jitlab.cli.diff`, :mod:`~jitlab.cli.summary` and
:mod:`~jitlab.cli.quiz` has
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

from jitlab.cli._usage import USAGE_ERROR, UsageParser, fail, language_in, set_language

__all__ = ["USAGE_ERROR", "build_parser", "fail", "main"]

# In the order `jitlab --help` lists them. (Inside this file the submodules `list` and `open`
# become package attributes that shadow the builtins: neither builtin is used here.)
LANG_HELP = "interface language: en (default) or zh (tables, summaries, errors, the report)"

COMMANDS = ("list", "run", "watch", "open", "diff", "summary", "report", "quiz")


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


def _command(name: str) -> ModuleType:
    return importlib.import_module(f"jitlab.cli.{name}")


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # `jitlab run … --json | head`: the reader left, nothing to say
        sys.stderr.close()
        return 0
    finally:  # main() called in a process that goes on (tests): back to the default
        set_language(None)


def _main(argv: Sequence[str] | None = None) -> int:
    # The language first, from the raw arguments: argparse's own errors are said in it.
    set_language(language_in(sys.argv[1:] if argv is None else argv))
    args = build_parser().parse_args(argv)
    set_language(getattr(args, "lang", None))  # English unless --lang says otherwise
    if args.command in ("watch", "open", "diff", "summary", "report"):
        # watch: the user's program keeps its own devices; the others never import JAX.
        return _command(args.command).run(args)
    # The sharding lessons need several devices; XLA only reads this before it starts.
    from jitlab.probe.devices import simulate_cpu_devices

    simulate_cpu_devices(8)
    if args.command is not None:
        return _command(args.command).run(args)
    return open_app(args)


# -- jitlab (the desktop app) -------------------------------------------------------------
def open_app(args: argparse.Namespace) -> int:
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
