"""What jitlab's objects look like in a notebook: HTML made by the report's own renderer
(:mod:`jitlab.report`), and a plain-text form for terminals and front-ends without HTML.

One renderer for the report page and the notebook: the header, overview table, each
function's facts, compile timeline (inline SVG), reasons and signature ledger are
:func:`jitlab.report.page.render_body`'s, the page's own body (each function folded under
its one-line summary here). This module only frames it for a notebook: the report's style
sheet (:data:`jitlab.report.page.CSS`) scoped to one output (a notebook is one page: a style
for ``body`` or ``table`` would restyle the whole notebook), ids made unique per output, and
what the report does not show — a probe's card holder, a script.

The objects are read, never imported: a :class:`~jitlab.probe.probe.Probe` or a
:class:`~jitlab.watching.recorder.Recorder` is turned into the report's
:class:`~jitlab.recordings.reader.Recording` by its public attributes, so this module
imports no JAX. Every recorded string is escaped (:func:`jitlab.report.html.esc`).
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import sys
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from jitlab.notebook.words import WORDS, say
from jitlab.recordings.reader import Recording
from jitlab.recordings.summary import summarize
from jitlab.records import diagnoses, messages
from jitlab.records.calls import CallKind
from jitlab.records.change_words import render as render_change
from jitlab.records.changes import ChangeKind
from jitlab.records.diagnoses import Diagnosis
from jitlab.records.lines import RecordedCall, RecordingStart
from jitlab.records.messages import kind_name, language_of
from jitlab.records.site_costs import LISTED, listed_sites, path_lines, site_cells, site_heads
from jitlab.records.text import FIELD_LIMIT, format_ms, visible
from jitlab.report.html import esc
from jitlab.report.page import CSS as PAGE_CSS
from jitlab.report.page import render_body

SCOPE = "jitlab-nb"
MAX_FUNCTIONS = 20  # functions with a section of their own in one output (the rest: a line)
MAX_CARDS = 100  # card holder rows shown
MAX_TEXT = 200_000  # characters of a script text shown (the rest: a note)

_outputs = itertools.count(1)


# -- the style sheet, scoped to one output ---------------------------------------------------
def scoped_css(css: str, scope: str = f".{SCOPE}") -> str:
    """``css`` with every rule applying inside ``scope`` only (``body`` and ``:root`` become
    the scope itself); ``@media`` blocks (the report's print style) are left out."""
    out = []
    depth, start, skipping = 0, 0, False
    i = 0
    while i < len(css):
        char = css[i]
        if char == "{":
            if depth == 0:
                selectors = css[start:i].strip()
                skipping = selectors.startswith("@")
                if not skipping:
                    out.append(_scope_selectors(selectors, scope) + " {")
                body_start = i + 1
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                if not skipping:
                    out.append(css[body_start:i].strip() + " }\n")
                start = i + 1
        i += 1
    return "".join(out)


def _scope_selectors(selectors: str, scope: str) -> str:
    scoped = []
    for selector in selectors.split(","):
        selector = " ".join(selector.split())
        if selector in ("body", ":root", "html"):
            scoped.append(scope)
        else:
            scoped.append(f"{scope} {selector}")
    return ", ".join(scoped)


_EXTRA_CSS = f"""
.{SCOPE} {{ background: #fff; color: #1f2328; padding: 10px 14px 6px; border: 1px solid #d0d7de;
  border-radius: 6px; max-width: 1100px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI",
  Roboto, "Noto Sans", sans-serif; overflow-x: auto; }}
.{SCOPE} h2.nb {{ font-size: 1.15em; margin: 2px 0 6px; border: 0; padding: 0; }}
.{SCOPE} details {{ margin: 6px 0; }}
.{SCOPE} details > summary {{ cursor: pointer; font-weight: 600; margin: 8px 0 0; }}
.{SCOPE} section.function {{ margin-top: 4px; }}
.{SCOPE} h2.sub {{ font-size: 1em; border: 0; margin: 10px 0 4px; padding: 0; }}
.{SCOPE} details > section.function > .keep > h2 {{ display: none; }}
.{SCOPE} pre.code {{ max-height: 28em; overflow: auto; }}
.{SCOPE} .live-state {{ font-size: 1.1em; font-weight: 600; margin: 4px 0; }}
.{SCOPE} table.figures td {{ font-variant-numeric: tabular-nums; }}
"""

CSS = scoped_css(PAGE_CSS) + _EXTRA_CSS


def framed(body: str, lang: str = "en") -> str:
    """One notebook output: ``body`` inside the scoped style, its ids unique on the page."""
    prefix = f"jl{next(_outputs)}-"
    for kind in ("fn-", "tl-", "hg-"):  # attribute values only: recorded quotes are escaped
        body = body.replace(f'"{kind}', f'"{prefix}{kind}').replace(
            f'"#{kind}', f'"#{prefix}{kind}'
        )
    for section in ("run", "functions", "divergence"):  # the page's sections: a sub-heading
        body = body.replace(
            f'<section id="{section}"><h2>', f'<section id="{prefix}{section}"><h2 class="sub">'
        )
    code = "zh-CN" if language_of(lang) == "zh" else "en"
    return f'<div class="{SCOPE}" lang="{code}"><style>{CSS}</style>{body}</div>'


# -- recordings ------------------------------------------------------------------------------
def recording_body(
    recording: Recording,
    name: str,
    lang: str = "en",
    *,
    title: str | None = None,
    include_internal: bool = False,
    max_functions: int = MAX_FUNCTIONS,
    header: bool = False,
) -> str:
    """The report's body for ``recording`` (``name``: how the report names its file), each
    function folded under its one-line summary; ``header``: with the run's header too."""
    notes = []
    if any(stats.hits is None for stats in summarize(recording, include_internal)):
        notes.append(say("cell.events_only", lang))
    body = render_body(
        [(name, recording)],
        include_internal=include_internal,
        max_functions=max_functions,
        lang=lang,
        header=header,
        folded=True,
        notes=notes,
    )
    return (f'<h2 class="nb">{esc(title, lang)}</h2>\n' if title else "") + body


def recording_text(recording: Recording, title: str, lang: str = "en") -> str:
    """The per-function table as ``jitlab watch`` prints it, in plain text (a terminal's,
    in IPython: every recorded string shown as written, :func:`_plain`): under each
    function, what differed between its compiles (a terminal IPython shows only this)."""
    rows = [
        [
            say(c, lang)
            for c in (
                "col.function",
                "col.compiles",
                "col.recompiles",
                "col.hits",
                "col.ms_compiling",
                "col.signatures",
            )
        ]
    ]
    changed: list[list[str]] = []  # per row: what differed between its compiles
    for s in summarize(recording, include_internal=False):
        rows.append(
            [
                visible(s.function, lang),  # bounded: the columns line up on it
                str(s.executables),
                str(s.recompiles),
                "-" if s.hits is None else str(s.hits),
                s.ms_text,
                str(len(s.signatures)) if s.signatures else "-",
            ]
        )
        words, more = s.listed_changes(lang)  # the most telling first, counted
        shown = [f"    {change} ×{n}" for change, n in words]
        if more:
            shown.append("    " + say("n.more", lang, n=more))
        changed.append(shown)
    if len(rows) == 1:
        return _plain(f"{title}\n{say('report.nothing_compiled', lang)}", lang)
    table = _aligned(rows)
    lines = [title, table[0]]
    for row, shown in zip(table[1:], changed, strict=True):  # under each function: why
        lines.append(row)
        if shown:
            colon = "：" if lang.startswith("zh") else ":"
            lines += [f"  {say('col.what_differed', lang)}{colon}", *shown]
    costs = listed_sites(recording.calls)
    if costs:  # call-site-cost: the calling lines, costliest first
        lines.append(say("diagnosis.call_site_cost.title", lang))
        sites = [list(site_heads(lang))] + [list(site_cells(c, lang)) for c in costs[:LISTED]]
        lines += ["  " + line for line in _aligned(sites)]
        if len(costs) > LISTED:
            lines.append("  " + say("n.more", lang, n=len(costs) - LISTED))
        lines += path_lines(recording.calls, lang)
    return _plain("\n".join(lines + diagnosis_lines(recording.every_diagnosis(), lang)), lang)


def _plain(text: str, lang: str) -> str:
    """A face's plain text, which a terminal may show (IPython's): each control or format
    character a recorded string holds written out, never sent raw, and each line bounded
    (a diagnosis naming a 30,000-character function elided, with its length said)."""
    bound = 2 * FIELD_LIMIT  # a table's row: its bounded name, and the counts beside it
    return "\n".join(visible(line, lang, limit=bound) for line in text.split("\n"))


def _aligned(rows: Sequence[Sequence[str]]) -> list[str]:
    """Plain-text columns: the first left-aligned, the others right-aligned. Widths are
    counted in terminal cells (a Chinese character takes two), not in characters."""
    from rich.cells import cell_len

    widths = [max(cell_len(row[i]) for row in rows) for i in range(len(rows[0]))]

    def pad(text: str, width: int) -> str:
        return " " * (width - cell_len(text))

    return [
        "  ".join(
            [row[0] + pad(row[0], widths[0])]
            + [pad(c, w) + c for c, w in zip(row[1:], widths[1:], strict=True)]
        ).rstrip()
        for row in rows
    ]


def diagnosis_lines(found: Sequence[Diagnosis], lang: str = "en") -> list[str]:
    """Each diagnosis's id, sentence and the command that prints its page, as ``jitlab
    summary`` says them (any id; the problems first)."""
    if not found:
        return []
    lines = [messages.say("diagnosis.title", lang)]
    lines += ["  " + diagnoses.listed_line(d, lang) for d in diagnoses.in_order(found)]
    return lines


# -- where a cell's function is -------------------------------------------------------------
_SITE_AT = re.compile(r"^(?P<file>.+?):(?P<line>[0-9]+)$")
_SITED = (ChangeKind.NEW_FUNCTION_OBJECT, ChangeKind.SHARED_EXECUTABLE)


def cell_of(site: str | None, lang: str = "en") -> str | None:
    """A definition site in a notebook's terms: ``/tmp/ipykernel_41/2760.py:2`` (the file
    IPython compiled a cell into) → ``cell [3], line 2``; any other site as it is."""
    if not site:
        return site
    m = _SITE_AT.match(site)
    number = _cell_number(m["file"]) if m else None
    if m is None or number is None:
        return site
    return say("cell.site", lang, n=number, line=m["line"])


def _cell_number(filename: str) -> int | None:
    """The execution count of the cell IPython compiled into ``filename`` (its compiler keeps
    the map: what its tracebacks name ``Cell In[3]`` by); None outside IPython."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    compiler = getattr(shell, "compile", None)
    if compiler is None:
        return None
    try:
        named = compiler.format_code_name(filename)  # ("Cell", "In[3]") (IPython 8+)
        if named:
            m = re.search(r"[0-9]+", str(named[1]))
            return int(m[0]) if m else None
    except Exception:  # older IPython: the map itself
        pass
    mapping = getattr(compiler, "_filename_map", None)
    number = mapping.get(filename) if isinstance(mapping, dict) else None
    return number if isinstance(number, int) else None


def in_cells(recording: Recording, lang: str = "en") -> Recording:
    """``recording`` with every site in a notebook cell named as the cell (functions, the
    lines that called them, their hits, scripts and diagnoses, new-function-object
    reasons); a copy of each call changed, the recorder's own calls untouched. JAX's own
    words (a reason's tooltip) stay as JAX wrote them."""
    names: dict[str | None, str | None] = {}

    def name(site: str | None) -> str | None:
        if site not in names:
            names[site] = cell_of(site, lang)
        return names[site]

    calls = []
    for call in recording.calls:
        reason = call.record.reason
        items = reason.items if reason is not None else ()
        sited = [c for c in items if c.kind in _SITED and name(c.path) != c.path]
        if sited and reason is not None:
            new = tuple(
                dataclasses.replace(c, path=name(c.path) or "") if c in sited else c for c in items
            )
            reason = dataclasses.replace(reason, items=new)
            call = dataclasses.replace(call, record=call.record._replace(reason=reason))
        stack = tuple(name(site) or site for site in call.stack)
        if (
            name(call.defined_at) != call.defined_at
            or name(call.called_from) != call.called_from
            or stack != call.stack
        ):
            call = dataclasses.replace(
                call,
                defined_at=name(call.defined_at),
                called_from=name(call.called_from),
                stack=stack,
            )
        calls.append(call)
    recording.calls = calls
    recording.hits = {(f, name(d)): n for (f, d), n in recording.hits.items()}
    recording.scripts = {((f, name(d)), i): s for ((f, d), i), s in recording.scripts.items()}
    recording.diagnoses = [dataclasses.replace(d, site=name(d.site)) for d in recording.diagnoses]
    return recording


def recording_of(recorder: Any) -> Recording:
    """What a :class:`~jitlab.watching.recorder.Recorder` holds, as the recording its file
    would read back as (the calls it kept, the hits it counts, its start line)."""
    recording = Recording(start=getattr(recorder.output, "first_line", None))
    recording.calls = list(recorder.calls)
    for stats in list(recorder.stats.values()):
        hits = stats.hits
        if hits is None or (not hits and not stats.compiles):
            continue  # as the recorder writes its hits lines
        recording.hits[(stats.name, stats.defined_at)] = hits
    if getattr(recorder, "blinded", 0):
        recording.notice_counts["listeners_removed"] = recorder.blinded
        recording.notices.append(("listeners_removed", None))
    recording.ended = not recorder.recording
    recording.diagnoses = list(getattr(recorder, "diagnoses", ()))
    return recording


def recorder_html(recorder: Any, lang: str = "en") -> str:
    title = say("recorder.title", lang)
    if recorder.path is not None:
        title += f" · {recorder.path}"
    if recorder.recording:
        title += " " + say("recorder.active", lang)
    recording = in_cells(recording_of(recorder), lang)
    return framed(recording_body(recording, "watch", lang, title=title), lang)


def recorder_text(recorder: Any, lang: str = "en") -> str:
    title = say("recorder.title", lang)
    if recorder.path is not None:
        title += f" · {recorder.path}"
    return recording_text(in_cells(recording_of(recorder), lang), title, lang)


def file_recording_html(recording: Recording, lang: str = "en", name: str = "run.jsonl") -> str:
    """A recording read from a file: the report's header too (what its start line says)."""
    return framed(recording_body(recording, name, lang, header=True), lang)


def file_recording_text(recording: Recording, lang: str = "en") -> str:
    start = recording.start
    title = say("recording.title", lang, name=" ".join(start.argv)[:80] if start else "")
    return recording_text(recording, title.strip(), lang)


# -- probes ----------------------------------------------------------------------------------
def probe_recording(probe: Any) -> Recording:
    """A :class:`~jitlab.probe.probe.Probe`'s compiles (its notable records: every compile it
    kept) and its exact hit count, as a recording of one function."""
    defined_at = _defined_at(probe)
    summary = probe.summary()
    calls = [RecordedCall(r, defined_at) for r in probe.notable]
    recording = Recording(start=RecordingStart(), calls=calls, ended=True)
    recording.hits[(probe.name, defined_at)] = summary.cache_hits
    recording.diagnoses = list(getattr(probe, "diagnoses", ()))
    return recording


def _defined_at(probe: Any) -> str | None:
    fn = getattr(getattr(probe, "wrapper", None), "fun", None) or getattr(probe, "function", None)
    code = getattr(getattr(fn, "__wrapped__", fn), "__code__", None)
    if code is None:
        return None
    return f"{code.co_filename}:{code.co_firstlineno}"


def probe_html(probe: Any, lang: str = "en") -> str:
    name = probe.name
    parts = [f'<h2 class="nb">{esc(say("probe.title", lang, function=name), lang)}</h2>']
    parts.append(_cards_table(probe, lang))
    dropped = getattr(probe, "dropped_records", 0)
    if dropped:
        parts.append(
            f'<p class="note">{esc(say("probe.records_dropped", lang, n=dropped), lang)}</p>'
        )
    parts.append(recording_body(in_cells(probe_recording(probe), lang), name, lang))
    return framed("\n".join(parts), lang)


def _cards_table(probe: Any, lang: str) -> str:
    with probe.ledger.lock:
        cards = list(probe.ledger.cards)
    heading = f"<h3>{esc(say('probe.cards', lang), lang)}</h3>"
    if not cards:
        return heading + f'<p class="note">{esc(say("probe.no_cards", lang), lang)}</p>'
    keys = ("card", "signature", "hits", "cost", "by")
    heads = "".join(f"<th>{esc(say(f'probe.card_head.{k}', lang), lang)}</th>" for k in keys)
    rows = []
    for card in cards[:MAX_CARDS]:
        rows.append(
            f"<tr><td class=num>#{card.index + 1}</td><td class=sig><code>"
            f"{esc(card.signature, lang)}</code></td><td class=num>{card.hits}</td>"
            f"<td class=num>{format_ms(card.compile_ms)}</td>"
            f"<td class=num>{card.created_by}</td></tr>"
        )
    if len(cards) > MAX_CARDS:
        rows.append(
            f"<tr><td colspan=5>{esc(say('n.more', lang, n=len(cards) - MAX_CARDS))}</td></tr>"
        )
    return (
        heading + f'<div class="scroll"><table class="cards"><thead><tr>{heads}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def probe_text(probe: Any, lang: str = "en") -> str:
    s = probe.summary()
    with probe.ledger.lock:
        cards = list(probe.ledger.cards)
    lines = [
        f"{say('probe.title', lang, function=probe.name)}: "
        + say("sep", lang).join(
            [
                say("n.calls", lang, n=s.calls),
                # every program compiled, of which the recompiles (one meaning everywhere)
                say("n.compiles", lang, n=s.compiles + s.recompiles)
                + (" ({})" if lang == "en" else "（其中 {}）").format(
                    say("n.recompiles", lang, n=s.recompiles)
                ),
                say("n.cache_hits", lang, n=s.cache_hits),
                format_ms(s.time_lost_ms),
            ]
        )
    ]
    for card in cards[:MAX_CARDS]:
        lines.append(
            f"  #{card.index + 1} {card.signature}  ({card.hits} × {format_ms(card.compile_ms)})"
        )
    found = in_cells(probe_recording(probe), lang).every_diagnosis()
    return _plain("\n".join(lines + diagnosis_lines(found, lang)), lang)


# -- scripts ---------------------------------------------------------------------------------
def script_html(script: Any, lang: str = "en") -> str:
    title = say("script.title", lang, function=script.function, card=script.card + 1)
    parts = [f'<h2 class="nb">{esc(title, lang)}</h2>']
    parts.append(
        f"<p><strong>{esc(say('script.signature', lang), lang)}</strong> "
        f"<code>{esc(script.signature, lang)}</code></p>"
    )
    if script.figures is not None:
        parts.append(f"<h3>{esc(say('script.figures', lang), lang)}</h3>")
        parts.append(_figures_table(script.figures, lang))
    for note in script.notes:
        parts.append(f'<p class="note">{esc(note, lang)}</p>')
    if script.source:
        where = ""
        if script.source_file:
            place = f"{script.source_file}:{script.source_line}"
            where = f" <small><code>{esc(place, lang)}</code></small>"
        # The long texts fold (open with a click): the figures and a comparison's diff keep
        # the lesson a page read top to bottom.
        parts.append(f"<details><summary>{esc(say('script.source', lang), lang)}{where}</summary>")
        parts.append(f'<pre class="code"><code>{esc(_cut(script.source, lang), lang)}</code></pre>')
        parts.append("</details>")
    jaxpr = script.jaxpr_annotated or script.jaxpr
    if jaxpr:
        parts.append(f"<details><summary>{esc(say('script.jaxpr', lang), lang)}</summary>")
        parts.append(f'<pre class="code"><code>{esc(_cut(jaxpr, lang), lang)}</code></pre>')
        parts.append("</details>")
    texts = [(name, getattr(script, name)) for name in ("stablehlo", "hlo")]
    if any(text for _, text in texts):
        parts.append(f"<details><summary>{esc(say('script.texts', lang), lang)}</summary>")
        for name, text in texts:
            if text:
                parts.append(f"<h4>{esc(name, lang)}</h4>")
                parts.append(f'<pre class="code"><code>{esc(_cut(text, lang), lang)}</code></pre>')
        parts.append("</details>")
    for part, why in script.unavailable.items():
        line = say("script.unavailable", lang, part=part, why=why)
        parts.append(f'<p class="note">{esc(line, lang)}</p>')
    return framed("\n".join(parts), lang)


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def uncoloured(text: str) -> str:
    """``text`` without terminal colours (JAX colours a jaxpr printed in a kernel)."""
    return _ANSI.sub("", text)


def _cut(text: str, lang: str) -> str:
    """A script's text as it reads: without terminal colours, and bounded."""
    text = uncoloured(text)
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + "\n… " + say("n.more", lang, n=len(text) - MAX_TEXT)


def _figures_table(figures: Any, lang: str) -> str:
    rows = []
    for f in fields(figures):
        value = getattr(figures, f.name)
        if value is None:
            shown = f'<span class="missing">{esc(say("script.unknown", lang), lang)}</span>'
        elif f.name.endswith("_ms"):
            shown = format_ms(float(value))
        elif isinstance(value, float):
            shown = f"{value:,.0f}"
        else:
            shown = f"{value:,}"
        name = figure_name(f.name, lang)
        rows.append(f"<tr><th scope=row>{esc(name, lang)}</th><td class=num>{shown}</td></tr>")
    return f'<table class="figures"><tbody>{"".join(rows)}</tbody></table>'


def script_text(script: Any, lang: str = "en") -> str:
    title = say("script.title", lang, function=script.function, card=script.card + 1)
    lines = [f"{title}: {script.signature}"]
    if script.figures is not None:  # each figure by its name in ``lang``, never the raw key
        figures = script.figures
        rows = []
        for f in fields(figures):
            value = getattr(figures, f.name)
            shown = say("script.unknown", lang) if value is None else _figure(f.name, value)
            rows.append([figure_name(f.name, lang), shown])
        lines += ["  " + line for line in _aligned(rows)]
    return _plain("\n".join(lines), lang)


def figure_name(name: str, lang: str) -> str:
    """A script figure's name in ``lang`` (a figure jitlab adds later: its key)."""
    return say(f"figure.{name}", lang) if f"figure.{name}" in WORDS else name


def _figure(name: str, value: Any) -> str:
    if name.endswith("_ms"):
        return format_ms(float(value))
    return f"{value:,.0f}" if isinstance(value, float) else f"{value:,}"


# -- the live view ---------------------------------------------------------------------------
def live_svg(
    samples: Sequence[tuple[float, float]],
    compiles: Sequence[RecordedCall],
    now: float,
    window: float,
    lang: str = "en",
) -> str:
    """The live chart: the last ``window`` seconds up to ``now`` (seconds since the cell
    began); a bar per compile (height: its cost), calls per second as a grey area
    (``samples``: (t, calls per second))."""
    from jitlab.recordings.ledger import KIND_COLORS

    width, height, left, right, top, bottom = 1000, 150, 12, 12, 10, 26
    plot_w, plot_h = width - left - right, height - top - bottom
    lo = max(0.0, now - window)
    span = max(now - lo, 1e-3)

    def x_of(t: float) -> float:
        return left + plot_w * min(max((t - lo) / span, 0.0), 1.0)

    out = [
        f'<svg class="live" viewBox="0 0 {width} {height}" role="img" '
        'preserveAspectRatio="xMinYMin meet">',
        f"<title>{esc(say('live.chart', lang, window=f'{window:.0f}'), lang)}</title>",
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fafbfc" '
        'stroke="#d0d4da"/>',
    ]
    legend: list[str] = []
    shown = [(t, r) for t, r in samples if t >= lo]
    most_rate = max((r for _, r in shown), default=0.0)
    if shown and most_rate > 0:
        base = top + plot_h
        points = [f"{x_of(shown[0][0]):.1f},{base}"]
        for t, rate in shown:
            points.append(f"{x_of(t):.1f},{base - (plot_h - 8) * rate / most_rate:.1f}")
        points.append(f"{x_of(shown[-1][0]):.1f},{base}")
        rate_text = say("live.rate", lang, n=f"{most_rate:,.0f}")
        out.append(
            f'<polygon points="{" ".join(points)}" fill="#d0d7de" fill-opacity="0.7" '
            f'stroke="#8c959f" stroke-width="1"><title>{esc(rate_text, lang)}</title></polygon>'
        )
        legend.append(say("live.peak_rate", lang, rate=rate_text))
    marks = [c for c in compiles if c.t is not None and c.t >= lo]
    most = max((_cost(c) for c in marks), default=0.0) or 1.0
    for call in marks:
        r = call.record
        h = max(8.0, (plot_h - 6) * _cost(call) / most)
        colour = KIND_COLORS.get(r.kind, "#6b7280")
        tip = f"{r.function}: {kind_name(r.kind, lang)} · {format_ms(_cost(call))}"
        if r.reason is not None and r.kind is CallKind.RECOMPILE:
            tip += "\n" + say("sep.semi", lang).join(render_change(c, lang) for c in r.reason.items)
        out.append(
            f'<rect x="{x_of(call.t or 0.0) - 2:.1f}" y="{top + plot_h - h:.1f}" width="4" '
            f'height="{h:.1f}" fill="{colour}"><title>{esc(tip, lang)}</title></rect>'
        )
    if marks:
        legend.append(say("live.tallest", lang, ms=format_ms(most)))
    for value in _live_ticks(lo, now):
        x = x_of(value)
        out.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top + plot_h}" y2="{top + plot_h + 4}" '
            f'stroke="#6b7280"/><text x="{x:.1f}" y="{height - 6}" text-anchor="middle" '
            f'class="tick">{esc(say("live.seconds", lang, s=f"{value:g}"), lang)}</text>'
        )
    out.append("</svg>")
    if legend:
        out.append(f'<p class="legend">{esc(say("sep", lang).join(legend), lang)}</p>')
    return "".join(out)


def _live_ticks(lo: float, hi: float) -> list[float]:
    span = max(hi - lo, 1e-3)
    step = next(
        s for s in (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1e9) if span / s <= 6
    )
    first = (int(lo / step) + (lo % step > 1e-9)) * step
    ticks, value = [], first
    while value <= hi + 1e-9:
        ticks.append(round(value, 6))
        value += step
    return ticks


def _cost(call: RecordedCall) -> float:
    r = call.record
    return r.trace_ms + r.lower_ms + r.compile_ms
