"""The signature ledger and the bucket suggestion of one function, as data (no Qt, no JAX).

The ledger is one row per compile (first compile, recompile, persistent-cache load) of a
recording's typed calls (:class:`~jitlab.records.lines.RecordedCall`), one column per
argument leaf and static argument; a cell that differs from the row above is what made JAX
compile again. The bucket suggestion reads the compiled signatures for the dimension whose
size keeps changing (usually the batch) and proposes bucket sizes with
:func:`~jitlab.recordings.reader.suggest_buckets`, plus the code that pads each call up to its
bucket.

The app's ledger and shape histogram (``jitlab/gui/views/ledger_view.py``,
``jitlab/gui/views/shape_histogram.py``) and ``jitlab report`` all read it: the report needs no Qt.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from jitlab.recordings.reader import suggest_buckets
from jitlab.records.calls import CallKind, Change, LeafSpec, Signature
from jitlab.records.changes import ChangeKind, parse_type
from jitlab.records.lines import RecordedCall

# The app's colours and words for each kind (jitlab/gui/style.py), for faces without Qt.
KIND_COLORS = {
    CallKind.COMPILE: "#e3a21a",
    CallKind.RECOMPILE: "#e0323f",
    CallKind.CACHE_HIT: "#2f9e4f",
    CallKind.PERSISTENT_HIT: "#1f9bbf",
    CallKind.ERROR: "#a347c9",
    CallKind.EAGER: "#7f8c8d",
    CallKind.TRACED: "#95a5a6",
}
KIND_NAMES = {
    CallKind.COMPILE: "first compile",
    CallKind.RECOMPILE: "recompile",
    CallKind.CACHE_HIT: "cache hit",
    CallKind.PERSISTENT_HIT: "persistent-cache hit",
    CallKind.ERROR: "error",
    CallKind.EAGER: "eager (jit disabled)",
    CallKind.TRACED: "traced into an outer computation",
}


@dataclass(frozen=True)
class LedgerRow:
    """One compiled signature, as a recorded call describes it."""

    call: RecordedCall
    signature: Signature | None
    cells: dict[str, str]  # signature column key → text ("" when the leaf is absent)


def signature_cells(signature: Signature | None) -> dict[str, str]:
    """Column key → cell text for one signature (keys: leaf paths, ``static:NAME``, ``fn``)."""
    if signature is None:
        return {}
    cells: dict[str, str] = {}
    for leaf in signature.leaves:
        text = leaf.type_text
        if leaf.sharding:
            text += f" @ {leaf.sharding}"
        cells[leaf.path] = text
    for name, value in signature.statics:
        cells[f"static:{name}"] = value
    cells["fn"] = str(signature.function)
    return cells


def ledger_rows(calls: Sequence[RecordedCall]) -> list[LedgerRow]:
    """The compiled calls of one function, in order, with their signature cells."""
    return [
        LedgerRow(call, call.record.signature, signature_cells(call.record.signature))
        for call in calls
        if call.record.kind.compiled
    ]


def signature_columns(rows: Sequence[LedgerRow]) -> list[str]:
    """Union of the signature column keys in order of appearance.

    The function-object generation gets a column only when it changed (a redefined function).
    """
    keys: list[str] = []
    seen: set[str] = set()
    for row in rows:
        for key in row.cells:
            if key not in seen and key != "fn":
                seen.add(key)
                keys.append(key)
    if len({row.cells.get("fn") for row in rows if row.cells}) > 1:
        keys.append("fn")
    return keys


def column_title(key: str) -> str:
    """The header of a signature column: the argument path, ``NAME (static)``."""
    if key == "fn":
        return "function object"
    if key.startswith("static:"):
        return f"{key[7:]} (static)"
    return key


def differs(rows: Sequence[LedgerRow], row: int, key: str) -> bool:
    """Whether signature cell ``key`` of ``rows[row]`` differs from the row above (both known)."""
    if row == 0:
        return False
    this, before = rows[row], rows[row - 1]
    if this.signature is None or before.signature is None:
        return False
    return this.cells.get(key, "—") != before.cells.get(key, "—")


def ever_changed(rows: Sequence[LedgerRow], key: str) -> bool:
    """Whether column ``key`` differs between two neighbouring rows that both have a signature."""
    return any(
        this.signature is not None
        and before.signature is not None
        and this.cells.get(key, "—") != before.cells.get(key, "—")
        for before, this in pairwise(rows)
    )


# -- buckets ---------------------------------------------------------------------------------
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SIZED = (ChangeKind.SHAPE, ChangeKind.DTYPE, ChangeKind.WEAK_TYPE, ChangeKind.NEW_ARGUMENT)


@dataclass(frozen=True)
class Dimension:
    """Axes that change size together across a function's compiled signatures."""

    axes: tuple[tuple[str, int], ...]  # (leaf path, axis)
    sizes: tuple[int, ...]  # the size at each compile where the axes exist, in order

    @property
    def distinct(self) -> list[int]:
        return sorted(set(self.sizes))

    def label(self, template: str = "%1 (axis %2)") -> str:
        """``x (axis 0), y (axis 0)``; ``template`` is the translated form of one axis."""
        return ", ".join(
            template.replace("%1", path).replace("%2", str(axis)) for path, axis in self.axes
        )


def varying_dimensions(signatures: Sequence[Signature]) -> list[Dimension]:
    """Axes whose size differs between compiles, grouped when they always change together.

    An axis counts when its leaf keeps its rank in every signature that has it; the most
    varied dimension comes first (that is usually the batch or the sequence length).
    """
    per_axis: dict[tuple[str, int], list[int | None]] = {}
    ranks: dict[str, set[int]] = {}
    for sig in signatures:
        for leaf in sig.leaves:
            ranks.setdefault(leaf.path, set()).add(len(leaf.shape))
    for i, sig in enumerate(signatures):
        for leaf in sig.leaves:
            if len(ranks[leaf.path]) != 1:
                continue
            for axis, size in enumerate(leaf.shape):
                column = per_axis.setdefault((leaf.path, axis), [None] * len(signatures))
                column[i] = size
    groups: dict[tuple[int | None, ...], list[tuple[str, int]]] = {}
    for axis, column in per_axis.items():
        if len({s for s in column if s is not None}) > 1:
            groups.setdefault(tuple(column), []).append(axis)
    dims = [
        Dimension(tuple(axes), tuple(s for s in column if s is not None))
        for column, axes in groups.items()
    ]
    return sorted(dims, key=lambda d: (-len(d.distinct), d.axes))


def signature_from_changes(changes: Sequence[Change]) -> Signature | None:
    """The changed leaves' new types, read from a reason's shape changes (data, not text).

    Functions jitted before a watch began are seen through JAX's compile events only: no
    signature, but JAX names the leaves that changed, which is enough to suggest buckets.
    """
    leaves = []
    for change in changes:
        parsed = parse_type(change.after) if change.kind in _SIZED else None
        if parsed is not None:
            dtype, shape, weak = parsed
            leaves.append(LeafSpec(change.path, shape, dtype, weak))
    return Signature(tuple(leaves), (), "") if leaves else None


def compiled_signatures(calls: Sequence[RecordedCall]) -> list[Signature]:
    """The signatures a function was compiled for, in order (events-only calls: the shapes
    JAX's reason names)."""
    signatures = []
    for call in calls:
        record = call.record
        if not record.kind.compiled:
            continue
        if record.signature is not None:
            signatures.append(record.signature)
        else:
            sig = signature_from_changes(record.reason.items if record.reason else ())
            if sig is not None:
                signatures.append(sig)
    return signatures


def padding(sizes: Sequence[int], buckets: Sequence[int]) -> int:
    """Total padding when every size is padded up to the smallest bucket that holds it."""
    ordered = sorted(buckets)
    total = 0
    for n in sizes:
        i = bisect_left(ordered, n)
        total += ordered[i] - n if i < len(ordered) else 0
    return total


def bucket_sizes(sizes: Sequence[int], max_compiles: int) -> list[int]:
    """``jitlab.recordings.reader.suggest_buckets``'s answer (the same buckets, ties included),
    computed with numpy, quick enough for the GUI thread (500 sizes, 167 buckets: ~12 ms
    instead of ~190 ms).

    The same dynamic programme: ``best[b][j]``, the least padding covering the sizes up to
    ``values[j]`` with ``b`` buckets, the last at ``values[j]``; its previous bucket the
    leftmost ``i < j`` that minimises ``best[b-1][i] + cost(i+1, j)``. Only the band of ``j``
    that can still lead to ``k`` buckets ending at the largest size is computed
    (``w = m - k + 1`` per layer), and for each ``j`` only the ``i`` from the previous layer's
    choice at ``j`` on (the padding cost is Monge, so with one more bucket the previous bucket
    moves no further left, and it moves right as ``j`` does): a layer is one array operation.
    Exact: every value is an integer below 2**53 in float64, else ``suggest_buckets`` runs.
    """
    if not sizes or max_compiles < 1:
        return []
    counts = Counter(sizes)
    values = sorted(counts)
    m = len(values)
    k = min(max_compiles, m)
    if k == m:  # a bucket at every size (more buckets always pad less)
        return values
    total = sum(counts.values())
    if 4 * total * max(abs(values[0]), abs(values[-1])) >= 2**53:
        return suggest_buckets(list(sizes), max_compiles)
    import numpy as np  # here: ``jitlab report`` and the other headless users go without it

    v = np.array(values, dtype=np.float64)
    count = np.array([counts[x] for x in values], dtype=np.float64)
    n = np.cumsum(count)  # n[j]: how many sizes are ≤ values[j]
    s = np.cumsum(count * v)  # s[j]: their sum
    # cost(i+1, j) = (n[j] - n[i]) * v[j] - (s[j] - s[i]): a part of i, a product, a part of j.
    # Band: layer b's column c is j = b - 1 + c, its row r is i = b - 2 + r (r ≤ c: i < j).
    own = n * v - s
    w = m - k + 1
    best = own[:w].copy()  # one bucket: everything up to values[j] padded to values[j]
    column = np.arange(w)
    first = np.zeros(w, dtype=np.intp)  # the first row worth trying for each column
    back = np.empty((k + 1, w), dtype=np.intp)
    for b in range(2, k + 1):
        rows = best + s[b - 2 : b - 2 + w]
        layer = np.empty(w)
        at = np.empty(w, dtype=np.intp)
        span = int((column - first).max()) + 1
        chunk = max(1, (1 << 20) // span)  # bounded memory however wide the rows
        for c0 in range(0, w, chunk):
            c = column[c0 : c0 + chunk]
            low = first[c0 : c0 + chunk]
            tried = low[:, None] + np.arange(int((c - low).max()) + 1)  # leftmost first
            beyond = tried > c[:, None]
            np.minimum(tried, c[:, None], out=tried)
            block = rows[tried] - n[b - 2 + tried] * v[b - 1 + c][:, None]
            block[beyond] = np.inf
            pick = block.argmin(axis=1)  # the first, as suggest_buckets keeps
            layer[c0 : c0 + chunk] = block[np.arange(c.size), pick]
            at[c0 : c0 + chunk] = low + pick
        back[b] = at
        best = layer + own[b - 1 : b - 1 + w]
        # Layer b + 1's column c is j = b + c, layer b's column c + 1: its choice, a row later.
        first[:-1] = np.maximum(at[1:] - 1, 0)
        first[-1] = first[-2] if w > 1 else 0
    buckets, c = [values[-1]], w - 1
    for b in range(k, 1, -1):
        c = int(back[b, c])
        buckets.append(values[b - 2 + c])
    return sorted(buckets)


SUGGESTED_AT_MOST = 8  # a first suggestion of buckets never asks for more compiles


def default_compiles(distinct: int) -> int:
    """A first suggestion: about a third of the compiles, always fewer than now, and at most
    :data:`SUGGESTED_AT_MOST` (a few buckets is the fix; 1,000 buckets for 3,000 sequence
    lengths is not, and would take the bucket search ~350 ms)."""
    if distinct <= 1:
        return 1
    return max(1, min(distinct - 1, math.ceil(distinct / 3), SUGGESTED_AT_MOST))


ENGLISH_COMMENTS = {
    "header": "%2: bucket sizes for %1, one compile each (%4 sizes seen)",
    "bucket": "The smallest bucket that holds n.",
    "larger": "larger than every bucket: one more compile",
    "pad": "Pad a with zeros along axis up to size.",
    "usage": "Before each call, pad to the bucket:",
    "nested": "pad these leaves the same way",
    "mask": "Only the first n rows are real: mask the padding out of sums and means",
    "call": "pass the padded arguments and the mask",
}


def bucket_code(
    function: str,
    dim: Dimension,
    buckets: Sequence[int],
    comments: dict[str, str] | None = None,
) -> str:
    """Python that pads each call of ``function`` up to its bucket (English comments unless
    ``comments`` says otherwise; ``header`` may use %1 dimension, %2 function, %4 sizes)."""
    if comments is None:
        comments = dict(ENGLISH_COMMENTS)
        comments["header"] = (
            comments["header"]
            .replace("%1", dim.label())
            .replace("%2", function)
            .replace("%4", str(len(dim.distinct)))
        )
    sizes = ", ".join(str(b) for b in buckets)
    axes = dict(dim.axes)
    lines = [
        f"# {comments['header']}",
        f"BUCKETS = ({sizes}{',' if len(buckets) == 1 else ''})",
        "",
        "",
        "def bucket(n: int) -> int:",
        f'    """{comments["bucket"]}"""',
        "    for size in BUCKETS:",
        "        if n <= size:",
        "            return size",
        f"    return n  # {comments['larger']}",
        "",
        "",
        "def pad_to(a, size: int, axis: int = 0):",
        f'    """{comments["pad"]}"""',
        "    widths = [(0, 0)] * a.ndim",
        "    widths[axis] = (0, size - a.shape[axis])",
        "    return jnp.pad(a, widths)",
        "",
        "",
        f"# {comments['usage']}",
    ]
    first_path, first_axis = dim.axes[0]
    lines.append(f"n = {first_path}.shape[{first_axis}]")
    lines.append("size = bucket(n)")
    simple = [p for p in axes if _IDENTIFIER.match(p)]
    for path in simple:
        lines.append(f"{path} = pad_to({path}, size, axis={axes[path]})")
    others = [p for p in axes if p not in simple]
    if others:
        lines.append(f"# {comments['nested']}: {', '.join(others)}")
    lines.append(f"# {comments['mask']}")
    lines.append("mask = jnp.arange(size) < n")
    call = function if _IDENTIFIER.match(function) else "f"
    lines.append(f"result = {call}(...)  # {comments['call']}")
    return "\n".join(lines)
