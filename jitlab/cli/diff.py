"""``jitlab diff BASE NEW``: does the new run compile more than the base run? (a CI guard)"""

from __future__ import annotations

import argparse
import math
from typing import Any

from jitlab.cli._usage import language, read_recording_or_fail, say

REGRESSION = 1  # exit status when the new run exceeds the tolerances


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "diff",
        help="compare two recordings of `jitlab watch`: exit 1 if the new one compiles more",
        description="Per function: programs compiled, time lost compiling, signatures added "
        "or gone, between a base recording and a new one. Exits 1 when the new run "
        "compiles more than the tolerances allow, 0 otherwise (2 for bad input).",
    )
    parser.add_argument("base", metavar="BASE", help="the recording to compare against")
    parser.add_argument("new", metavar="NEW", help="the recording to judge")
    parser.add_argument(
        "--max-extra-compiles",
        type=_count,
        default=0,
        metavar="N",
        help="compiles the new run may add over the whole run (default 0)",
    )
    parser.add_argument(
        "--max-extra-compile-ms",
        type=_ms,
        default=None,
        metavar="MS",
        help="milliseconds of compiling the new run may add (default: not checked, "
        "compile times are noisy)",
    )
    parser.add_argument(
        "--include-internal",
        action="store_true",
        help="also compare kernels JAX compiled for itself (eager ops)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    return parser


def _count(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(say("diff.bad_count", text=repr(text)))
    return int(text)


def _ms(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(say("diff.bad_ms", text=repr(text))) from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(say("diff.bad_finite", text=repr(text)))
    return value


def _read(path_text: str) -> Any:
    return read_recording_or_fail("diff", path_text)


def run(args: argparse.Namespace) -> int:
    from jitlab.cli._output import print_json
    from jitlab.cli.summary import _diagnosis_json  # one shape for a diagnosis in --json
    from jitlab.recordings.compare import compare
    from jitlab.records.persistent import compiled_json

    base, new = _read(args.base), _read(args.new)
    diff = compare(base, new, include_internal=args.include_internal)
    problems = diff.regressions(args.max_extra_compiles, args.max_extra_compile_ms)
    if args.json:
        data = diff.to_json()
        data["regressions"] = problems
        data["skipped_lines"] = {"base": base.bad_lines, "new": new.bad_lines}
        # A recording with no end line (or a last line cut off) holds only what was written.
        data["ended"] = {"base": base.ended, "new": new.ended}
        data["cut_off"] = {"base": base.partial_line, "new": new.partial_line}
        said, notes = _persistent(base, new)
        data["diagnoses"] = [_diagnosis_json(d) for d in said]
        # Loaded in one run, compiled in the other, the key unchanged or unread: what was seen.
        data["persistent"] = [{"base": compiled_json(b), "new": compiled_json(n)} for b, n in notes]
        print_json(data)  # valid UTF-8 whatever the names (a non-UTF-8 file's)
        return REGRESSION if problems else 0
    _print(diff, args, problems, base, new)
    return REGRESSION if problems else 0


def _print(diff: Any, args: argparse.Namespace, problems: list[str], base: Any, new: Any) -> None:
    from rich.markup import escape
    from rich.table import Table

    from jitlab.cli._tables import console_for, fitted, function_cell, shown
    from jitlab.records.messages import incomplete, skipped_lines

    console = console_for()
    table = Table(title=shown(say("diff.title", base=args.base, new=args.new)))  # a file's name
    table.add_column(say("col.function"), overflow="fold")
    table.add_column(say("col.compiles"), justify="right", no_wrap=True)
    table.add_column(say("col.ms_compiling"), justify="right", no_wrap=True)
    table.add_column(say("col.signatures_changed"), overflow="fold", ratio=1)
    colours = {"more": "red", "new": "red", "fewer": "green", "gone": "green", "same": "dim"}
    for f in diff.functions:
        colour = colours[f.status]
        opening, closing = ("（", "）") if language() == "zh" else (" (", ")")
        delta = f"[{colour}]{f.extra_compiles:+d}[/{colour}]"
        delta = f"{opening}{delta}{closing}" if f.extra_compiles else ""
        changes = [f"[red]+ {shown(s)}[/red]" for s in f.added[:6]]
        changes += [f"[green]- {shown(s)}[/green]" for s in f.gone[:6]]
        more = len(f.added) + len(f.gone) - len(changes)
        if more > 0:
            changes.append(f"[dim]{escape(say('n.more', n=more))}[/dim]")
        status = f.status if language() == "en" else say(f"diff.{f.status}")
        table.add_row(
            function_cell(f"{shown(f.function)} [{colour}]{status}[/{colour}]", f.defined_at),
            f"{f.base_compiles} → {f.new_compiles}{delta}",
            f"{f.base_ms:.1f} → {f.new_ms:.1f}",
            "\n".join(changes) or "-",
        )
    console.print(fitted(table, console))
    totals = say(
        "diff.totals",
        base=diff.base_compiles,
        new=diff.new_compiles,
        base_ms=f"{diff.base_ms:.1f}",
        new_ms=f"{diff.new_ms:.1f}",
    )
    colon = "：" if language() == "zh" else ": "
    for name, recording in (("diff.base", base), ("diff.new_run", new)):
        if recording.bad_lines:
            skipped = skipped_lines(recording.bad_lines, language(), recording.long_lines)
            console.print(f"[yellow]{escape(say(name) + colon + skipped)}[/yellow]")
        # Cut short (killed, os._exit, still running): compared as far as it was written.
        cut = incomplete(recording.ended, recording.partial_line, language())
        if cut:
            console.print(f"[yellow]{escape(say(name) + colon + cut)}[/yellow]")
    _print_persistent(console, base, new)
    if problems:
        console.print(f"[bold red]{say('diff.regression')}[/bold red]{colon}{escape(totals)}")
        for problem in _in_language(problems, diff, args):
            console.print(f"  [red]{shown(problem)}[/red]")  # names the functions
    else:
        console.print(f"[green]{say('diff.ok')}[/green]{colon}{escape(totals)}")


def _in_language(problems: list[str], diff: Any, args: argparse.Namespace) -> list[str]:
    """The regressions :meth:`~jitlab.recordings.compare.Diff.regressions` found, in the command's
    language (English: its own words; else said again from the same counts)."""
    if language() == "en":
        return problems
    found = []
    extra = diff.new_compiles - diff.base_compiles
    if extra > args.max_extra_compiles:
        worse = [
            f"{f.function} +{f.extra_compiles}" for f in diff.functions if f.extra_compiles > 0
        ]
        found.append(
            say(
                "diff.extra_compiles",
                n=extra,
                new=diff.new_compiles,
                base=diff.base_compiles,
                allowed=args.max_extra_compiles,
                worse=", ".join(worse),
            )
        )
    extra_ms = diff.new_ms - diff.base_ms
    if args.max_extra_compile_ms is not None and extra_ms > args.max_extra_compile_ms:
        found.append(
            say(
                "diff.extra_ms",
                ms=f"{extra_ms:.1f}",
                new=f"{diff.new_ms:.1f}",
                base=f"{diff.base_ms:.1f}",
                allowed=f"{args.max_extra_compile_ms:g}",
            )
        )
    return found


def _persistent(base: Any, new: Any) -> tuple[list[Any], list[tuple[Any, Any]]]:
    """persistent-key-changed: a function's signature one run loaded from the persistent
    cache (or wrote to it) and the other compiled, under two keys JAX logged; the other such
    pairs (the same key, or a key JAX did not log) as notes of what was seen."""
    from jitlab.records.diagnoses import Diagnosis
    from jitlab.records.persistent import (
        PERSISTENT_KEY_CHANGED,
        compiled_fates,
        key_changed_figures,
        mismatches,
    )

    said, notes = [], []
    for b, n in mismatches(compiled_fates(base.calls), compiled_fates(new.calls)):
        if b[3].key and n[3].key and b[3].key != n[3].key:
            figures = key_changed_figures(b, n)
            said.append(Diagnosis(PERSISTENT_KEY_CHANGED, n[0], n[1], figures))
        else:
            notes.append((b, n))
    return said, notes


def _print_persistent(console: Any, base: Any, new: Any) -> None:
    from rich.markup import escape

    from jitlab.cli._tables import shown
    from jitlab.records.diagnoses import listed_line
    from jitlab.records.persistent import mismatch_note

    said, notes = _persistent(base, new)
    if not said and not notes:
        return
    lang = language()
    console.print(f"[bold yellow]{escape(say('diagnosis.title'))}[/bold yellow]")
    for d in said:
        line = listed_line(d, lang)
        console.print(f"  [yellow]{shown(line)}[/yellow]", soft_wrap=True)
    for b, n in notes:
        console.print(f"  [yellow]{shown(mismatch_note(b, n, lang))}[/yellow]", soft_wrap=True)
