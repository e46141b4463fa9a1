"""The report's drawings, inline SVG: a compile timeline per function (one lane per process,
a ``<title>`` tooltip per mark) and the histogram of a varying dimension's sizes (JAX-free)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from jitlab.recordings.ledger import (
    KIND_COLORS,
    Dimension,
)
from jitlab.records.calls import CallKind
from jitlab.records.change_words import render
from jitlab.records.lines import RecordedCall
from jitlab.records.messages import (
    kind_name,
    listing,
    say,
)
from jitlab.records.text import format_ms
from jitlab.report.functions import FunctionReport, cost_ms
from jitlab.report.html import esc

MAX_MARKS = 400  # timeline marks per lane before compiles close together share one mark
TEXT_PX = 12  # the drawings' text size (``svg text`` in the report's style sheet)
# Room under a line of text's baseline: the descenders (g, p, y) and CJK glyphs reach about a
# quarter of the size below it; half the size leaves a margin whatever font the browser picks.
DESCENT_PX = TEXT_PX // 2


_TIMELINE_KINDS = (CallKind.COMPILE, CallKind.RECOMPILE, CallKind.PERSISTENT_HIT, CallKind.ERROR)


def _marks(calls: Sequence[RecordedCall]) -> list[RecordedCall]:
    return [c for c in calls if c.record.kind in _TIMELINE_KINDS]


def _tooltip(call: RecordedCall, number: int, lang: str = "en") -> str:
    r = call.record
    bits = [f"{kind_name(r.kind, lang)} #{number}"]
    if not call.events_only:
        bits.append(say("report.tip.call", lang, index=r.index))
    if call.t is not None:
        bits.append(say("report.tip.at", lang, t=f"{call.t:.2f}"))
    bits.append(format_ms(cost_ms(call)))
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
    width, left, right, lane_h, top = 1000, 90, 16, 64, 10
    tick_y, caption_y = 18, 34  # baselines below the axis: the ticks' values, the caption
    plot_w = width - left - right
    lanes = processes or [0]
    height = top + lane_h * len(lanes) + caption_y + DESCENT_PX
    all_marks = {p: _marks(f.calls.get(p, [])) for p in lanes}
    timed = any(c.t is not None for marks in all_marks.values() for c in marks)
    if timed:  # a little room after the last compile, so its mark is not on the edge
        last = max((c.t or 0.0) for m in all_marks.values() for c in m)
        domain = max(span, last, 1e-3) * 1.04
    else:
        # At least 1: a function the recording has only hits for has no mark at all.
        domain = float(max((len(m) for m in all_marks.values()), default=1)) or 1.0
    most = max((cost_ms(c) for m in all_marks.values() for c in m), default=0.0) or 1.0
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
        f'<title id="tl-{number}">{esc(label, lang)}</title>',
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
            f'class="lane">{esc(name, lang)}</text>'
        )
        marks = all_marks[process]
        placed: list[tuple[float, RecordedCall, int]] = []
        for i, call in enumerate(marks, 1):
            at = (call.t or 0.0) if timed else i - 0.5
            placed.append((left + plot_w * min(at / domain, 1.0), call, i))
        for x, group in _binned(placed, len(marks) > MAX_MARKS):
            call, i = group[0][1], group[0][2]
            kind = max((c.record.kind for _, c, _ in group), key=_TIMELINE_KINDS.index)
            cost = max(cost_ms(c) for _, c, _ in group)
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
            out.append(f"{shape}><title>{esc(tip, lang)}</title></rect>")
    axis_y = top + lane_h * len(lanes)
    for value in _ticks(domain):
        x = left + plot_w * value / domain
        text = (f"{value:g} s" if timed else f"#{int(value)}") if value else "0"
        out.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{axis_y}" y2="{axis_y + 5}" stroke="#6b7280"/>'
            f'<text x="{x:.1f}" y="{axis_y + tick_y}" text-anchor="middle" class="tick">'
            f"{text}</text>"
        )
    caption = say("report.caption.timed" if timed else "report.caption.order", lang)
    caption = say("report.caption.height", lang, caption=caption, ms=format_ms(most))
    out.append(
        f'<text x="{left + plot_w}" y="{axis_y + caption_y}" text-anchor="end" class="tick">'
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
    ticks: list[float] = []
    value = 0.0
    while value <= domain * 1.0001:
        ticks.append(round(value, 10))
        value += step
    return ticks


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
        f'<title id="hg-{number}">{esc(label, lang)}</title>',
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
            f'height="{h:.1f}" fill="{colour}"><title>{esc(tip, lang)}</title></rect>'
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
