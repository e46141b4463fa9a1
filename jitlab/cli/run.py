"""``jitlab run SCENARIO``: one probed call per parameter value, as a live table or JSON lines."""

from __future__ import annotations

import argparse
import dataclasses
import signal
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from jitlab.cli._usage import fail, language, say
from jitlab.records import messages


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "run",
        help="run a scenario in the terminal, one probed call per parameter value",
        description="Run SCENARIO once per value of --param (other parameters at their "
        "defaults). Without --param, plays the scenario's autoplay demo.",
    )
    parser.add_argument("scenario", metavar="SCENARIO")
    parser.add_argument("--variant", default="pitfall", help="pitfall, fix, … (default: pitfall)")
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=V1,V2,...",
        help="a parameter and the sequence of values to call with (repeatable)",
    )
    parser.add_argument(
        "--json", action="store_true", help="one JSON object per call, then a summary"
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="run the pitfall and the fix on the lesson's own call sequence (or on --param's) "
        'and print the lesson\'s verdict (with --json: the last line is {"compare": …}); '
        "--variant picks another face of the pitfall",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="each reason in full: a pytree that changed structure shows both sub-trees "
        "whole (shortened otherwise; --json always has them whole)",
    )
    parser.add_argument(
        "--script",
        choices=SCRIPT_PARTS,
        metavar="PART",
        help="print the program JAX compiled at each compile: "
        f'{", ".join(SCRIPT_PARTS)} (with --json: under "script" in the call\'s object)',
    )
    return parser


# The parts of a script (jitlab.probe.scripts.PARTS, named here: the parser imports no JAX).
SCRIPT_PARTS = ("jaxpr", "stablehlo", "hlo", "figures", "source")


def parse_sequences(scenario: Any, specs: list[str]) -> list[dict[str, Any]]:
    """``["batch_size=8,16", "depth=2"]`` → one overrides dict per call (length-1 broadcasts)."""
    sequences: dict[str, list[Any]] = {}
    for spec in specs:
        name, sep, values = spec.partition("=")
        name = name.strip()
        if not sep or not values.strip():
            fail(say("usage.param_form", spec=repr(spec)))
        if name in sequences:
            fail(say("usage.param_twice", name=name))
        try:
            param = scenario.param(name)
        except KeyError:
            names = ", ".join(p.name for p in scenario.params) or say("usage.none")
            fail(say("usage.param_unknown", name=repr(name), scenario=scenario.id, valid=names))
        parsed = []
        for v in values.split(","):
            try:
                parsed.append(param.parse(v))
            except ValueError as exc:
                if language() == "en":
                    fail(str(exc))  # the parameter's own words
                allowed = messages.allowed_values(param, language())
                fail(say("usage.param_value", name=name, allowed=allowed, value=repr(v.strip())))
        sequences[name] = parsed
    if not sequences:
        return []
    length = max(len(v) for v in sequences.values())
    for name, sequence in sequences.items():
        if len(sequence) not in (1, length):
            fail(say("usage.param_lengths", name=name, n=len(sequence), length=length))
    return [
        {name: values[i if len(values) > 1 else 0] for name, values in sequences.items()}
        for i in range(length)
    ]


def run(args: argparse.Namespace) -> int:
    from jitlab.lab.discovery import discover, scenarios

    entries = discover()
    available = scenarios(entries)
    scenario = available.get(args.scenario)
    if scenario is None:
        broken = {e.name: e.error for e in entries if not e.ok}
        if args.scenario in broken:
            fail(
                say(
                    "usage.scenario_broken",
                    scenario=repr(args.scenario),
                    error=broken[args.scenario],
                )
            )
        fail(
            say("usage.scenario_unknown", scenario=repr(args.scenario), valid=", ".join(available))
        )
    if args.variant not in scenario.variant_ids():
        valid = ", ".join(scenario.variant_ids())
        fail(
            say(
                "usage.variant_unknown",
                variant=repr(args.variant),
                scenario=scenario.id,
                valid=valid,
            )
        )
    calls = parse_sequences(scenario, args.param)
    if getattr(args, "compare", False):
        return compare(scenario, args.variant, calls, args.json)
    if not calls:
        # The variant's own demo beats if it has some, else the scenario's shared ones.
        beats: dict[str | None, list[dict[str, Any]]] = {}
        for beat in scenario.autoplay:
            beats.setdefault(beat.variant, []).append(dict(beat.params))
        calls = beats.get(args.variant) or beats.get(None) or [{}]

    from jitlab.cli._output import print_json
    from jitlab.lab.engine import Run
    from jitlab.records.change_words import call_json

    run = Run(scenario, args.variant)
    with _first_ctrl_c_stops_between_calls() as stop:
        try:
            if args.json:
                for overrides in _until(stop, calls):
                    record = run.step(overrides)
                    line = call_json(record)
                    if args.script:
                        script = _script_of(run, record)
                        if script is not None:
                            line["script"] = script.to_json((args.script,))
                    print_json(line)
            elif args.script:
                _print_scripts(run, _until(stop, calls), args.script)
            else:
                _print_table(run, _until(stop, calls), language(), full=args.verbose)
        except KeyboardInterrupt:  # the second Ctrl-C: stop inside the call
            stop.set()
    # Ctrl-C: the calls made so far stand; say so, summarise, and exit as a shell expects.
    interrupted = stop.is_set()
    if args.json:
        summary = run.summary().to_json()
        # One meaning of "compiles" everywhere: every program compiled; "recompiles" says
        # how many of those were compiled again (as --compare, watch, summary and diff count).
        summary["compiles"] += summary["recompiles"]
        if interrupted:
            summary["interrupted"] = True
        print_json({"summary": summary})
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
        print(say("run.stopping"), file=sys.stderr)

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


def _script_of(run: Any, record: Any) -> Any:
    """The script of the card this call compiled; None for a call that compiled nothing."""
    probe = run.last_probe
    if probe is None or not record.kind.compiled or record.card is None:
        return None
    return probe.script(record.card)


def _print_scripts(run: Any, calls: Iterable[dict[str, Any]], part: str) -> None:
    """One line per call; under each compile, the part of its script (plain text: grep it)."""
    from jitlab.lab.spec import values_text

    for overrides in calls:
        record = run.step(overrides)
        params = values_text(run.scenario_cls.params, overrides, language()) or say("run.defaults")
        kind = record.kind.value  # English: as the JSON names it (grep for it); else by name
        kind = kind if language() == "en" else messages.kind_name(kind, language())
        head = say("run.script_call", index=record.index, params=params, kind=kind)
        if record.card is not None:
            head += say("run.script_card", card=record.card)
        if record.error:
            head += f" ({record.error.type})"
        print(head, flush=True)
        script = _script_of(run, record)
        if script is None:
            continue
        print(
            say(
                "run.script_head",
                part=part,
                function=script.function,
                card=script.card,
                signature=script.signature,
            )
        )
        print(script.text(part))
        for note in script.notes:
            print(say("run.script_note", note=messages.reword(note, language(), "script.")))
        print(flush=True)


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
    "traced": "dim",
}


# The call table's columns: its heading (a messages key, "#" as it is) and justification.
CALL_COLUMNS = (
    ("#", "right"),
    ("col.params", "left"),
    ("col.kind", "left"),
    ("col.latency_ms", "right"),
    ("col.trace", "right"),
    ("col.lower", "right"),
    ("col.compile", "right"),
    ("col.why_output", "left"),
)


def call_table(title: str, lang: str) -> Any:
    """An empty table of calls, as ``jitlab run`` and ``jitlab check`` print them."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(title))
    for column, justify in CALL_COLUMNS:
        last = column == "col.why_output"
        table.add_column(
            column if column == "#" else messages.say(column, lang),
            justify=justify,  # type: ignore[arg-type]
            overflow="fold",
            no_wrap=not last,
            ratio=1 if last else None,
        )
    return table


def call_row(
    record: Any,
    overrides: dict[str, Any],
    lang: str,
    full: bool = False,
    params: Iterable[Any] = (),
) -> list[str]:
    """One call's row (rich markup; every recorded string escaped): what it did and why; its
    values by the labels of ``params`` (the scenario's), in ``lang``."""
    from rich.markup import escape

    from jitlab.lab.raised import Raised
    from jitlab.lab.spec import values_text
    from jitlab.records.change_words import reason_text

    kind = record.kind.value
    # English shows the kind as the JSON names it; Chinese, by its name.
    kind_text = kind if lang == "en" else messages.kind_name(kind, lang)
    # Reasons are data; words in the user's language (jitlab --lang zh run …).
    note = reason_text(record.reason, lang, full=full)  # full: --verbose
    if record.error:
        note = f"{record.error.type}: {record.error.message.splitlines()[0]}"
    note = escape(note)
    for line in record.stdout:
        note += escape(f"\n[{line.when}] {line.text}")
    notes = dict(record.notes or {})
    raised = Raised.from_json(notes.pop("scenario_error", None))
    if raised is not None:  # the scenario's own exception: its line, in its words
        note += f"\n[yellow]{escape(raised.words().get(lang))}[/yellow]"
    for key in [k for k, v in notes.items() if k.endswith("_error") and v]:
        # What went wrong beside the call (a cache the disk refused…): whole, in sight.
        note += f"\n[yellow]{escape(f'{key}: {notes.pop(key)}')}[/yellow]"
    if notes:
        facts = ", ".join(f"{k}={_short(v)}" for k, v in notes.items())
        note += "\n[dim]" + escape(facts) + "[/dim]"
    return [
        str(record.index),
        escape(values_text(params, overrides, lang)) or messages.say("run.defaults", lang),
        f"[{_KIND_STYLE[kind]}]{kind_text}[/]",
        f"{record.latency_ms:.3f}",
        f"{record.trace_ms:.1f}",
        f"{record.lower_ms:.1f}",
        f"{record.compile_ms:.1f}",
        note,
    ]


def _print_table(
    run: Any, calls: Iterable[dict[str, Any]], lang: str = "en", *, full: bool = False
) -> None:
    from rich.console import Console
    from rich.live import Live

    # Piped output has no width to measure: give the table room instead of folding words.
    console = Console(width=None if sys.stdout.isatty() else 120)
    table = call_table(_titles(run.scenario_cls, [run.variant], lang), lang)
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
            table.add_row(*call_row(record, overrides, lang, full, run.scenario_cls.params))
            live.refresh()


def _print_summary(run: Any, interrupted: bool) -> None:
    from rich.console import Console
    from rich.markup import escape

    console = Console(width=None if sys.stdout.isatty() else 120)
    console.print()  # Live leaves the cursor on the table's last line when piped
    if interrupted:
        console.print(f"[yellow]{escape(say('run.interrupted'))}[/yellow]")
    console.print(escape(summary_line(run.summary(), language())))


def summary_line(s: Any, lang: str) -> str:
    """A run's counts in one line, each noun in the number it has."""
    return messages.say(
        "run.summary",
        lang,
        calls=messages.say("n.calls", lang, n=s.calls),
        # One meaning of "compiles" everywhere: every program compiled (first or again).
        compiles=messages.say("n.compiles", lang, n=s.compiles + s.recompiles),
        recompiles=messages.say("n.recompiles", lang, n=s.recompiles),
        hits=messages.say("n.cache_hits", lang, n=s.cache_hits),
        persistent=messages.say("n.persistent_hits", lang, n=s.persistent_hits),
        errors=messages.say("n.errors", lang, n=s.errors),
        rate=f"{s.hit_rate:.0%}",
        ms=f"{s.time_lost_ms:.1f}",
    )


# -- jitlab run SCENARIO --compare: the lesson's verdict ------------------------------------
def compare(scenario: Any, variant: str, calls: list[dict[str, Any]], as_json: bool) -> int:
    """Both variants on one call sequence, judged by the function the Complete page uses.

    ``calls`` from --param: one value each sets it on every call of the lesson's sequence;
    a sequence of values replaces the lesson's sequence."""
    from jitlab.cli._output import print_json
    from jitlab.lab.verdict_run import run_comparison
    from jitlab.records.change_words import call_json

    lang = language()
    comparison = scenario.comparison(None if variant == "pitfall" else variant)
    sequence = [dict(c) for c in comparison.calls]
    if len(calls) == 1:
        sequence = [{**call, **calls[0]} for call in sequence]
    elif calls:
        sequence = calls

    def on_record(record: Any) -> None:
        if as_json:
            print_json(call_json(record))

    try:
        verdict = run_comparison(scenario, comparison, sequence, on_record=on_record)
    except KeyboardInterrupt:  # half a comparison is no verdict: say so, exit as a shell expects
        print("jitlab: interrupted (Ctrl-C): no verdict", file=sys.stderr)
        return 130
    if not _same_calls(comparison.calls, sequence):
        # The lesson's note speaks of its own calls ("all nine sizes"): not of --param's.
        verdict = dataclasses.replace(verdict, note=None)
    if as_json:
        print_json({"compare": verdict.to_json(lang)})
    else:
        print_compare(scenario, verdict, comparison.variants, lang)
    return 0


def _same_calls(lesson: Iterable[Any], made: list[dict[str, Any]]) -> bool:
    """Whether ``made`` are the lesson's calls: each sets what the lesson's call sets, alike."""
    lesson = list(lesson)
    return len(lesson) == len(made) and all(
        all(k in m and m[k] == v for k, v in c.items()) for c, m in zip(lesson, made, strict=True)
    )


def _titles(scenario: Any, variants: Iterable[str], lang: str) -> str:
    """The scenario's and variants' titles in ``lang`` (their ids are for the command line)."""
    named = {v.id: v.title.get(lang) for v in scenario.variants}
    return " · ".join([scenario.title.get(lang), *(named.get(v, v) for v in variants)])


def print_compare(scenario: Any, verdict: Any, variants: tuple[str, str], lang: str) -> None:
    """The two runs side by side, then the verdict first in words, the note, the timing."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    zh = lang.startswith("zh")
    console = Console(width=None if sys.stdout.isatty() else 120)
    named = {v.id: v.title.get(lang) for v in scenario.variants}
    title = f"{scenario.title.get(lang)} · {named.get(variants[0], variants[0])} ↔ " + (
        named.get(variants[1], variants[1])
    )
    table = Table(title=escape(title))
    table.add_column("")
    heads = ("陷阱版", "修正版") if zh else ("pitfall", "fix")
    for head, variant in zip(heads, variants, strict=True):
        plain = variant in ("pitfall", "fix")
        table.add_column(head if plain else f"{head} ({variant})", justify="right")
    from jitlab.lab.verdict import SIDE_ROWS

    p, f = verdict.pitfall.to_json(), verdict.fix.to_json()
    for key, words in SIDE_ROWS:
        if key not in ("calls", "compiles", "errors") and not (p[key] or f[key]):
            continue  # nothing to say: no line printed, no counter, no program size
        table.add_row(words.get(lang), *(escape(str(side[key])) for side in (p, f)))
    console.print(table)
    marks = {"fix": "✔", "pitfall": "✘", "unknown": "?"}
    mark = marks.get(verdict.better, "=")
    console.print(f"[bold]{mark} {escape(verdict.text(lang))}[/bold]")
    if verdict.note is not None:
        console.print(escape(verdict.note.get(lang)))
    console.print(f"[dim]{escape(verdict.timing.sentence.get(lang))}[/dim]")
