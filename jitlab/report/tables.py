"""The report's tables for one function: why it compiled again, the signature ledger
(:mod:`jitlab.recordings.ledger`) and the bucket suggestion (JAX-free)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from jitlab.recordings.buckets import (
    default_compiles,
    last_partial_batch,
    padding,
    suggest_buckets,
)
from jitlab.recordings.ledger import (
    ENGLISH_COMMENTS,
    KIND_COLORS,
    Dimension,
    LedgerRow,
    bucket_code,
    column_title,
    compiled_signatures,
    differs,
    ever_changed,
    signature_columns,
    varying_dimensions,
)
from jitlab.recordings.reader import Recording
from jitlab.records.calls import CallKind, Signature
from jitlab.records.change_words import render
from jitlab.records.changes import ChangeKind
from jitlab.records.diagnoses import Diagnosis, explain_command, page, page_url, sentence
from jitlab.records.messages import (
    CATALOGUE,
    kind_name,
    listing,
    say,
)
from jitlab.records.site_costs import (
    LISTED,
    call_paths,
    listed_sites,
    path_text,
    site_cells,
    site_heads,
)
from jitlab.records.text import format_ms, visible
from jitlab.report.figures import histogram_svg
from jitlab.report.functions import FunctionReport, cost_ms
from jitlab.report.html import esc

MAX_LEDGER_ROWS = 200  # per function and process; the timeline still shows every compile


# Signature columns per ledger, those that changed first: a 100,000-argument signature would
# make a page of 100,000 columns (and hundreds of MB to write it).
MAX_LEDGER_COLUMNS = 64


def diagnoses_section(found: Sequence[tuple[int | None, Diagnosis]], lang: str = "en") -> str:
    """What jitlab diagnosed about one function: each diagnosis's id, its sentence and a link
    to its page (any id; one from a newer jitlab by its id and page). ``found``: (process,
    diagnosis) pairs, the process None for a single recording."""
    if not found:
        return ""
    items: list[str] = []
    for process, d in sorted(found, key=lambda pair: not pair[1].problem):
        url, shown = page_url(d.id), page(d.id)
        command = f"<code>{esc(explain_command(d.id), lang)}</code>"
        if url is None:
            missing = say("diagnosis.page_missing", lang, page=shown)
            link = f'{command} <span class="missing">{esc(missing, lang)}</span>'
        else:
            name = esc(shown.rsplit("/", 1)[-1], lang)
            link = f'{command} (<a href="{esc(url, lang)}">{name}</a>)'
        text = sentence(d, lang)
        if process is not None:
            text = say("diagnosis.process", lang, index=process, line=text)
        note = "" if d.problem else f" <em>{esc(say('diagnosis.information', lang), lang)}</em>"
        items.append(f"<li><code>{esc(d.id, lang)}</code>{note} — {esc(text, lang)} {link}</li>")
    heading = say("diagnosis.heading", lang)
    return f'<h3>{esc(heading, lang)}</h3><ul class="diagnoses">{"".join(items)}</ul>'


def call_sites_section(recordings: Sequence[tuple[int | None, Recording]], lang: str = "en") -> str:
    """call-site-cost: the lines of the program whose calls compiled, costliest first (the
    process None for a single recording); nothing when nothing compiled."""
    ranked = [(process, listed_sites(r.calls)) for process, r in recordings]
    if not any(costs for _, costs in ranked):
        return ""
    heads = ([say("col.process", lang)] if len(ranked) > 1 else []) + list(site_heads(lang))
    rows: list[str] = []
    for process, costs in ranked:
        for cost in costs[:LISTED]:
            cells = [esc(c, lang) for c in site_cells(cost, lang)]
            cells[0] = f"<code>{cells[0]}</code>"
            numbers = "".join(f"<td class=num>{c}</td>" for c in cells[1:4])
            first = f"<td class=num>{process}</td>" if process is not None else ""
            rows.append(f"<tr>{first}<td>{cells[0]}</td>{numbers}<td>{cells[4]}</td></tr>")
        if len(costs) > LISTED:
            more = esc(say("n.more", lang, n=len(costs) - LISTED), lang)
            rows.append(f"<tr><td colspan={len(heads)}>{more}</td></tr>")
    head = "".join(f"<th>{esc(h, lang)}</th>" for h in heads)
    paths = ""
    for process, r in recordings:  # a helper called from several places: its callers
        rows_of = call_paths(r.calls)
        if not rows_of:
            continue
        said = say("sites.paths", lang)
        if process is not None:
            said = say("diagnosis.process", lang, index=process, line=said)
        items = "".join(
            f'<li style="margin-left:{1.6 * depth:.1f}em">{"← " if depth else ""}'
            f"<code>{esc(path_text(node, lang), lang)}</code></li>"
            for depth, node in rows_of
        )
        paths += f'<p class="note">{esc(said, lang)}</p><ul class="paths">{items}</ul>'
    title = esc(say("diagnosis.call_site_cost.title", lang).rstrip(":："), lang)
    note = esc(say("sites.note", lang), lang)
    return (
        f'<section id="call-sites"><h2>{title}</h2><p class="note">{note}</p>'
        f'<div class="scroll"><table class="sites"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>{paths}</section>"
    )


def reasons_section(f: FunctionReport, lang: str = "en") -> str:
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
    items: list[str] = []
    for (kind, path), n in counts.most_common(12):
        what = _change_words(kind, path, lang)
        item = say(
            "report.reason",
            lang,
            what=f"<strong>{esc(what, lang)}</strong>",
            times=say("n.times", lang, n=n),
            example=f"<code>{esc(examples[(kind, path)], lang)}</code>",
        )
        items.append(f"<li>{item}</li>")
    if len(counts) > 12:
        items.append(f"<li>{esc(say('n.more', lang, n=len(counts) - 12), lang)}</li>")
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
        "".join(f"<th>{esc(h, lang)}</th>" for h in heads),
        "</tr></thead><tbody>",
    ]
    for i, row in enumerate(rows[:limit]):
        call, r = row.call, row.call.record
        cells = [
            "?" if call.events_only else str(r.index),
            f'<span class="kind" style="color:{KIND_COLORS[r.kind]}">'
            f"{kind_name(r.kind, lang)}</span>",
            f"{call.t:.2f} s" if call.t is not None else "",
            format_ms(cost_ms(call)),
        ]
        tds = [f"<td>{c}</td>" for c in cells[:1]]
        tds += [f"<td class=kindcell>{cells[1]}</td>", f"<td class=num>{cells[2]}</td>"]
        tds.append(f"<td class=num>{cells[3]}</td>")
        for key in keys:
            text = "?" if row.signature is None else row.cells.get(key, "—")
            if differs(rows, i, key):
                before = rows[i - 1].cells.get(key, "—")
                changed = esc(say("report.ledger.before", lang, before=before), lang)
                tds.append(
                    f'<td class="sig changed" title="{changed}"><mark>{esc(text, lang)}</mark></td>'
                )
            else:
                tds.append(f"<td class=sig>{esc(text, lang)}</td>")
        tds.append(f"<td><small>{esc(call.called_from or '', lang)}</small></td>")
        semi = say("sep.semi", lang)
        reason = semi.join(render(c, lang) for c in r.reason.items) if r.reason else ""
        jax_words = r.reason.jax_explanation if r.reason else None
        title = f' title="JAX: {esc(jax_words, lang)}"' if jax_words else ""
        tds.append(f"<td class=reason{title}>{esc(reason, lang)}</td>")
        out.append(f"<tr>{''.join(tds)}</tr>")
    out.append("</tbody></table></div>")
    if hidden:
        more = say("report.ledger.more_columns", lang, n=hidden)
        out.append(f'<p class="note">{esc(more, lang)}</p>')
    if len(rows) > limit:
        more = say("report.ledger.more", lang, n=len(rows) - limit)
        out.append(f'<p class="note">{esc(more, lang)}</p>')
    return "".join(out)


def _column_title(key: str, lang: str) -> str:
    """:func:`~jitlab.recordings.ledger.column_title` in ``lang``."""
    if key == "fn":
        return say("report.ledger.function_object", lang)
    if key.startswith("static:"):
        return say("report.ledger.static", lang, name=key[7:])
    return column_title(key)


def _code_comments(function: str, dim: Dimension, lang: str) -> dict[str, str] | None:
    """The bucket code's comments in ``lang`` (None: English, bucket_code's own)."""
    if lang == "en":
        return None
    comments = {key: say(f"code.{key}", lang) for key in ENGLISH_COMMENTS}
    comments["header"] = (
        comments["header"]
        .replace("%1", dim.label(say("report.axis", lang)))
        .replace("%2", function)
        .replace("%4", str(len(dim.distinct)))
    )
    return comments


def buckets_section(f: FunctionReport, number: int, lang: str = "en") -> str:
    """Bucket sizes for the dimension that varies most, with the code that pads to them."""
    signatures: list[Signature] = []
    for calls in f.calls.values():
        signatures += compiled_signatures(calls)
    dims = varying_dimensions(signatures)
    if not dims:
        return ""
    dim = dims[0]
    distinct = dim.distinct
    function = visible(" ".join(f.function.split()), lang) or "f"  # bounded: named twice
    partial = last_partial_batch(dim.sizes)
    if partial is not None:
        # Batches of a full size, then a last partial one: pad it up (or drop it), whatever
        # the sizes (4 after 32 are both powers of two: not "already buckets").
        full, rest = partial
        text = say(
            "report.buckets.partial",
            lang,
            dim=f"<code>{esc(dim.label(say('report.axis', lang)), lang)}</code>",
            full=full,
            partial=rest,
            compiles=say("n.compiles", lang, n=len(dim.sizes)),
        )
        code = bucket_code(function, dim, [full], _code_comments(function, dim, lang))
        return (
            f'<div class="buckets"><h3>{say("report.buckets.title", lang)}</h3><p>{text}</p>'
            + histogram_svg(dim, [full], number, lang)
            + f'<pre class="code"><code>{esc(code, lang)}</code></pre></div>'
        )
    if all(n > 0 and n & (n - 1) == 0 for n in distinct):
        # Code that already pads to power-of-two buckets (a lesson's fix): say so, never
        # suggest padding it again.
        text = say(
            "report.buckets.already",
            lang,
            dim=f"<code>{esc(dim.label(say('report.axis', lang)), lang)}</code>",
            values=len(distinct),
            compiles=say("n.compiles", lang, n=len(dim.sizes)),
            sizes=esc(listing(sorted(distinct), lang), lang),
        )
        return f'<div class="buckets"><p>{text}</p></div>'
    buckets = suggest_buckets(distinct, default_compiles(len(distinct)))  # as the app suggests
    share = padding(distinct, buckets) / max(1, sum(distinct))
    text = say(
        "report.buckets",
        lang,
        dim=f"<code>{esc(dim.label(say('report.axis', lang)), lang)}</code>",
        values=len(distinct),
        compiles=say("n.compiles", lang, n=len(dim.sizes)),
        buckets=f"<strong>{esc(listing(buckets, lang), lang)}</strong>",
        fewer=say("n.compiles", lang, n=len(buckets)),
        share=f"{share:.0%}",
        tool="<code>suggest_buckets</code>",
    )
    text = f"<p>{text}</p>"
    code = bucket_code(function, dim, buckets, _code_comments(function, dim, lang))
    return (
        f'<div class="buckets"><h3>{say("report.buckets.title", lang)}</h3>'
        + text
        + histogram_svg(dim, buckets, number, lang)
        + f'<pre class="code"><code>{esc(code, lang)}</code></pre></div>'
    )
