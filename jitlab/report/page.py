"""One self-contained HTML page about a recording, to share: ``jitlab report run.jsonl``.

The page holds the run's header (what the ``start`` and ``process`` lines say, and "not
recorded" for the rest), then per function: a compile timeline (inline SVG drawn here, one
lane per process, a ``<title>`` tooltip per mark), the signature ledger (one row per compile,
a cell that differs from the row above highlighted: :mod:`jitlab.recordings.ledger`), the reasons
(:func:`jitlab.records.change_words.render`), the time lost compiling, and, when one
dimension keeps changing size, bucket sizes from
:func:`~jitlab.recordings.buckets.suggest_buckets` with the code that pads to them. Several
recordings of one ``jax.distributed`` job also get the divergence table of
:func:`jitlab.recordings.processes.merge`.

No script, no network, no external file: it opens in any browser and prints on white. Every
text that comes from a recording is escaped. In English or Chinese (``lang``): its words are
:mod:`jitlab.records.messages`'s. JAX-free: reads recordings only.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import PurePath

from jitlab.recordings.ledger import (
    ledger_rows,
)
from jitlab.recordings.processes import MergedRecordings, merge
from jitlab.recordings.reader import Recording
from jitlab.records.calls import CallKind
from jitlab.records.diagnoses import Diagnosis, of_function
from jitlab.records.messages import (
    first_call_text,
    kind_name,
    language_of,
    listing,
    notice_texts,
    say,
    skipped_lines,
)
from jitlab.records.outputs import REPORT_MARK
from jitlab.records.text import format_ms
from jitlab.report.figures import timeline_svg
from jitlab.report.functions import FunctionReport, Source, functions_of, sources_of
from jitlab.report.html import esc, or_missing, when_text
from jitlab.report.tables import (
    buckets_section,
    call_sites_section,
    diagnoses_section,
    ledger_table,
    reasons_section,
)

MAX_FUNCTIONS = 50  # functions with a section of their own (the rest: the overview table)


# -- the page --------------------------------------------------------------------------------
def render_report(
    recordings: Sequence[tuple[str, Recording]],
    include_internal: bool = False,
    generated: str | None = None,
    jitlab_version: str | None = None,
    max_functions: int = MAX_FUNCTIONS,
    lang: str = "en",
) -> str:
    """The whole page for ``recordings`` ((file name, recording) pairs, at least one), in
    ``lang`` (``en`` or ``zh``)."""
    lang = language_of(lang)
    if not recordings:
        raise ValueError("a report needs at least one recording")
    title = say("report.title", lang)
    start = recordings[0][1].start
    if start is not None and start.argv:
        title += " · " + " ".join(start.argv)[:120]
    body = render_body(
        recordings, include_internal=include_internal, max_functions=max_functions, lang=lang
    )
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{"zh-CN" if lang == "zh" else "en"}"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        REPORT_MARK,
        f"<title>{esc(title, lang)}</title>",
        f"<style>{CSS}</style></head><body><main>",
        f"<h1>{esc(title, lang)}</h1>",
        _made(generated, jitlab_version, lang),
        body,
        _legend_note(lang),
        "</main></body></html>\n",
    ]
    return "\n".join(parts)


def render_body(
    recordings: Sequence[tuple[str, Recording]],
    *,
    include_internal: bool = False,
    max_functions: int = MAX_FUNCTIONS,
    lang: str = "en",
    header: bool = True,
    folded: bool = False,
    notes: Sequence[str] = (),
) -> str:
    """What the page says about ``recordings``, without the page around it (no ``<html>``,
    title or style): the one renderer of the report and of a notebook's output.

    The run's header (``header``), the notices, the overview, then ``notes`` (plain text, one
    paragraph each), the divergences of a job, one section per function — ``folded``: each
    under its one-line summary (``<details>``, the first one open), as a notebook shows
    them — and a line for the functions left out. Style it with :data:`CSS`."""
    lang = language_of(lang)
    if not recordings:
        raise ValueError("a report needs at least one recording")
    sources, job = sources_of(recordings)
    functions = functions_of(sources, include_internal)
    merged = merge([(s.process, s.recording) for s in sources], include_internal) if job else None
    span = max(
        (c.t for s in sources for c in s.recording.calls if c.t is not None),
        default=0.0,
    )
    parts = [_header(sources, job, lang)] if header else []
    parts.append(_notices(sources, job, lang))
    parts.append(_overview(functions, sources, job, max_functions, lang))
    parts += [f'<p class="note">{esc(note, lang)}</p>' for note in notes]
    parts.append(
        call_sites_section([(s.process if job else None, s.recording) for s in sources], lang)
    )
    if merged is not None:
        parts.append(_divergences(merged, lang))
    found = {s.process: s.recording.every_diagnosis() for s in sources}  # once per recording
    for number, f in enumerate(functions[:max_functions], 1):
        section = _function(number, f, sources, found, span, lang)
        if folded:
            facts = say("n.programs", lang, n=f.executables)
            line = f"<code>{esc(f.function, lang)}</code> — {esc(facts)}, {format_ms(f.compile_ms)}"
            opened = " open" if number == 1 else ""
            section = f"<details{opened}><summary>{number}. {line}</summary>{section}</details>"
        parts.append(section)
    if len(functions) > max_functions:
        more = say("n.functions_more", lang, n=len(functions) - max_functions)
        parts.append(f'<p class="note">{esc(more, lang)}</p>')
    return "\n".join(parts)


def _made(generated: str | None, version: str | None, lang: str = "en") -> str:
    version_text = f" {esc(version, lang)}" if version else ""
    when = say("report.made_when", lang, when=esc(generated, lang)) if generated else ""
    made = say(
        "report.made", lang, tool="<code>jitlab report</code>", version=version_text, when=when
    )
    return f'<p class="made">{made}</p>'


def _header(sources: Sequence[Source], job: bool, lang: str = "en") -> str:
    """The run: one column per recording, one row per thing a recording may say."""
    heads = "".join(
        f"<th>{say('report.process', lang, n=s.process) if job else esc(PurePath(s.path).name)}"
        "</th>"
        for s in sources
    )
    rows: list[tuple[str, list[str]]] = []

    def row(name: str, cells: list[str]) -> None:
        rows.append((say(f"report.row.{name}", lang), cells))

    def missing(value: object = None) -> str:
        return or_missing(value, lang)

    row("file", [f"<code>{esc(s.path, lang)}</code>" for s in sources])
    starts = [s.recording.start for s in sources]
    infos = [s.recording.process for s in sources]
    row(
        "program",
        [
            f"<code>{esc(shlex.join(st.argv), lang)}</code>" if st and st.argv else missing()
            for st in starts
        ],
    )
    row("started", [missing(when_text(st.time) if st and st.time else None) for st in starts])
    row(
        "host",
        [
            missing((st.host if st else None) or (info.host if info else None))
            for st, info in zip(starts, infos, strict=True)
        ],
    )
    row("jax", [missing(st.jax if st else None) for st in starts])
    row("jitlab", [missing(st.jitlab if st else None) for st in starts])
    row("backend", [missing() for _ in sources])
    row("devices", [_devices(info, lang) for info in infos])
    row("flags", [missing() for _ in sources])
    row("process", [_process(info, lang) for info in infos])
    compiled = [sum(c.record.kind.compiled for c in s.recording.calls) for s in sources]
    row("compiled", [str(n) for n in compiled])
    row("ended", [_ended(s.recording, lang) for s in sources])
    body = "".join(
        f"<tr><th scope=row>{name}</th>{''.join(f'<td>{c}</td>' for c in cells)}</tr>"
        for name, cells in rows
    )
    return (
        f'<section id="run"><h2>{say("report.run", lang)}</h2>'
        f'<table class="header"><thead><tr><th></th>{heads}</tr></thead>'
        f"<tbody>{body}</tbody></table></section>"
    )


def _notices(sources: Sequence[Source], job: bool, lang: str = "en") -> str:
    """A warning per recording that noted its counts may be short (the program removed
    jitlab's JAX listeners): the counts before the notice are a lower bound."""
    parts: list[str] = []
    for s in sources:
        texts = notice_texts(
            s.recording.notices, lang, s.recording.notice_counts, s.recording.notice_details
        )
        if not texts:
            continue
        who = say("report.process", lang, n=s.process) if job else PurePath(s.path).name
        for text in texts:
            line = say("report.notice_of", lang, who=who, notice=text)
            parts.append(
                f'<p class="warning"><strong>{esc(say("report.warning", lang), lang)}</strong> '
                f"{esc(line, lang)}</p>"
            )
    return "\n".join(parts)


def _devices(info: object, lang: str = "en") -> str:
    local = getattr(info, "local_devices", None)
    total = getattr(info, "devices", None)
    if local is None and total is None:
        return or_missing(None, lang)
    parts: list[str] = []
    if local is not None:
        parts.append(say("report.devices_here", lang, n=local))
    if total is not None:
        parts.append(say("report.devices_job", lang, n=total))
    return esc(say("sep", lang).join(parts), lang)


def _process(info: object, lang: str = "en") -> str:
    if info is None:
        return say("report.single_process", lang)
    index, count = getattr(info, "index", None), getattr(info, "count", None)
    if count is None:
        return esc(f"{index}", lang)
    return esc(say("report.process_of", lang, index=index, count=count), lang)


def _ended(recording: Recording, lang: str = "en") -> str:
    words = say("report.ended_yes" if recording.ended else "report.ended_no", lang)
    if recording.partial_line:
        words += say("sep.semi", lang) + say("report.cut_off", lang)
    if recording.bad_lines:
        words += say("sep.semi", lang) + skipped_lines(
            recording.bad_lines, lang, recording.long_lines
        )
    return esc(words, lang)


def _overview(
    functions: Sequence[FunctionReport],
    sources: Sequence[Source],
    job: bool,
    shown: int,
    lang: str = "en",
) -> str:
    total = sum(f.compile_ms for f in functions)
    heading = f'<section id="functions"><h2>{say("report.functions", lang)}</h2>'
    if not functions:
        return f"{heading}<p>{say('report.nothing_compiled', lang)}</p></section>"

    rows: list[str] = []
    for number, f in enumerate(functions, 1):
        name = esc(f.function, lang)
        if number <= shown:
            name = f'<a href="#fn-{number}">{name}</a>'
        where = f"<br><small><code>{esc(f.defined_at, lang)}</code></small>" if f.defined_at else ""
        hits = "–" if f.hits is None else str(f.hits)
        share = f"{f.compile_ms / total:.0%}" if total > 0 else "–"
        rows.append(
            f"<tr><td>{name}{where}</td><td class=num>{f.executables}</td>"
            f"<td class=num>{f.recompiles}</td><td class=num>{hits}</td>"
            f"<td class=num>{format_ms(f.compile_ms)}</td><td class=num>{share}</td>"
            f"<td class=num>{f.signatures}</td></tr>"
        )
    across = ""
    if job:
        across = say("report.across", lang, processes=say("n.processes", lang, n=len(sources)))
    programs = say("n.programs", lang, n=sum(f.executables for f in functions))
    time_lost = say(
        "report.time_lost",
        lang,
        across=across,
        total=f"<strong>{format_ms(total)}</strong>",
        programs=programs,
    )
    heads = "".join(
        f"<th>{say(f'report.head.{h}', lang)}</th>"
        for h in ("function", "compiled", "recompiles", "hits", "time_lost", "share", "signatures")
    )
    return (
        f"{heading}<p>{time_lost}</p>"
        f'<table class="overview"><thead><tr>{heads}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></section>"
    )


def _divergences(merged: MergedRecordings, lang: str = "en") -> str:
    if not merged.divergences:
        body = f'<p class="ok">{say("report.div.none", lang)}</p>'
    else:
        rows: list[str] = []
        for d in merged.divergences:
            what = (
                say("report.div.compiled", lang, signature=f"<code>{esc(d.signature, lang)}</code>")
                if d.kind == "signature"
                else say("report.div.count", lang)
            )
            differing = "<br>".join(f"<code>{esc(x, lang)}</code>" for x in d.fields) or "–"
            counts = ", ".join(f"{p}: {n}" for p, n in sorted(d.counts.items())) or "–"
            first = esc(first_call_text(d.first, lang), lang) if d.first else "–"
            rows.append(
                f"<tr><td>{esc(d.function, lang)}"
                + (
                    f"<br><small><code>{esc(d.defined_at, lang)}</code></small>"
                    if d.defined_at
                    else ""
                )
                + f"</td><td>{esc(listing(d.processes, lang), lang)}</td>"
                f"<td>{esc(listing(d.others, lang), lang)}</td><td>{what}</td>"
                f"<td>{differing}</td><td class=num>{esc(counts, lang)}</td><td>{first}</td></tr>"
            )
        bad = say("report.div.bad", lang, divergences=say("n.divergences", lang, n=len(rows)))
        keys = ("processes", "but_not", "what", "differs", "per_process", "first")
        heads = f"<th>{say('report.head.function', lang)}</th>" + "".join(
            f"<th>{say(f'report.div.head.{k}', lang)}</th>" for k in keys
        )
        body = (
            f'<p class="bad">{bad}</p>'
            f'<table class="divergence"><thead><tr>{heads}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
        )
    title = say("report.div.title", lang)
    return f'<section id="divergence"><h2>{title}</h2>{body}</section>'


# -- one function ----------------------------------------------------------------------------
def _function(
    number: int,
    f: FunctionReport,
    sources: Sequence[Source],
    found: Mapping[int, Sequence[Diagnosis]],
    span: float,
    lang: str = "en",
) -> str:
    several = len(sources) > 1
    processes = [s.process for s in sources if s.process in f.calls or s.process in f.summaries]
    where = ""
    if f.defined_at:
        defined = say("report.defined_at", lang, where=f"<code>{esc(f.defined_at, lang)}</code>")
        where = f" <small>{defined}</small>"
    totals = [s.totals for s in f.summaries.values()]
    trace = sum(t.trace_ms for t in totals)
    lower = sum(t.lower_ms for t in totals)
    compile_ = sum(t.compile_ms for t in totals)
    hits = say("report.not_counted", lang) if f.hits is None else str(f.hits)
    programs = say("n.programs", lang, n=f.executables).replace(
        str(f.executables), f"<strong>{f.executables}</strong>", 1
    )
    facts = say(
        "report.facts",
        lang,
        programs=programs,
        recompiles=say("n.recompiles", lang, n=f.recompiles),
        hits=hits,
        total=f"<strong>{format_ms(f.compile_ms)}</strong>",
        trace=format_ms(trace),
        lower=format_ms(lower),
        compile=format_ms(compile_),
    )
    facts = f"<p class=facts>{facts}</p>"
    parts = [
        f'<section class="function" id="fn-{number}"><div class="keep">',
        f"<h2>{number}. <code>{esc(f.function, lang)}</code>{where}</h2>",
        facts,
        f"<h3>{say('report.when', lang)}</h3>",
        timeline_svg(f, processes, span, number, lang),
        "</div>",
        diagnoses_section(
            [
                (s.process if several else None, d)
                for s in sources
                for d in of_function(found[s.process], f.function, f.defined_at)
            ],
            lang,
        ),
        reasons_section(f, lang),
        f"<h3>{say('report.ledger', lang)}</h3>",
        f'<p class="note">{say("report.ledger_note", lang)}</p>',
    ]
    for process in processes:
        calls = f.calls.get(process, [])
        if several:
            parts.append(f"<h4>{say('report.process', lang, n=process)}</h4>")
        parts.append(ledger_table(ledger_rows(calls), lang=lang))
    parts.append(buckets_section(f, number, lang))
    parts.append("</section>")
    return "\n".join(parts)


def _legend_note(lang: str = "en") -> str:
    kinds = {
        name: f"<em>{kind_name(kind, lang)}</em>"
        for name, kind in (
            ("first", CallKind.COMPILE),
            ("recompile", CallKind.RECOMPILE),
            ("persistent", CallKind.PERSISTENT_HIT),
        )
    }
    return f'<footer><p class="note">{say("report.legend", lang, **kinds)}</p></footer>'


# The page's style sheet (a notebook scopes it to one output: jitlab.notebook.render).
CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: #1f2328;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
main { max-width: 1240px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 1.55em; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 1.25em; margin: 32px 0 8px; padding-bottom: 4px;
  border-bottom: 2px solid #e5e7eb; overflow-wrap: anywhere; }
h3 { font-size: 1.02em; margin: 18px 0 6px; }
h4 { font-size: .95em; margin: 12px 0 4px; color: #444; }
h2 small { font-weight: normal; color: #57606a; font-size: .72em; }
code, pre { font: 13px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas,
  "DejaVu Sans Mono", monospace; }
.made, .note, .legend { color: #57606a; font-size: .9em; }
.missing { color: #8b949e; font-style: italic; }
.warning { background: #fff8c5; border-left: 4px solid #d4a72c; padding: .4em .8em; }
table { border-collapse: collapse; margin: 6px 0 10px; font-size: .9em; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
thead th { background: #f3f4f6; font-weight: 600; }
th[scope=row] { background: #f6f8fa; font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
table.header td { overflow-wrap: anywhere; }
table.divergence { width: 100%; }
table.overview td:first-child { min-width: 18em; }
/* A long unbroken function name or path wraps inside its cell (at 1024 px the call sites'
   table ran off the page and squeezed its headers to a character a line). */
table.overview td:first-child, table.sites td:not(.num) { overflow-wrap: anywhere; }
.scroll { overflow-x: auto; }
table.ledger td.sig { font-family: ui-monospace, Menlo, Consolas, "DejaVu Sans Mono", monospace;
  white-space: nowrap; }
table.ledger td.reason { min-width: 16em; }
td.changed { background: #ffe3e6; }
td.changed mark { background: transparent; color: #b4232f; font-weight: 700; }
.kindcell { white-space: nowrap; font-weight: 600; }
svg { display: block; width: 100%; height: auto; max-width: 1000px; }
svg text { font: 12px system-ui, sans-serif; fill: #374151; }
svg text.lane { font-weight: 600; }
.key { display: inline-block; margin-right: 14px; }
.key i { display: inline-block; width: 10px; height: 10px; margin-right: 5px;
  vertical-align: baseline; border-radius: 2px; }
ul.reasons, ul.diagnoses { margin: 4px 0; padding-left: 22px; }
ul.paths { margin: 4px 0; padding-left: 4px; list-style: none; }
ul.diagnoses li { margin: 2px 0; }
pre.code { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px;
  padding: 10px 12px; overflow-x: auto; }
p.ok { color: #1a7f37; font-weight: 600; }
p.bad { color: #b4232f; font-weight: 600; }
section.function { margin-top: 28px; }
@media print {
  @page { margin: 14mm; }
  body { font-size: 10.5pt; background: #fff !important; color: #000; }
  main { max-width: none; padding: 0; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  a { color: inherit; text-decoration: none; }
  h2, h3, h4 { break-after: avoid; page-break-after: avoid; }
  tr, svg, pre, li, .legend, .keep { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  .scroll { overflow: visible; }
  table.ledger { font-size: 8.5pt; }
  table.ledger td.sig { white-space: normal; overflow-wrap: anywhere; }
  pre.code { white-space: pre-wrap; background: #fff; }
  thead th, th[scope=row] { background: #f3f4f6; }
}
"""
