"""One self-contained HTML page about a recording, to share: ``jitlab report run.jsonl``.

The page holds the run's header (what the ``start`` and ``process`` lines say, and "not
recorded" for the rest), then per function: a compile timeline (inline SVG drawn here, one
lane per process, a ``<title>`` tooltip per mark), the signature ledger (one row per compile,
a cell that differs from the row above highlighted: :mod:`jitlab.core.ledger`), the reasons
in English (:func:`jitlab.core.changes.render`), the time lost compiling, and, when one
dimension keeps changing size, bucket sizes from
:func:`~jitlab.core.recording.suggest_buckets` with the code that pads to them. Several
recordings of one ``jax.distributed`` job also get the divergence table of
:func:`jitlab.core.processes.merge`.

No script, no network, no external file: it opens in any browser and prints on white. Every
text that comes from a recording is escaped. JAX-free: reads recordings only.
"""

from __future__ import annotations

import datetime
import shlex
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import PurePath

from jitlab.core.changes import ChangeKind, render
from jitlab.core.ledger import (
    KIND_COLORS,
    KIND_NAMES,
    Dimension,
    LedgerRow,
    bucket_code,
    bucket_sizes,
    column_title,
    compiled_signatures,
    default_compiles,
    differs,
    ledger_rows,
    padding,
    signature_columns,
    varying_dimensions,
)
from jitlab.core.processes import MergedRecordings, merge, process_of
from jitlab.core.recording import (
    FunctionSummary,
    RecordedCall,
    Recording,
    summarize,
)
from jitlab.core.records import CallKind

NOT_RECORDED = "not recorded"
MAX_FUNCTIONS = 50  # functions with a section of their own (the rest: the overview table)
MAX_LEDGER_ROWS = 200  # per function and process; the timeline still shows every compile
MAX_MARKS = 400  # timeline marks per lane before compiles close together share one mark
_TIMELINE_KINDS = (CallKind.COMPILE, CallKind.RECOMPILE, CallKind.PERSISTENT_HIT, CallKind.ERROR)
_CHANGE_WORDS = {
    ChangeKind.SHAPE: "shape of {path}",
    ChangeKind.DTYPE: "dtype of {path}",
    ChangeKind.WEAK_TYPE: "weak type of {path}",
    ChangeKind.SHARDING: "sharding of {path}",
    ChangeKind.STATIC_VALUE: "static argument {path}",
    ChangeKind.TREE_STRUCTURE: "pytree structure",
    ChangeKind.KEYWORD_VS_POSITIONAL: "{path} passed by keyword or position",
    ChangeKind.NEW_ARGUMENT: "new argument {path}",
    ChangeKind.ARGUMENT_GONE: "argument {path} gone",
    ChangeKind.TRACING_CONTEXT: "tracing context {path}",
    ChangeKind.NEW_FUNCTION_OBJECT: "a new function object",
    ChangeKind.JIT_OPTIONS: "jit option {path}",
    ChangeKind.SHARED_EXECUTABLE: "another jax.jit of the same function",
    ChangeKind.CACHE_CLEARED: "JAX's cache cleared",
    ChangeKind.JAX_EXPLAINED: "JAX's own explanation",
    ChangeKind.RECORDED: "words from an older recording",
    ChangeKind.UNKNOWN: "jitlab cannot tell",
}


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
    line (the line's folder ignored, as :func:`~jitlab.core.processes.merge` does); most time
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
) -> str:
    """The whole page for ``recordings`` ((file name, recording) pairs, at least one)."""
    if not recordings:
        raise ValueError("a report needs at least one recording")
    sources, job = sources_of(recordings)
    functions = functions_of(sources, include_internal)
    merged = merge([(s.process, s.recording) for s in sources], include_internal) if job else None
    span = max(
        (c.t for s in sources for c in s.recording.calls if c.t is not None),
        default=0.0,
    )
    title = "jitlab report"
    start = sources[0].recording.start
    if start is not None and start.argv:
        title += " · " + " ".join(start.argv)[:120]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        f"<h1>{_e(title)}</h1>",
        _made(generated, jitlab_version),
        _header(sources, job),
        _overview(functions, sources, job, max_functions),
    ]
    if merged is not None:
        parts.append(_divergences(merged))
    for number, f in enumerate(functions[:max_functions], 1):
        parts.append(_function(number, f, sources, span))
    if len(functions) > max_functions:
        parts.append(
            f'<p class="note">{len(functions) - max_functions} more functions are in the '
            "overview table only.</p>"
        )
    parts.append(_LEGEND_NOTE)
    parts.append("</main></body></html>\n")
    return "\n".join(parts)


def _e(value: object) -> str:
    """Any text from a recording, safe inside HTML text and quoted attributes."""
    return escape(str(value), quote=True)


def _made(generated: str | None, version: str | None) -> str:
    bits = ["Made by <code>jitlab report</code>"]
    if version:
        bits.append(f" {_e(version)}")
    if generated:
        bits.append(f", {_e(generated)}")
    return f'<p class="made">{"".join(bits)}. One file: no script, no network.</p>'


def format_ms(ms: float) -> str:
    if ms >= 1000:
        return f"{ms / 1000:.2f} s"
    if ms >= 10:
        return f"{ms:.0f} ms"
    return f"{ms:.2f} ms"


def _when(seconds: float | None) -> str:
    if seconds is None:
        return NOT_RECORDED
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _or_missing(value: object) -> str:
    if value is None or value == "":
        return f'<span class="missing">{NOT_RECORDED}</span>'
    return _e(value)


def _header(sources: Sequence[Source], job: bool) -> str:
    """The run: one column per recording, one row per thing a recording may say."""
    heads = "".join(
        f"<th>{'process ' + str(s.process) if job else _e(PurePath(s.path).name)}</th>"
        for s in sources
    )
    rows: list[tuple[str, list[str]]] = []

    def row(name: str, cells: list[str]) -> None:
        rows.append((name, cells))

    row("file", [f"<code>{_e(s.path)}</code>" for s in sources])
    starts = [s.recording.start for s in sources]
    infos = [s.recording.process for s in sources]
    row(
        "program",
        [
            f"<code>{_e(shlex.join(st.argv))}</code>" if st and st.argv else _or_missing(None)
            for st in starts
        ],
    )
    row("started", [_or_missing(_when(st.time) if st and st.time else None) for st in starts])
    row(
        "host",
        [
            _or_missing((st.host if st else None) or (info.host if info else None))
            for st, info in zip(starts, infos, strict=True)
        ],
    )
    row("JAX", [_or_missing(st.jax if st else None) for st in starts])
    row("jitlab (recording)", [_or_missing(st.jitlab if st else None) for st in starts])
    row("backend", [_or_missing(None) for _ in sources])
    row("devices", [_devices(info) for info in infos])
    row("JAX flags (XLA_FLAGS, config)", [_or_missing(None) for _ in sources])
    row("process", [_process(info) for info in infos])
    compiled = [sum(c.record.kind.compiled for c in s.recording.calls) for s in sources]
    row("programs compiled", [str(n) for n in compiled])
    row("ended", [_ended(s.recording) for s in sources])
    body = "".join(
        f"<tr><th scope=row>{name}</th>{''.join(f'<td>{c}</td>' for c in cells)}</tr>"
        for name, cells in rows
    )
    return (
        '<section id="run"><h2>The run</h2>'
        f'<table class="header"><thead><tr><th></th>{heads}</tr></thead>'
        f"<tbody>{body}</tbody></table></section>"
    )


def _devices(info: object) -> str:
    local = getattr(info, "local_devices", None)
    total = getattr(info, "devices", None)
    if local is None and total is None:
        return _or_missing(None)
    parts = []
    if local is not None:
        parts.append(f"{local} on this process")
    if total is not None:
        parts.append(f"{total} in the job")
    return _e(", ".join(parts))


def _process(info: object) -> str:
    if info is None:
        return "single process"
    index, count = getattr(info, "index", None), getattr(info, "count", None)
    return _e(f"{index} of {count}" if count is not None else f"{index}")


def _ended(recording: Recording) -> str:
    words = "yes" if recording.ended else "no: the program was stopped, or is still running"
    if recording.partial_line:
        words += "; the last line was cut off"
    if recording.bad_lines:
        words += f"; {recording.skipped}"
    return _e(words)


def _overview(
    functions: Sequence[FunctionReport], sources: Sequence[Source], job: bool, shown: int
) -> str:
    total = sum(f.compile_ms for f in functions)
    if not functions:
        return (
            '<section id="functions"><h2>Functions</h2><p>Nothing was compiled while '
            "recording.</p></section>"
        )
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
    across = f" across {len(sources)} processes" if job else ""
    return (
        '<section id="functions"><h2>Functions</h2>'
        f"<p>Time lost compiling{across}: <strong>{format_ms(total)}</strong> "
        f"(trace + lower + compile) in {sum(f.executables for f in functions)} programs. "
        "Most time lost first.</p>"
        '<table class="overview"><thead><tr><th>function</th><th>programs compiled</th>'
        "<th>recompiles</th><th>cache hits</th><th>time lost compiling</th><th>share</th>"
        f"<th>signatures</th></tr></thead><tbody>{''.join(rows)}</tbody></table></section>"
    )


def _divergences(merged: MergedRecordings) -> str:
    if not merged.divergences:
        body = '<p class="ok">Every process compiled the same programs: no divergence.</p>'
    else:
        rows = []
        for d in merged.divergences:
            what = (
                f"compiled <code>{_e(d.signature)}</code>"
                if d.kind == "signature"
                else "compiled a different number of programs"
            )
            differing = "<br>".join(f"<code>{_e(x)}</code>" for x in d.fields) or "–"
            counts = ", ".join(f"{p}: {n}" for p, n in sorted(d.counts.items())) or "–"
            first = _e(d.first) if d.first else "–"
            rows.append(
                f"<tr><td>{_e(d.function)}"
                + (f"<br><small><code>{_e(d.defined_at)}</code></small>" if d.defined_at else "")
                + f"</td><td>{_e(', '.join(map(str, d.processes)))}</td>"
                f"<td>{_e(', '.join(map(str, d.others)))}</td><td>{what}</td>"
                f"<td>{differing}</td><td class=num>{_e(counts)}</td><td>{first}</td></tr>"
            )
        noun = "divergence" if len(rows) == 1 else "divergences"
        body = (
            f'<p class="bad">{len(rows)} {noun}: the processes did not compile the same '
            "programs. In SPMD code a collective then waits on the process still compiling, "
            "or two processes run different programs.</p>"
            '<table class="divergence"><thead><tr><th>function</th><th>processes</th>'
            "<th>but not</th><th>what</th><th>differs from the others in</th>"
            "<th>programs per process</th><th>first seen</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
        )
    return f'<section id="divergence"><h2>Divergence between processes</h2>{body}</section>'


# -- one function ----------------------------------------------------------------------------
def _function(number: int, f: FunctionReport, sources: Sequence[Source], span: float) -> str:
    several = len(sources) > 1
    processes = [s.process for s in sources if s.process in f.calls or s.process in f.summaries]
    where = f" <small>defined at <code>{_e(f.defined_at)}</code></small>" if f.defined_at else ""
    totals = [s.totals for s in f.summaries.values()]
    trace = sum(t.trace_ms for t in totals)
    lower = sum(t.lower_ms for t in totals)
    compile_ = sum(t.compile_ms for t in totals)
    hits = "not counted" if f.hits is None else str(f.hits)
    facts = (
        f"<p class=facts><strong>{f.executables}</strong> programs compiled "
        f"({f.recompiles} recompiles), cache hits: {hits}. "
        f"Time lost compiling: <strong>{format_ms(f.compile_ms)}</strong> "
        f"(trace {format_ms(trace)}, lower {format_ms(lower)}, compile {format_ms(compile_)})."
        "</p>"
    )
    parts = [
        f'<section class="function" id="fn-{number}"><div class="keep">',
        f"<h2>{number}. <code>{_e(f.function)}</code>{where}</h2>",
        facts,
        "<h3>When it compiled</h3>",
        timeline_svg(f, processes, span, number),
        "</div>",
        _reasons(f),
        "<h3>Signature ledger</h3>",
        '<p class="note">One row per program compiled, oldest first. A highlighted cell '
        "differs from the row above: that is what made JAX compile again.</p>",
    ]
    for process in processes:
        calls = f.calls.get(process, [])
        if several:
            parts.append(f"<h4>process {process}</h4>")
        parts.append(ledger_table(ledger_rows(calls)))
    parts.append(_buckets(f, number))
    parts.append("</section>")
    return "\n".join(parts)


def _marks(calls: Sequence[RecordedCall]) -> list[RecordedCall]:
    return [c for c in calls if c.record.kind in _TIMELINE_KINDS]


def _cost(call: RecordedCall) -> float:
    r = call.record
    return r.trace_ms + r.lower_ms + r.compile_ms


def _tooltip(call: RecordedCall, number: int) -> str:
    r = call.record
    bits = [f"{KIND_NAMES[r.kind]} #{number}"]
    if not call.events_only:
        bits.append(f"call {r.index}")
    if call.t is not None:
        bits.append(f"at {call.t:.2f} s")
    bits.append(format_ms(_cost(call)))
    text = ", ".join(bits)
    if r.signature is not None:
        text += f"\n{r.signature}"
    if r.reason is not None and r.kind is not CallKind.COMPILE:
        text += "\n" + "; ".join(render(c, "en") for c in r.reason.items)
    if r.error is not None:
        text += f"\n{r.error.type}: {r.error.message}"
    return text


def timeline_svg(f: FunctionReport, processes: Sequence[int], span: float, number: int = 0) -> str:
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
        domain = float(max((len(m) for m in all_marks.values()), default=1))
    most = max((_cost(c) for m in all_marks.values() for c in m), default=0.0) or 1.0
    count = sum(len(m) for m in all_marks.values())
    label = f"Compile timeline of {f.function}: {count} programs compiled or failed, over " + (
        f"{domain:.1f} s of recording" if timed else "the order of compiles"
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
        name = f"process {process}" if len(lanes) > 1 else "compiles"
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
                _tooltip(call, i)
                if len(group) == 1
                else f"{len(group)} compiles here, the costliest {format_ms(cost)}"
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
    caption = (
        "seconds since the recording started" if timed else "compiles in order (no times recorded)"
    )
    out.append(
        f'<text x="{left + plot_w}" y="{height - 2}" text-anchor="end" class="tick">'
        f"{caption}; bar height: time lost, up to {format_ms(most)}</text>"
    )
    out.append("</svg>")
    legend = "".join(
        f'<span class="key"><i style="background:{KIND_COLORS[k]}"></i>{KIND_NAMES[k]}</span>'
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


def _reasons(f: FunctionReport) -> str:
    """Why it compiled again, in English, most frequent first (one example each)."""
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
                examples.setdefault(key, render(change, "en"))
    if not recompiles:
        return ""
    items = []
    for (kind, path), n in counts.most_common(12):
        what = _CHANGE_WORDS.get(kind, str(kind)).replace("{path}", path or "?")
        times = "once" if n == 1 else f"{n} times"
        items.append(
            f"<li><strong>{_e(what)}</strong> — {times}; e.g. "
            f"<code>{_e(examples[(kind, path)])}</code></li>"
        )
    if len(counts) > 12:
        items.append(f"<li>… {len(counts) - 12} more</li>")
    return f"<h3>Why it compiled again</h3><ul class=reasons>{''.join(items)}</ul>"


def ledger_table(rows: Sequence[LedgerRow], limit: int = MAX_LEDGER_ROWS) -> str:
    """The signature ledger as a table; a changed cell is marked, with the old value in its
    ``title``."""
    if not rows:
        return '<p class="note">Nothing compiled.</p>'
    keys = signature_columns(rows)
    heads = ["#", "kind", "at", "cost", *(column_title(k) for k in keys), "called from"]
    heads.append("what changed")
    out = [
        '<div class="scroll"><table class="ledger"><thead><tr>',
        "".join(f"<th>{_e(h)}</th>" for h in heads),
        "</tr></thead><tbody>",
    ]
    for i, row in enumerate(rows[:limit]):
        call, r = row.call, row.call.record
        cells = [
            "?" if call.events_only else str(r.index),
            f'<span class="kind" style="color:{KIND_COLORS[r.kind]}">{KIND_NAMES[r.kind]}</span>',
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
                tds.append(
                    f'<td class="sig changed" title="changed, before: {_e(before)}">'
                    f"<mark>{_e(text)}</mark></td>"
                )
            else:
                tds.append(f"<td class=sig>{_e(text)}</td>")
        tds.append(f"<td><small>{_e(call.called_from or '')}</small></td>")
        reason = "; ".join(render(c, "en") for c in r.reason.items) if r.reason else ""
        jax_words = r.reason.jax_explanation if r.reason else None
        title = f' title="JAX: {_e(jax_words)}"' if jax_words else ""
        tds.append(f"<td class=reason{title}>{_e(reason)}</td>")
        out.append(f"<tr>{''.join(tds)}</tr>")
    out.append("</tbody></table></div>")
    if len(rows) > limit:
        out.append(
            f'<p class="note">… {len(rows) - limit} more compiles not listed; '
            "the timeline shows them all.</p>"
        )
    return "".join(out)


def _buckets(f: FunctionReport, number: int) -> str:
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
    compiles = "1 compile" if len(buckets) == 1 else f"{len(buckets)} compiles"
    text = (
        f"<p>The size of <code>{_e(dim.label())}</code> took {len(distinct)} values in "
        f"{len(dim.sizes)} compiles. Padding each call up to one of the bucket sizes "
        f"<strong>{_e(', '.join(map(str, buckets)))}</strong> cuts this to {compiles}, "
        f"at the cost of {share:.0%} padding over the sizes seen "
        f"(<code>suggest_buckets</code>: the least padding for {compiles}).</p>"
    )
    code = bucket_code(" ".join(f.function.split()) or "f", dim, buckets)
    return (
        '<div class="buckets"><h3>Bucket suggestion</h3>'
        + text
        + histogram_svg(dim, buckets, number)
        + f'<pre class="code"><code>{_e(code)}</code></pre></div>'
    )


def histogram_svg(dim: Dimension, buckets: Sequence[int], number: int = 0) -> str:
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
    label = f"Compiles per size of {dim.label()}; suggested buckets {', '.join(map(str, buckets))}"
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
        tip = f"size {size}: {counts[size]} compile{'s' if counts[size] > 1 else ''}"
        tip += " (a bucket)" if is_bucket else f" (padded to {_bucket_of(size, buckets)})"
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


_LEGEND_NOTE = (
    '<footer><p class="note">Kinds: <em>first compile</em> is the first program of a function; '
    "<em>recompile</em> any later one (a new signature, or a cache JAX no longer had); "
    "<em>persistent-cache hit</em> a program loaded from disk instead of compiled. Time lost "
    "is trace + lower + compile. Hover a mark or a highlighted cell for details.</p></footer>"
)

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
