"""``jitlab summary run.p*.jsonl``: the processes of one job side by side, and where they
compiled differently."""

from __future__ import annotations

import argparse
from typing import Any

from jitlab.cli._usage import fail, language, read_recording_or_fail, say
from jitlab.records.messages import processes_text
from jitlab.records.persistent import compiled_fates, compiled_json

DIVERGED = 1  # exit status when the processes did not compile the same programs


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "summary",
        help="merge the per-process recordings of a job: jitlab summary run.p*.jsonl",
        description="Per function, one row per process: programs compiled, cache hits, time "
        "lost compiling, signatures. Names every divergence: a signature some processes "
        "compiled and others did not, or a different number of compiles; with the "
        "process, the call and the differing fields of the first. Exits 1 when the "
        "processes diverged, 0 otherwise (2 for bad input).",
    )
    parser.add_argument(
        "recordings",
        nargs="+",
        metavar="RECORDING",
        help="recordings of `jitlab watch`, one per process (run.p0.jsonl run.p1.jsonl …)",
    )
    parser.add_argument(
        "--include-internal",
        action="store_true",
        help="also compare kernels JAX compiled for itself (eager ops)",
    )
    parser.add_argument(
        "--persistent",
        action="store_true",
        help="also each compile's fate in JAX's persistent cache (written, not written and "
        "why, loaded) and whether a rerun would load it",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    return parser


def run(args: argparse.Namespace) -> int:
    from jitlab.cli._output import print_json
    from jitlab.recordings.processes import merge, process_of

    recordings = [read_recording_or_fail("summary", path) for path in args.recordings]
    indexed = [
        (process_of(recording, path, position), recording)
        for position, (path, recording) in enumerate(zip(args.recordings, recordings, strict=True))
    ]
    try:
        merged = merge(indexed, include_internal=args.include_internal)
    except ValueError as exc:
        indices = [index for index, _ in indexed]
        twice = sorted({i for i in indices if indices.count(i) > 1})
        if not twice:
            fail(say("summary.failed", error=exc))
        fail(say("summary.same_process", processes=processes_text(twice, language())))
    status = DIVERGED if merged.divergences else 0
    if args.json:
        data = merged.to_json()
        data["files"] = {
            str(index): path for (index, _), path in zip(indexed, args.recordings, strict=True)
        }
        data["skipped_lines"] = {str(index): r.bad_lines for index, r in indexed}
        # Whether each ended (an end line) and whether its last line was cut off mid-write.
        data["ended"] = {str(index): r.ended for index, r in indexed}
        data["cut_off"] = {str(index): r.partial_line for index, r in indexed}
        # What each recording noted of itself (listeners_removed: its counts may be short).
        data["notices"] = {
            str(index): list(r.notice_counts) for index, r in indexed if r.notice_counts
        }
        # Diagnoses (recompile-limit, …): each one's stable id, function, site and figures.
        data["diagnoses"] = {
            str(index): [_diagnosis_json(d) for d in r.every_diagnosis()] for index, r in indexed
        }
        # call-site-cost: compile cost per calling line, ranked (from the call lines).
        data["call_sites"] = {str(index): _call_sites_json(r) for index, r in indexed}
        if args.persistent:  # each compile's fate, and "would a rerun hit?" (yes/no/unknown)
            data["persistent"] = {
                str(index): [compiled_json(c, rerun=True) for c in compiled_fates(r.calls)]
                for index, r in indexed
            }
        print_json(data)  # valid UTF-8 whatever the names (a non-UTF-8 file's)
        return status
    _print(merged, indexed)
    if args.persistent:
        _print_persistent(indexed)
    return status


def _print_persistent(indexed: list[tuple[int, Any]]) -> None:
    """Per compile: its fate in the persistent cache and whether a rerun would load it."""
    from rich.markup import escape

    from jitlab.cli._tables import console_for, prose
    from jitlab.records import messages
    from jitlab.records.persistent import outcome_text

    console, lang = console_for(), language()
    console.print(f"[bold]{escape(messages.say('persistent.title', lang))}[/bold]")
    colours = {"yes": "green", "no": "red", "unknown": "yellow"}
    for index, recording in indexed:
        found = compiled_fates(recording.calls)
        if not found:
            line = messages.say("persistent.none", lang)
        for function, defined_at, signature, fate in found:
            where = f"{function} ({defined_at})" if defined_at else function
            line = messages.say(
                "persistent.row",
                lang,
                function=where,
                signature=signature or "?",
                outcome=outcome_text(fate.outcome, fate.why, fate.figures, lang),
                rerun=messages.say(f"persistent.rerun.{fate.rerun}", lang),
            )
            if len(indexed) > 1:
                line = messages.say("diagnosis.process", lang, index=index, line=line)
            colour = colours[fate.rerun]
            console.print(prose(line, colour, indent=2))
        if not found:
            if len(indexed) > 1:
                line = messages.say("diagnosis.process", lang, index=index, line=line)
            console.print(f"  [yellow]{escape(line)}[/yellow]", overflow="fold")


def _print(merged: Any, indexed: list[tuple[int, Any]]) -> None:
    from rich.markup import escape
    from rich.table import Table

    from jitlab.cli._tables import console_for, fitted, function_cell, prose, shown
    from jitlab.cli._usage import language
    from jitlab.records import messages

    console = console_for()
    lang = language()
    processes = messages.say("n.processes", lang, n=len(merged.processes))
    table = Table(title=escape(messages.say("summary.title", lang, processes=processes)))
    table.add_column(messages.say("col.function", lang), overflow="fold")
    table.add_column(messages.say("col.process", lang), justify="right", no_wrap=True)
    for column in (
        "col.compiles",
        "col.recompiles",
        "col.hits",
        "col.ms_compiling",
        "col.signatures",
    ):
        table.add_column(messages.say(column, lang), justify="right", no_wrap=True)
    diverged = {(d.function, d.defined_at) for d in merged.divergences}
    for f in merged.functions:
        colour = "red" if (f.function, f.defined_at) in diverged else "default"
        head = f"[{colour}]{shown(f.function)}[/{colour}]"
        for row, (process, s) in enumerate(sorted(f.per_process.items())):
            name = function_cell(head, f.defined_at) if row == 0 else ""
            cells = ("0", "0", "-", "0.0", "-")  # never ran in this process
            if s is not None:
                hits = "-" if s.hits is None else str(s.hits)
                signatures = str(len(s.signatures)) if s.signatures else "-"
                cells = (str(s.executables), str(s.recompiles), hits, s.ms_text, signatures)
            table.add_row(name, str(process), *cells, end_section=row == len(f.per_process) - 1)
    console.print(fitted(table, console))
    for index, recording in indexed:
        if recording.bad_lines:
            skipped = messages.skipped_lines(recording.bad_lines, lang, recording.long_lines)
            line = messages.say("summary.process_skipped", lang, index=index, skipped=skipped)
            console.print(f"[yellow]{escape(line)}[/yellow]")
    for index, recording in indexed:  # an abrupt end is said, never passed off as complete
        cut = messages.incomplete(recording.ended, recording.partial_line, lang)
        if cut:
            line = messages.say("summary.process_skipped", lang, index=index, skipped=cut)
            console.print(f"[yellow]{escape(line)}[/yellow]")
    for index, recording in indexed:  # counts that may be short are said so
        noticed = messages.notice_texts(
            recording.notices, lang, recording.notice_counts, recording.notice_details
        )
        for notice in noticed:
            line = messages.say("summary.notice", lang, index=index, notice=notice)
            console.print(f"[yellow]{shown(line)}[/yellow]")  # a newer jitlab's, as it is
    _print_call_sites(console, indexed, lang)
    print_diagnoses(console, indexed, lang)
    colon = "：" if lang == "zh" else ":"
    if merged.divergences:
        count = messages.say("n.divergences", lang, n=len(merged.divergences))
        console.print(f"[bold red]{count}[/bold red]{colon}")
        for d in merged.divergences:
            console.print(prose(messages.divergence_text(d, lang), "red", indent=2))
    else:
        same = messages.say("summary.same", lang)
        colon = "：" if lang == "zh" else ": "
        console.print(f"[green]{messages.say('diff.ok', lang)}[/green]{colon}{escape(same)}")


def _diagnosis_json(diagnosis: Any) -> dict[str, Any]:
    from jitlab.records.diagnoses import explain_command, page

    data: dict[str, Any] = diagnosis.to_json()
    del data["type"]
    data["page"] = page(diagnosis.id)
    data["explain"] = explain_command(diagnosis.id)  # prints the page, wherever jitlab is
    data["problem"] = diagnosis.problem  # False: shown for information, nothing to fix
    return data


def print_diagnoses(console: Any, indexed: list[tuple[int, Any]], lang: str) -> None:
    """Each diagnosis in one line: its id, one sentence and the command that prints its page
    (process i: … in a job); the problems first, then those for information. Any id, a newer
    jitlab's too (its id and command); ``watch``'s end table uses it as well."""
    from rich.markup import escape

    from jitlab.cli._tables import prose
    from jitlab.records import messages
    from jitlab.records.diagnoses import listed_line

    found = [(index, d) for index, recording in indexed for d in recording.every_diagnosis()]
    if not found:
        return
    found.sort(key=lambda pair: not pair[1].problem)  # stable: problems first, in order
    console.print(f"[bold yellow]{escape(messages.say('diagnosis.title', lang))}[/bold yellow]")
    for index, d in found:
        line = listed_line(d, lang)
        if len(indexed) > 1:
            line = messages.say("diagnosis.process", lang, index=index, line=line)
        # Wrapped to the terminal's width at spaces and a path's "/", never in a file:line.
        console.print(prose(line, "yellow", indent=2))


def _call_sites_json(recording: Any) -> dict[str, Any]:
    """Every call site ranked (``sites``) and the costly ones stated (``diagnoses``)."""
    from jitlab.records.site_costs import call_paths, site_cost_diagnoses, site_costs

    return {
        "id": "call-site-cost",
        "sites": [
            {**cost.figures(), "function": cost.function, "defined_at": cost.defined_at}
            for cost in site_costs(recording.calls)
        ],
        "diagnoses": [_diagnosis_json(d) for d in site_cost_diagnoses(recording.calls)],
        # The trie of the lines that led to each call site (compiles that recorded them).
        "paths": [
            {"depth": depth, "site": n.site, "compiles": n.compiles, "ms": round(n.ms, 4)}
            for depth, n in call_paths(recording.calls)
        ],
    }


def _print_call_sites(console: Any, indexed: list[tuple[int, Any]], lang: str) -> None:
    """call-site-cost: the call sites of the compiles, costliest first, one row each (the
    costly ones are stated with the other diagnoses)."""
    from rich.console import RenderableType
    from rich.markup import escape
    from rich.table import Table

    from jitlab.cli._tables import Location, fitted, prose, shown
    from jitlab.records import messages
    from jitlab.records.site_costs import LISTED, listed_sites, path_lines, site_cells, site_heads

    ranked = [(i, listed_sites(recording.calls)) for i, recording in indexed]
    if not any(costs for _, costs in ranked):
        return
    title = messages.say("diagnosis.call_site_cost.title", lang)
    table = Table(title=escape(title), title_justify="left", title_style="bold yellow")
    several = len(indexed) > 1
    if several:
        table.add_column(messages.say("col.process", lang), justify="right")
    for n, head in enumerate(site_heads(lang)):
        table.add_column(escape(head), justify="right" if n in (1, 2, 3) else "left")
    for index, costs in ranked:
        for cost in costs[:LISTED]:
            cells: list[RenderableType] = [shown(c) for c in site_cells(cost, lang)]
            if cost.called_from:  # a place: never broken inside its file:line
                cells[0] = Location(cost.called_from, style="")
            table.add_row(*([str(index)] if several else []), *cells)
        if len(costs) > LISTED:
            table.add_row(escape(messages.say("n.more", lang, n=len(costs) - LISTED)))
    console.print(fitted(table, console))
    for index, recording in indexed:  # a helper called from several places: its callers
        lines = path_lines(recording.calls, lang)
        if lines and len(indexed) > 1:
            lines[0] = messages.say("diagnosis.process", lang, index=index, line=lines[0])
        for line in lines:
            console.print(prose(line))
