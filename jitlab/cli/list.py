"""``jitlab list``: the scenarios, their variants and parameters (broken plugins in red)."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(commands: Any) -> argparse.ArgumentParser:
    return commands.add_parser("list", help="list scenarios with their variants and parameters")


def run(args: argparse.Namespace | None = None) -> int:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from jitlab.cli._usage import language, say
    from jitlab.lab.discovery import discover
    from jitlab.lab.manifest import stale_notice

    lang = language()
    table = Table(title=say("list.title"), show_lines=True)
    for column in ("col.scenario", "col.pitfall", "col.variants", "col.parameters"):
        table.add_column(say(column), overflow="fold")
    for entry in discover():
        error = entry.error
        if entry.scenario is not None:
            try:  # validated, yet a plugin's own code runs here: one row must not end the list
                table.add_row(*_row(entry.scenario, lang))
                continue
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"
        table.add_row(
            f"[red]{escape(entry.name)}[/red]",
            f"[red]{say('list.broken')}[/red]",
            "",
            escape(error or ""),
        )
    console = Console(soft_wrap=False)
    console.print(table)
    notice = stale_notice()  # the app's early list leaves such files out until JAX loads
    if notice is not None:
        console.print(f"[yellow]{escape(notice.get(lang))}[/yellow]", soft_wrap=True)
    return 0


def _row(cls: Any, lang: str) -> list[str]:
    """A scenario's row: id and title, chapter, variants, parameters (plain text escaped)."""
    from rich.markup import escape

    from jitlab.cli._usage import say
    from jitlab.records.messages import allowed_values

    params = "\n".join(
        say("list.param", name=p.name, default=p.default, allowed=allowed_values(p, lang))
        for p in cls.params
    )
    return [
        f"{escape(cls.id)}\n[dim]{escape(cls.title.get(lang))}[/dim]",
        escape(cls.chapter.title.get(lang)),
        escape(", ".join(cls.variant_ids())),
        escape(params) or "-",
    ]
