"""The signature ledger and the bucket suggestion of one function, as data (no Qt, no JAX).

The ledger is one row per compile (first compile, recompile, persistent-cache load) of a
recording's typed calls (:class:`~jitlab.records.lines.RecordedCall`), one column per
argument leaf and static argument; a cell that differs from the row above is what made JAX
compile again. The bucket suggestion reads the compiled signatures for the dimension whose
size keeps changing (usually the batch) and proposes bucket sizes with
:func:`~jitlab.recordings.buckets.suggest_buckets`, plus the code that pads each call up to its
bucket.

The app's ledger and shape histogram (``jitlab/gui/views/ledger_view.py``,
``jitlab/gui/views/shape_histogram.py``) and ``jitlab report`` all read it: the report needs no Qt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

# The bucket search lives in buckets.py; the app's views import it from here too.
from jitlab.recordings.buckets import SUGGESTED_AT_MOST as SUGGESTED_AT_MOST
from jitlab.recordings.buckets import default_compiles as default_compiles
from jitlab.recordings.buckets import padding as padding
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
        placement = leaf.placement
        cells[leaf.path] = f"{leaf.type_text} @ {placement}" if placement else leaf.type_text
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
    """Union of the signature column keys: those that changed between two compiles first
    (what made JAX compile again is never behind a sideways scroll past a model's unchanged
    parameters), then the others, each group in order of appearance. The app's ledgers, the
    report and the notebook all take this order.

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
    changed = [key for key in keys if ever_changed(rows, key)]
    return changed + [key for key in keys if key not in changed]


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
    for where, column in per_axis.items():
        if len({s for s in column if s is not None}) > 1:
            groups.setdefault(tuple(column), []).append(where)
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
    leaves: list[LeafSpec] = []
    for change in changes:
        parsed = parse_type(change.after) if change.kind in _SIZED else None
        if parsed is not None:
            dtype, shape, weak = parsed
            leaves.append(LeafSpec(change.path, shape, dtype, weak))
    return Signature(tuple(leaves), (), "") if leaves else None


def compiled_signatures(calls: Sequence[RecordedCall]) -> list[Signature]:
    """The signatures a function was compiled for, in order (events-only calls: the shapes
    JAX's reason names)."""
    signatures: list[Signature] = []
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
