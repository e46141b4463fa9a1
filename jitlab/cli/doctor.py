"""``jitlab doctor``: this installation and jitlab's contract with the installed JAX, as a table.

What a user pastes into a bug report: jitlab's, JAX's and jaxlib's versions, the backend and
its devices, Python, Qt and the platform, then each item of the start-up check
(:mod:`jitlab.probe.contract`) ok / missing / changed. Qt is loaded for real, in a fresh
interpreter (:func:`jitlab.cli._qt.load_problem`): an installed PySide6 that cannot load (a
bare server's missing libEGL) is said with the library to install. Exit status 1 when any
item is off.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import platform
import sys
from collections import Counter
from typing import Any

from jitlab.cli._usage import say


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "doctor",
        help="check this installation and jitlab's contract with the installed JAX",
        description="Print jitlab's, JAX's and jaxlib's versions, the backend, its devices, "
        "Python, Qt and the platform, then each item of jitlab's start-up check of JAX "
        "(ok, missing or changed). Exits with 1 when something is off: paste it into a bug "
        "report.",
    )
    parser.add_argument("--json", action="store_true", help="print the check as JSON")
    return parser


def installed_version(distribution: str) -> str | None:
    """A distribution's version from its metadata (nothing imported), None if not installed."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def jitlab_version() -> str:
    from jitlab._version import __version__

    return installed_version("jitlab") or __version__


_ROW_WORDS = {"backend", "devices", "platform"}


def refused_line(report: Any) -> str:
    """The one line every command that would probe prints when the check fails (in the
    command's language)."""
    from jitlab.cli._usage import language

    return str(report.line(language()))


def environment() -> dict[str, str | None]:
    """Versions and the machine, as a bug report wants them (None: not installed / unknown)."""
    found: dict[str, str | None] = {
        "jitlab": jitlab_version(),
        "JAX": installed_version("jax"),
        "jaxlib": installed_version("jaxlib"),
        "backend": None,
        "devices": None,
        "Python": f"{platform.python_implementation()} {platform.python_version()}",
        "Qt": None,
        "platform": platform.platform(),
    }
    pyside = installed_version("PySide6") or installed_version("PySide6-Essentials")
    found["Qt"] = f"PySide6 {pyside}" if pyside else None
    try:
        import jax

        found["JAX"] = found["JAX"] or str(jax.__version__)
        found["backend"] = str(jax.default_backend())
        kinds = Counter(
            d.platform if d.device_kind == d.platform else f"{d.platform} ({d.device_kind})"
            for d in jax.devices()
        )
        found["devices"] = ", ".join(f"{n} × {kind}" for kind, n in kinds.items())
    except Exception as exc:  # a broken install is what doctor is for: say it, go on
        found["backend"] = f"{type(exc).__name__}: {exc}"[:200]
    return found


def run(args: argparse.Namespace) -> int:
    from jitlab.cli._qt import load_problem
    from jitlab.cli._usage import language
    from jitlab.probe.contract import check, item_words, supported_text

    lang = language()

    found = environment()
    qt_problem = load_problem() if found["Qt"] is not None else None
    report = check()
    ok = report.ok and qt_problem is None
    if getattr(args, "json", False):
        qt = {"loads": found["Qt"] is not None and qt_problem is None, "problem": qt_problem}
        body = {"environment": found, "qt": qt, "contract": report.to_json()}
        print(json.dumps(body, ensure_ascii=False, indent=1))
        return 0 if ok else 1

    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(soft_wrap=False)
    about = Table(title=say("doctor.title"), show_header=True)
    about.add_column(say("doctor.col.item"))
    about.add_column(say("doctor.col.value"), overflow="fold")
    for name, value in found.items():
        shown = (
            value
            if value is not None
            else say(
                "doctor.not_installed" if name in ("Qt", "JAX", "jaxlib") else "doctor.unknown"
            )
        )
        label = say(f"doctor.row.{name}") if name in _ROW_WORDS else name
        if name == "Qt" and qt_problem is not None:
            about.add_row(label, f"[red]{escape(say('doctor.qt_broken', version=shown))}[/red]")
            continue
        about.add_row(label, escape(shown))
    console.print(about)
    contract = Table(show_header=True)
    contract.add_column(say("doctor.col.check"), overflow="fold")
    contract.add_column(say("doctor.col.status"))
    contract.add_column(say("doctor.col.detail"), overflow="fold")
    for item in report.items:
        colour = "green" if item.status == "ok" else "red"
        word = say("contract." + item.status)
        name = escape(item_words(item.name, lang))
        contract.add_row(name, f"[{colour}]{word}[/{colour}]", escape(item.words(lang)))
    console.print(contract)
    if ok:
        console.print(say("doctor.all_ok"))
        return 0
    if qt_problem is not None:  # the library to install, in one line
        console.print(f"[red]{escape(qt_problem)}[/red]")
    if not report.ok:
        console.print(say("doctor.not_ok", n=len(report.problems), window=supported_text()))
        print(refused_line(report), file=sys.stderr)
    return 1
