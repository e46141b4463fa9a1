"""``jitlab list``: the scenarios, their variants and parameters (broken plugins in red)."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(commands: Any) -> argparse.ArgumentParser:
    return commands.add_parser("list", help="list scenarios with their variants and parameters")


def run(args: argparse.Namespace | None = None) -> int:
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
