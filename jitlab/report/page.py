"""One self-contained HTML page about a recording, to share: ``jitlab report run.jsonl``.

The page holds the run's header (what the ``start`` and ``process`` lines say, and "not
recorded" for the rest), then per function: a compile timeline (inline SVG drawn here, one
lane per process, a ``<title>`` tooltip per mark), the signature ledger (one row per compile,
a cell that differs from the row above highlighted: :mod:`jitlab.recordings.ledger`), the reasons
(:func:`jitlab.records.changes.render`), the time lost compiling, and, when one
dimension keeps changing size, bucket sizes from
:func:`~jitlab.recordings.reader.suggest_buckets` with the code that pads to them. Several
recordings of one ``jax.distributed`` job also get the divergence table of
:func:`jitlab.recordings.processes.merge`.

No script, no network, no external file: it opens in any browser and prints on white. Every
text that comes from a recording is escaped. In English or Chinese (``lang``): its words are
:mod:`jitlab.records.messages`'s. JAX-free: reads recordings only.
"""

from __future__ import annotations

import datetime
import shlex
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import PurePath

from jitlab.recordings.ledger import (
    ENGLISH_COMMENTS,
    KIND_COLORS,
    Dimension,
    LedgerRow,
    bucket_code,
    bucket_sizes,
    column_title,
    compiled_signatures,
    default_compiles,
    differs,
    ever_changed,
    ledger_rows,
    padding,
    signature_columns,
    varying_dimensions,
)
from jitlab.recordings.processes import MergedRecordings, merge, process_of
from jitlab.recordings.reader import FunctionSummary, Recording, summarize
from jitlab.records.calls import CallKind
from jitlab.records.changes import ChangeKind, render
from jitlab.records.lines import RecordedCall
from jitlab.records.messages import (
    CATALOGUE,
    first_call_text,
    kind_name,
    language_of,
    listing,
    notice_texts,
    say,
    skipped_lines,
)

MAX_FUNCTIONS = 50  # functions with a section of their own (the rest: the overview table)
MAX_LEDGER_ROWS = 200  # per function and process; the timeline still shows every compile
# Signature columns per ledger, those that changed first: a 100,000-argument signature would
# make a page of 100,000 columns (and hundreds of MB to write it).
MAX_LEDGER_COLUMNS = 64
MAX_MARKS = 400  # timeline marks per lane before compiles close together share one mark
_TIMELINE_KINDS = (CallKind.COMPILE, CallKind.RECOMPILE, CallKind.PERSISTENT_HIT, CallKind.ERROR)


@dataclass(frozen=True)
class Source:
    """One recording given to the report: its file, what was read, which process it is."""

    path: str
    recording: Recording
    process: int


@dataclass
class FunctionReport:
    """One function, in every process that ran it."""

    function: str
    defined_at: str | None
    calls: dict[int, list[RecordedCall]] = field(default_factory=dict)  # per process
    summaries: dict[int, FunctionSummary] = field(default_factory=dict)

    @property
    def compile_ms(self) -> float:
        return sum(s.compile_ms for s in self.summaries.values())

    @property
    def executables(self) -> int:
        return sum(s.executables for s in self.summaries.values())

    @property
    def recompiles(self) -> int:
        return sum(s.recompiles for s in self.summaries.values())

    @property
    def hits(self) -> int | None:
        counted = [s.hits for s in self.summaries.values() if s.hits is not None]
        return sum(counted) if counted else None

    @property
    def signatures(self) -> int:
        return len({sig for s in self.summaries.values() for sig in s.signatures})


def sources_of(recordings: Sequence[tuple[str, Recording]]) -> tuple[list[Source], bool]:
    """Label each recording with its process; True when they are the processes of one job.

    One recording is process 0 of a single-process run. Several are taken for the processes
    of one job when their indices (``process`` line, file name, else position) are distinct;
    otherwise they are numbered by position and compared no further.
    """
    indices = [process_of(r, path, i) for i, (path, r) in enumerate(recordings)]
    job = len(recordings) > 1 and len(set(indices)) == len(indices)
    if not job:
        indices = list(range(len(recordings)))
    return [Source(p, r, i) for (p, r), i in zip(recordings, indices, strict=True)], job


def functions_of(sources: Sequence[Source], include_internal: bool = False) -> list[FunctionReport]:
    """Every function of every recording, paired across processes by name and definition
    line (the line's folder ignored, as :func:`~jitlab.recordings.processes.merge` does); most time
    lost compiling first."""
    several = len(sources) > 1
    found: dict[tuple[str, str | None], FunctionReport] = {}

    def key(function: str, defined_at: str | None) -> tuple[str, str | None]:
        if several and defined_at is not None:
            return (function, PurePath(defined_at).name)
        return (function, defined_at)

    for source in sources:
        for s in summarize(source.recording, include_internal):
            k = key(s.function, s.defined_at)
            entry = found.setdefault(k, FunctionReport(s.function, s.defined_at))
            entry.summaries[source.process] = s
        for call in source.recording.calls:
            if call.internal and not include_internal:
                continue
            k = key(*call.key)
            if k in found:
                found[k].calls.setdefault(source.process, []).append(call)
    return sorted(found.values(), key=lambda f: f.compile_ms, reverse=True)


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
    sources, job = sources_of(recordings)
    functions = functions_of(sources, include_internal)
    merged = merge([(s.process, s.recording) for s in sources], include_internal) if job else None
    span = max(
        (c.t for s in sources for c in s.recording.calls if c.t is not None),
        default=0.0,
    )
    title = say("report.title", lang)
    start = sources[0].recording.start
    if start is not None and start.argv:
        title += " · " + " ".join(start.argv)[:120]
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{"zh-CN" if lang == "zh" else "en"}"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        f"<h1>{_e(title)}</h1>",
        _made(generated, jitlab_version, lang),
        _header(sources, job, lang),
        _notices(sources, job, lang),
        _overview(functions, sources, job, max_functions, lang),
    ]
    if merged is not None:
        parts.append(_divergences(merged, lang))
    for number, f in enumerate(functions[:max_functions], 1):
        parts.append(_function(number, f, sources, span, lang))
    if len(functions) > max_functions:
        more = say("n.functions_more", lang, n=len(functions) - max_functions)
        parts.append(f'<p class="note">{_e(more)}</p>')
    parts.append(_legend_note(lang))
    parts.append("</main></body></html>\n")
    return "\n".join(parts)


def _e(value: object) -> str:
    """Any text from a recording, safe inside HTML text and quoted attributes."""
    return escape(str(value), quote=True)


def _made(generated: str | None, version: str | None, lang: str = "en") -> str:
    version_text = f" {_e(version)}" if version else ""
    when = say("report.made_when", lang, when=_e(generated)) if generated else ""
    made = say(
        "report.made", lang, tool="<code>jitlab report</code>", version=version_text, when=when
    )
    return f'<p class="made">{made}</p>'


def format_ms(ms: float) -> str:
    if ms >= 1000:
        return f"{ms / 1000:.2f} s"
    if ms >= 10:
        return f"{ms:.0f} ms"
    return f"{ms:.2f} ms"


def _when(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _or_missing(value: object, lang: str = "en") -> str:
    if value is None or value == "":
        return f'<span class="missing">{say("report.not_recorded", lang)}</span>'
    return _e(value)


def _header(sources: Sequence[Source], job: bool, lang: str = "en") -> str:
    """The run: one column per recording, one row per thing a recording may say."""
    heads = "".join(
        f"<th>{say('report.process', lang, n=s.process) if job else _e(PurePath(s.path).name)}</th>"
        for s in sources
    )
    rows: list[tuple[str, list[str]]] = []

    def row(name: str, cells: list[str]) -> None:
        rows.append((say(f"report.row.{name}", lang), cells))

    def missing(value: object = None) -> str:
        return _or_missing(value, lang)

    row("file", [f"<code>{_e(s.path)}</code>" for s in sources])
    starts = [s.recording.start for s in sources]
    infos = [s.recording.process for s in sources]
    row(
        "program",
        [
            f"<code>{_e(shlex.join(st.argv))}</code>" if st and st.argv else missing()
            for st in starts
        ],
    )
    row("started", [missing(_when(st.time) if st and st.time else None) for st in starts])
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
    parts = []
    for s in sources:
        texts = notice_texts(s.recording.notices, lang, s.recording.notice_counts)
        if not texts:
            continue
        who = say("report.process", lang, n=s.process) if job else PurePath(s.path).name
        for text in texts:
            line = say("report.notice_of", lang, who=who, notice=text)
            parts.append(
                f'<p class="warning"><strong>{_e(say("report.warning", lang))}</strong> '
                f"{_e(line)}</p>"
            )
    return "\n".join(parts)


def _devices(info: object, lang: str = "en") -> str:
    local = getattr(info, "local_devices", None)
    total = getattr(info, "devices", None)
    if local is None and total is None:
        return _or_missing(None, lang)
    parts = []
    if local is not None:
        parts.append(say("report.devices_here", lang, n=local))
    if total is not None:
        parts.append(say("report.devices_job", lang, n=total))
    return _e(say("sep", lang).join(parts))


def _process(info: object, lang: str = "en") -> str:
    if info is None:
        return say("report.single_process", lang)
    index, count = getattr(info, "index", None), getattr(info, "count", None)
    if count is None:
        return _e(f"{index}")
    return _e(say("report.process_of", lang, index=index, count=count))


def _ended(recording: Recording, lang: str = "en") -> str:
    words = say("report.ended_yes" if recording.ended else "report.ended_no", lang)
    if recording.partial_line:
        words += say("sep.semi", lang) + say("report.cut_off", lang)
    if recording.bad_lines:
        words += say("sep.semi", lang) + skipped_lines(
            recording.bad_lines, lang, recording.long_lines
        )
    return _e(words)


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

    rows = []
    for number, f in enumerate(functions, 1):
        name = _e(f.function)
        if number <= shown:
            name = f'<a href="#fn-{number}">{name}</a>'
        where = f"<br><small><code>{_e(f.defined_at)}</code></small>" if f.defined_at else ""
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
        rows = []
        for d in merged.divergences:
            what = (
                say("report.div.compiled", lang, signature=f"<code>{_e(d.signature)}</code>")
                if d.kind == "signature"
                else say("report.div.count", lang)
            )
            differing = "<br>".join(f"<code>{_e(x)}</code>" for x in d.fields) or "–"
            counts = ", ".join(f"{p}: {n}" for p, n in sorted(d.counts.items())) or "–"
            first = _e(first_call_text(d.first, lang)) if d.first else "–"
            rows.append(
                f"<tr><td>{_e(d.function)}"
                + (f"<br><small><code>{_e(d.defined_at)}</code></small>" if d.defined_at else "")
                + f"</td><td>{_e(listing(d.processes, lang))}</td>"
                f"<td>{_e(listing(d.others, lang))}</td><td>{what}</td>"
                f"<td>{differing}</td><td class=num>{_e(counts)}</td><td>{first}</td></tr>"
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
    number: int, f: FunctionReport, sources: Sequence[Source], span: float, lang: str = "en"
) -> str:
    several = len(sources) > 1
    processes = [s.process for s in sources if s.process in f.calls or s.process in f.summaries]
    where = ""
    if f.defined_at:
        defined = say("report.defined_at", lang, where=f"<code>{_e(f.defined_at)}</code>")
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
        f"<h2>{number}. <code>{_e(f.function)}</code>{where}</h2>",
        facts,
        f"<h3>{say('report.when', lang)}</h3>",
        timeline_svg(f, processes, span, number, lang),
        "</div>",
        _reasons(f, lang),
        f"<h3>{say('report.ledger', lang)}</h3>",
        f'<p class="note">{say("report.ledger_note", lang)}</p>',
    ]
    for process in processes:
        calls = f.calls.get(process, [])
        if several:
            parts.append(f"<h4>{say('report.process', lang, n=process)}</h4>")
        parts.append(ledger_table(ledger_rows(calls), lang=lang))
    parts.append(_buckets(f, number, lang))
    parts.append("</section>")
    return "\n".join(parts)


def _marks(calls: Sequence[RecordedCall]) -> list[RecordedCall]:
    return [c for c in calls if c.record.kind in _TIMELINE_KINDS]


def _cost(call: RecordedCall) -> float:
    r = call.record
    return r.trace_ms + r.lower_ms + r.compile_ms


def _tooltip(call: RecordedCall, number: int, lang: str = "en") -> str:
    r = call.record
    bits = [f"{kind_name(r.kind, lang)} #{number}"]
    if not call.events_only:
        bits.append(say("report.tip.call", lang, index=r.index))
    if call.t is not None:
        bits.append(say("report.tip.at", lang, t=f"{call.t:.2f}"))
    bits.append(format_ms(_cost(call)))
    text = say("sep", lang).join(bits)
    if r.signature is not None:  # a tip, not the ledger: a huge signature is cut short
        signature = str(r.signature)
        text += "\n" + (signature if len(signature) <= 500 else signature[:499] + "…")
    if r.reason is not None and r.kind is not CallKind.COMPILE:
        text += "\n" + say("sep.semi", lang).join(render(c, lang) for c in r.reason.items)
    if r.error is not None:
        text += f"\n{r.error.type}: {r.error.message}"
    return text


def timeline_svg(
    f: FunctionReport, processes: Sequence[int], span: float, number: int = 0, lang: str = "en"
) -> str:
    """The compiles of one function: one lane per process, a bar per compile at its time
    (its height the time it cost), coloured by kind, each with a ``<title>`` tooltip."""
    width, left, right, lane_h, top, bottom = 1000, 90, 16, 64, 10, 34
    plot_w = width - left - right
    lanes = processes or [0]
    height = top + lane_h * len(lanes) + bottom
    all_marks = {p: _marks(f.calls.get(p, [])) for p in lanes}
    timed = any(c.t is not None for marks in all_marks.values() for c in marks)
    if timed:  # a little room after the last compile, so its mark is not on the edge
        last = max((c.t or 0.0) for m in all_marks.values() for c in m)
        domain = max(span, last, 1e-3) * 1.04
    else:
        # At least 1: a function the recording has only hits for has no mark at all.
        domain = float(max((len(m) for m in all_marks.values()), default=1)) or 1.0
    most = max((_cost(c) for m in all_marks.values() for c in m), default=0.0) or 1.0
    count = sum(len(m) for m in all_marks.values())
    label = say(
        "report.timeline",
        lang,
        function=f.function,
        count=say("report.timeline.count", lang, n=count),
        span=(
            say("report.timeline.seconds", lang, s=f"{domain:.1f}")
            if timed
            else say("report.timeline.order", lang)
        ),
    )
    out = [
        f'<svg class="timeline" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="tl-{number}" preserveAspectRatio="xMinYMin meet">',
        f'<title id="tl-{number}">{_e(label)}</title>',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{lane_h * len(lanes)}" '
        'fill="#fafbfc" stroke="#d0d4da"/>',
    ]
    for lane, process in enumerate(lanes):
        base = top + lane_h * (lane + 1) - 4
        if lane:
            out.append(
                f'<line x1="{left}" x2="{left + plot_w}" y1="{top + lane_h * lane}" '
                f'y2="{top + lane_h * lane}" stroke="#d0d4da"/>'
            )
        name = (
            say("report.process", lang, n=process)
            if len(lanes) > 1
            else say("report.lane.compiles", lang)
        )
        out.append(
            f'<text x="{left - 8}" y="{base - lane_h / 2 + 8}" text-anchor="end" '
            f'class="lane">{_e(name)}</text>'
        )
        marks = all_marks[process]
        placed = []
        for i, call in enumerate(marks, 1):
            at = (call.t or 0.0) if timed else i - 0.5
            placed.append((left + plot_w * min(at / domain, 1.0), call, i))
        for x, group in _binned(placed, len(marks) > MAX_MARKS):
            call, i = group[0][1], group[0][2]
            kind = max((c.record.kind for _, c, _ in group), key=_TIMELINE_KINDS.index)
            cost = max(_cost(c) for _, c, _ in group)
            h = max(8.0, (lane_h - 12) * cost / most)  # a cheap recompile still shows
            tip = (
                _tooltip(call, i, lang)
                if len(group) == 1
                else say("report.binned", lang, n=len(group), ms=format_ms(cost))
            )
            shape = (
                f'<rect x="{x - 1.5:.1f}" y="{base - h:.1f}" width="3" height="{h:.1f}" '
                f'fill="{KIND_COLORS[kind]}"'
            )
            if kind is CallKind.ERROR:
                shape = (
                    f'<rect x="{x - 3:.1f}" y="{base - 6:.1f}" width="6" height="6" '
                    f'fill="{KIND_COLORS[kind]}"'
                )
            out.append(f"{shape}><title>{_e(tip)}</title></rect>")
    axis_y = top + lane_h * len(lanes)
    for value in _ticks(domain):
        x = left + plot_w * value / domain
        text = (f"{value:g} s" if timed else f"#{int(value)}") if value else "0"
        out.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{axis_y}" y2="{axis_y + 5}" stroke="#6b7280"/>'
            f'<text x="{x:.1f}" y="{axis_y + 18}" text-anchor="middle" class="tick">{text}</text>'
        )
    caption = say("report.caption.timed" if timed else "report.caption.order", lang)
    caption = say("report.caption.height", lang, caption=caption, ms=format_ms(most))
    out.append(
        f'<text x="{left + plot_w}" y="{height - 2}" text-anchor="end" class="tick">'
        f"{caption}</text>"
    )
    out.append("</svg>")
    legend = "".join(
        f'<span class="key"><i style="background:{KIND_COLORS[k]}"></i>{kind_name(k, lang)}</span>'
        for k in _TIMELINE_KINDS
        if any(c.record.kind is k for m in all_marks.values() for c in m)
    )
    return "".join(out) + f'<p class="legend">{legend}</p>'


def _binned(
    placed: list[tuple[float, RecordedCall, int]], bin_them: bool
) -> list[tuple[float, list[tuple[float, RecordedCall, int]]]]:
    """One mark per compile, or per pixel column when there are too many to tell apart."""
    if not bin_them:
        return [(x, [p]) for p in placed for x in (p[0],)]
    bins: dict[int, list[tuple[float, RecordedCall, int]]] = {}
    for p in placed:
        bins.setdefault(round(p[0] / 2), []).append(p)
    return [(column * 2.0, group) for column, group in sorted(bins.items())]


def _ticks(domain: float) -> list[float]:
    raw = domain / 5
    magnitude = 10 ** int(f"{raw:e}".split("e")[1])
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    ticks, value = [], 0.0
    while value <= domain * 1.0001:
        ticks.append(round(value, 10))
        value += step
    return ticks


def _reasons(f: FunctionReport, lang: str = "en") -> str:
    """Why it compiled again, most frequent first (one example each)."""
    counts: Counter[tuple[ChangeKind, str]] = Counter()
    examples: dict[tuple[ChangeKind, str], str] = {}
    recompiles = 0
    for calls in f.calls.values():
        for call in calls:
            r = call.record
            if r.kind is not CallKind.RECOMPILE or r.reason is None:
                continue
            recompiles += 1
            for change in r.reason.items:
                key = (change.kind, change.path)
                counts[key] += 1
                examples.setdefault(key, render(change, lang))
    if not recompiles:
        return ""
    items = []
    for (kind, path), n in counts.most_common(12):
        what = _change_words(kind, path, lang)
        item = say(
            "report.reason",
            lang,
            what=f"<strong>{_e(what)}</strong>",
            times=say("n.times", lang, n=n),
            example=f"<code>{_e(examples[(kind, path)])}</code>",
        )
        items.append(f"<li>{item}</li>")
    if len(counts) > 12:
        items.append(f"<li>{_e(say('n.more', lang, n=len(counts) - 12))}</li>")
    return f"<h3>{say('report.why', lang)}</h3><ul class=reasons>{''.join(items)}</ul>"


def _change_words(kind: ChangeKind, path: str | None, lang: str) -> str:
    """What changed, briefly: ``shape of x`` (the change's kind itself if it has no words)."""
    key = f"change.{kind}"
    if key not in CATALOGUE:
        return str(kind)
    return say(key, lang, path=path or "?")


def ledger_table(rows: Sequence[LedgerRow], limit: int = MAX_LEDGER_ROWS, lang: str = "en") -> str:
    """The signature ledger as a table; a changed cell is marked, with the old value in its
    ``title``."""
    if not rows:
        return f'<p class="note">{say("report.nothing", lang)}</p>'
    keys = signature_columns(rows)
    hidden = max(0, len(keys) - MAX_LEDGER_COLUMNS)
    if hidden:
        kept = set([k for k in keys if ever_changed(rows, k)][:MAX_LEDGER_COLUMNS])
        for key in keys:
            if len(kept) >= MAX_LEDGER_COLUMNS:
                break
            kept.add(key)
        keys = [k for k in keys if k in kept]
    heads = ["#", *(say(f"report.ledger.{h}", lang) for h in ("kind", "at", "cost"))]
    heads += [_column_title(k, lang) for k in keys]
    heads += [say("report.ledger.called_from", lang), say("report.ledger.changed", lang)]
    out = [
        '<div class="scroll"><table class="ledger"><thead><tr>',
        "".join(f"<th>{_e(h)}</th>" for h in heads),
        "</tr></thead><tbody>",
    ]
    for i, row in enumerate(rows[:limit]):
        call, r = row.call, row.call.record
        cells = [
            "?" if call.events_only else str(r.index),
            f'<span class="kind" style="color:{KIND_COLORS[r.kind]}">'
            f"{kind_name(r.kind, lang)}</span>",
            f"{call.t:.2f} s" if call.t is not None else "",
            format_ms(_cost(call)),
        ]
        tds = [f"<td>{c}</td>" for c in cells[:1]]
        tds += [f"<td class=kindcell>{cells[1]}</td>", f"<td class=num>{cells[2]}</td>"]
        tds.append(f"<td class=num>{cells[3]}</td>")
        for key in keys:
            text = "?" if row.signature is None else row.cells.get(key, "—")
            if differs(rows, i, key):
                before = rows[i - 1].cells.get(key, "—")
                changed = _e(say("report.ledger.before", lang, before=before))
                tds.append(
                    f'<td class="sig changed" title="{changed}"><mark>{_e(text)}</mark></td>'
                )
            else:
                tds.append(f"<td class=sig>{_e(text)}</td>")
        tds.append(f"<td><small>{_e(call.called_from or '')}</small></td>")
        semi = say("sep.semi", lang)
        reason = semi.join(render(c, lang) for c in r.reason.items) if r.reason else ""
        jax_words = r.reason.jax_explanation if r.reason else None
        title = f' title="JAX: {_e(jax_words)}"' if jax_words else ""
        tds.append(f"<td class=reason{title}>{_e(reason)}</td>")
        out.append(f"<tr>{''.join(tds)}</tr>")
    out.append("</tbody></table></div>")
    if hidden:
        more = say("report.ledger.more_columns", lang, n=hidden)
        out.append(f'<p class="note">{_e(more)}</p>')
    if len(rows) > limit:
        more = say("report.ledger.more", lang, n=len(rows) - limit)
        out.append(f'<p class="note">{_e(more)}</p>')
    return "".join(out)


def _column_title(key: str, lang: str) -> str:
    """:func:`~jitlab.recordings.ledger.column_title` in ``lang``."""
    if key == "fn":
        return say("report.ledger.function_object", lang)
    if key.startswith("static:"):
        return say("report.ledger.static", lang, name=key[7:])
    return column_title(key)


def _buckets(f: FunctionReport, number: int, lang: str = "en") -> str:
    """Bucket sizes for the dimension that varies most, with the code that pads to them."""
    signatures = []
    for calls in f.calls.values():
        signatures += compiled_signatures(calls)
    dims = varying_dimensions(signatures)
    if not dims:
        return ""
    dim = dims[0]
    distinct = dim.distinct
    buckets = bucket_sizes(distinct, default_compiles(len(distinct)))  # as the app suggests
    share = padding(distinct, buckets) / max(1, sum(distinct))
    text = say(
        "report.buckets",
        lang,
        dim=f"<code>{_e(dim.label(say('report.axis', lang)))}</code>",
        values=len(distinct),
        compiles=say("n.compiles", lang, n=len(dim.sizes)),
        buckets=f"<strong>{_e(listing(buckets, lang))}</strong>",
        fewer=say("n.compiles", lang, n=len(buckets)),
        share=f"{share:.0%}",
        tool="<code>suggest_buckets</code>",
    )
    text = f"<p>{text}</p>"
    function = " ".join(f.function.split()) or "f"
    comments = None  # English: bucket_code's own
    if lang != "en":
        comments = {key: say(f"code.{key}", lang) for key in ENGLISH_COMMENTS}
        comments["header"] = (
            comments["header"]
            .replace("%1", dim.label(say("report.axis", lang)))
            .replace("%2", function)
            .replace("%4", str(len(distinct)))
        )
    code = bucket_code(function, dim, buckets, comments)
    return (
        f'<div class="buckets"><h3>{say("report.buckets.title", lang)}</h3>'
        + text
        + histogram_svg(dim, buckets, number, lang)
        + f'<pre class="code"><code>{_e(code)}</code></pre></div>'
    )


def histogram_svg(dim: Dimension, buckets: Sequence[int], number: int = 0, lang: str = "en") -> str:
    """Compiles per size of the varying dimension; bucket sizes green, others red."""
    counts = Counter(dim.sizes)
    sizes = sorted(counts)
    width, left, top, plot_h, bottom = 1000, 40, 16, 110, 30
    height = top + plot_h + bottom
    lo, hi = sizes[0], sizes[-1]
    spread = max(1, hi - lo)
    plot_w = width - left - 20
    bar = max(3.0, min(40.0, plot_w / (len(sizes) * 1.6), plot_w / spread * 0.7))
    most = max(counts.values())
    label = say(
        "report.histogram",
        lang,
        dim=dim.label(say("report.axis", lang)),
        buckets=listing(buckets, lang),
    )
    out = [
        f'<svg class="histogram" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="hg-{number}" preserveAspectRatio="xMinYMin meet">',
        f'<title id="hg-{number}">{_e(label)}</title>',
        f'<line x1="{left}" x2="{left + plot_w}" y1="{top + plot_h}" y2="{top + plot_h}" '
        'stroke="#6b7280"/>',
    ]
    for size in sizes:
        x = left + bar + (plot_w - 2 * bar) * (size - lo) / spread
        h = max(2.0, (plot_h - 14) * counts[size] / most)
        is_bucket = size in buckets
        colour = KIND_COLORS[CallKind.CACHE_HIT if is_bucket else CallKind.RECOMPILE]
        compiles = say("n.compiles", lang, n=counts[size])
        tip = say("report.hist.tip", lang, size=size, compiles=compiles)
        tip += (
            say("report.hist.bucket", lang)
            if is_bucket
            else say("report.hist.padded", lang, bucket=_bucket_of(size, buckets))
        )
        out.append(
            f'<rect x="{x - bar / 2:.1f}" y="{top + plot_h - h:.1f}" width="{bar:.1f}" '
            f'height="{h:.1f}" fill="{colour}"><title>{_e(tip)}</title></rect>'
        )
        if is_bucket:
            out.append(
                f'<text x="{x:.1f}" y="{top + plot_h - h - 3:.1f}" text-anchor="middle" '
                f'class="tick">▼{size}</text>'
            )
        if len(sizes) <= 24 or is_bucket:
            out.append(
                f'<text x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle" '
                f'class="tick">{size}</text>'
            )
    out.append("</svg>")
    return "".join(out)


def _bucket_of(size: int, buckets: Sequence[int]) -> int:
    return min((b for b in buckets if b >= size), default=size)


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


_CSS = """
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
ul.reasons { margin: 4px 0; padding-left: 22px; }
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
