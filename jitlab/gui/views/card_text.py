"""A kitchen card in words: its label (what changed between the cards, shortened to fit)
and its tip (every argument). The words keep the kitchen canvas's translation context."""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication, QRectF, Qt
from PySide6.QtGui import QFontMetrics

from jitlab.gui.views.model import CardView
from jitlab.records.calls import LeafSpec


def shape_text(shape: tuple[int, ...], limit: int = 14) -> str:
    """``[8,32]``; a long shape keeps its rank, first and last dims: ``5-D [1024,…,224]``."""
    full = "[" + ",".join(str(d) for d in shape) + "]"
    if len(full) <= limit or len(shape) < 3:
        return full
    return f"{len(shape)}-D [{shape[0]},…,{shape[-1]}]"


def sharding_text(sharding: str | None, whole: bool = False) -> str:
    """``P(None, 'data') on mesh(data=8)`` → ``P(None,data)``; no sharding → ``1 device``.
    Specs arrive normalised as JAX's cache compares them (``P('data', None)`` is
    ``P('data',)``), and a one-entry tuple's comma is not shown: ``P(data)``. ``whole``: with
    its mesh (``P(x) mesh(x=2 explicit)``), where the layout alone tells no card apart."""
    if not sharding:
        return QCoreApplication.translate("KitchenCanvas", "1 device")
    spec, _, mesh = sharding.partition(" on ")
    text = spec.replace("'", "").replace('"', "").replace(" ", "")
    text = text.replace(",)", ")")
    return f"{text} {mesh}" if whole and mesh else text


def placement_words(leaf: LeafSpec, whole: bool = False, committed: bool = False) -> str:
    """Where a card's leaf was placed: its sharding (:func:`sharding_text`), the device it
    was committed to (``cpu:1``), or ``uncommitted`` beside cards committed to a device
    (``committed``), else ``1 device``."""
    if leaf.sharding or not (leaf.device or committed):
        return sharding_text(leaf.sharding, whole)
    return leaf.device or QCoreApplication.translate("KitchenCanvas", "uncommitted")


def varying_shape_text(shape: tuple[int, ...], varying: set[int]) -> str:
    """Only the dims that tell cards apart, the others as ``·``: ``[8,·]`` for ``[8,64]``
    among ``[16,64]`` and ``[32,64]`` (the 64 is on every card: it tells nothing apart)."""
    if not varying or len(varying) == len(shape):
        return shape_text(shape)
    return "[" + ",".join(str(d) if i in varying else "·" for i, d in enumerate(shape)) + "]"


def dtype_words(leaf: LeafSpec) -> str:
    """``float32``, ``weak float32`` (a Python number's type, JAX's ``~f32``): NumPy's dtype
    names, as the app's other screens say them, never JAX's short ``f32``."""
    return (
        QCoreApplication.translate("KitchenCanvas", "weak %1").replace("%1", leaf.dtype)
        if leaf.weak_type
        else leaf.dtype
    )


def type_words(leaf: LeafSpec) -> str:
    """A leaf's whole type in words: ``float32[8,64]``, ``weak int32 scalar``."""
    if not leaf.shape:
        return QCoreApplication.translate("KitchenCanvas", "%1 scalar").replace(
            "%1", dtype_words(leaf)
        )
    return dtype_words(leaf) + "[" + ",".join(str(d) for d in leaf.shape) + "]"


def leaf_text(leaf: LeafSpec, what: set[str], varying: set[int] | None = None) -> str:
    """The parts of one leaf named in ``what`` (``shape``, ``dtype``, ``sharding``, and
    with it ``mesh`` or ``device`` where those tell it apart); ``varying``: the dims that
    differ from other cards (only those are spelled out)."""
    dtype = dtype_words(leaf)
    parts = []
    if not leaf.shape and what & {"dtype", "shape"}:
        parts.append(QCoreApplication.translate("KitchenCanvas", "%1 scalar").replace("%1", dtype))
    else:
        if "dtype" in what:
            parts.append(dtype)
        if "shape" in what:
            parts.append(
                varying_shape_text(leaf.shape, varying)
                if varying is not None
                else shape_text(leaf.shape)
            )
    if "sharding" in what:
        parts.append(placement_words(leaf, "mesh" in what, "device" in what))
    return " ".join(parts)


def _short_path(path: str) -> str:
    """``batch['weight']`` → ``weight``: the last key is what a reader recognises."""
    tail = re.findall(r"\[['\"]?([^\]'\"]+)['\"]?\]", path)
    return tail[-1] if tail and not tail[-1].isdigit() else path


def card_label(card: CardView, cards: list[CardView]) -> str:
    """What tells this card's signature apart from the other cards on show, in one line."""
    return " ".join(card_parts(card, cards))


def card_parts(card: CardView, cards: list[CardView]) -> list[str]:
    """What tells this card's signature apart from the other cards on show.

    Only the aspects that differ are named: a shape, a dtype, a sharding, a static value, an
    argument that only some cards have, or a new function object. A card alone in the holder
    shows its data argument.
    """
    sig = card.sig
    if sig is None:
        return [card.signature[:18]]
    name = card.key[0] if isinstance(card.key[0], str) else ""
    kin = [c for c in cards if c.key[0] == card.key[0]]
    if len(kin) < len(cards) and len(kin) == 1:
        return [name]  # the only card of its function: the function tells it apart
    others = [c.sig for c in kin if c is not card and c.sig is not None]
    mine = {leaf.path: leaf for leaf in sig.leaves}
    theirs = [{leaf.path: leaf for leaf in o.leaves} for o in others]
    parts: list[str] = []
    told: set[tuple] = set()  # the values already named (x [8,64] and y [8]: one batch size)
    for path, leaf in mine.items():
        what: set[str] = set()
        varying: set[int] = set()
        for other in theirs:
            twin = other.get(path)
            if twin is None:
                continue
            if twin.shape != leaf.shape:
                what.add("shape")
                if len(twin.shape) == len(leaf.shape):
                    varying |= {
                        i
                        for i, (a, b) in enumerate(zip(twin.shape, leaf.shape, strict=True))
                        if a != b
                    }
                else:
                    varying |= set(range(len(leaf.shape)))
            if twin.dtype != leaf.dtype or twin.weak_type != leaf.weak_type:
                what.add("dtype")
            if twin.placement != leaf.placement:
                what.add("sharding")
                if sharding_text(twin.sharding) == sharding_text(leaf.sharding):
                    # one layout on two meshes, or one device for another (or for none)
                    what.add("device" if not (twin.sharding or leaf.sharding) else "mesh")
        if what == {"shape"}:
            values = tuple(leaf.shape[i] for i in sorted(varying))
            if values in told:
                continue  # the same differing value as a leaf already named
            told.add(values)
        if what:
            parts.append(leaf_text(leaf, what, varying))
        elif others and any(path not in other for other in theirs):
            parts.append("+" + _short_path(path))
    for other in theirs:
        for path in other:
            if path not in mine and "−" + _short_path(path) not in parts:
                parts.append("−" + _short_path(path))
    statics = dict(sig.statics)
    for name, value in sig.statics:
        if any(dict(o.statics).get(name) != value for o in others):
            parts.append(f"{name}={value}")
    if not parts and any(o.function != sig.function for o in others):
        # another function object of the same code (numbered from 0, as cards and calls);
        # short enough for a card, the tip says it whole
        parts.append(
            QCoreApplication.translate("KitchenCanvas", "object #%1").replace(
                "%1", str(sig.function)
            )
        )
    if not parts and not others:
        # Alone in the holder: the data argument (not the weights), or the first leaf.
        data = [leaf for leaf in sig.leaves if "[" not in leaf.path] or list(sig.leaves)
        data = [leaf for leaf in data if leaf.shape] or data  # an array before a scalar
        if data:  # named: "x [8,64]" (a bare "[8,64]" does not say whose shape)
            parts.append(f"{_short_path(data[0].path)} {leaf_text(data[0], {'shape'})}")
        parts += [f"{k}={v}" for k, v in statics.items()][:1]
    # Identical to another card: another function object of the same name.
    return parts if parts else [name or "="]


def card_tip_lines(card: CardView) -> list[str]:
    """The full signature, one argument a line."""
    if card.sig is None:
        return [card.signature]
    lines = [leaf_tip(leaf) for leaf in card.sig.leaves]
    if card.sig.function:
        lines.append(
            QCoreApplication.translate(
                "KitchenCanvas", "function object #%1 of this code (a new one was jitted)"
            ).replace("%1", str(card.sig.function))
        )
    static = QCoreApplication.translate("KitchenCanvas", "%1 (static)")
    lines += [static.replace("%1", f"{name}={value}") for name, value in card.sig.statics]
    return lines or ["()"]


def leaf_tip(leaf: LeafSpec) -> str:
    """One argument of a card's tip: ``x: float32[8,64]``, ``lr: weak float32 scalar``."""
    placement = leaf.placement
    on = f" @ {placement}" if placement else ""
    return f"{leaf.path}: {type_words(leaf)}{on}"


def fit_card_text(
    label: str,
    metrics: QFontMetrics,
    rect: QRectF,
    parts: list[str] | None = None,
    others: list[list[str]] | None = None,
    two_lines: bool = False,
) -> str:
    """The card's label in its width: whole if it fits; else the one part no other card
    has (``f16`` of ``f16 ~f32 scalar``), or the dims every card shares left out (``[8,·]``
    → ``8``), then on two lines, and cut only when nothing else fits."""
    width = int(rect.width() - 4)
    if metrics.horizontalAdvance(label) <= width:
        return label
    taken = {p for other in others or [] for p in other}
    for part in sorted(parts or [], key=len):
        if part not in taken and metrics.horizontalAdvance(part) <= width:
            return part
    bare = re.sub(r"[\[\]]", "", re.sub(r",?·,?", "", label))
    if bare and metrics.horizontalAdvance(bare) <= width:
        return bare
    if two_lines:  # at a natural break: "P(None,\ndata)", "f32\n[8,·]"
        for at in [m.end() for m in re.finditer(r"[ ,]", label)]:
            first, rest = label[:at].rstrip(), label[at:].lstrip()
            if max(metrics.horizontalAdvance(first), metrics.horizontalAdvance(rest)) <= width:
                return f"{first}\n{rest}"
    # Words other cards have too, left off from the end ("scalar" of "weak float32 scalar"
    # beside "float32 scalar": "weak float32" on two lines still tells them apart).
    words = label.split(" ")
    labels = {" ".join(o) for o in others or []}
    shared = {w for other in labels for w in other.split(" ")}
    for k in range(1, len(words)):
        if not set(words[-k:]) <= shared:
            break
        shorter = " ".join(words[:-k])
        if shorter in labels:
            break
        if metrics.horizontalAdvance(shorter) <= width:
            return shorter
        if two_lines and " " in shorter:
            first, rest = shorter.rsplit(" ", 1)
            if max(metrics.horizontalAdvance(first), metrics.horizontalAdvance(rest)) <= width:
                return f"{first}\n{rest}"
    # "float32" of "float32 scalar" or "weak float32 scalar": the dtype says most (not "1"
    # of "1 device": a bare number would say nothing; not "weak" alone)
    words = label.split(" ")
    head = next((w for w in words if re.search(r"[A-Za-z][a-z]*[0-9]", w)), words[0])
    if (
        len(parts or []) <= 1
        and head != label
        and re.search(r"[A-Za-z]", head)
        and metrics.horizontalAdvance(head) <= width
    ):
        return head
    return metrics.elidedText(label, Qt.TextElideMode.ElideRight, width)


def signature_difference(a: CardView, b: CardView) -> list[str]:
    """What differs from ``a``'s signature to ``b``'s, one argument each (``x: f32[8,64] →
    f32[2,64]``, a static ``n=3 → 4``, ``—`` for an argument only one has); [] where the two
    are the same (another function object compiled it again) or were not recorded."""
    if a.sig is None or b.sig is None:
        return []

    def parts(card: CardView) -> dict[str, str]:
        assert card.sig is not None
        found = {
            leaf.path: leaf.type_text + (f" @ {leaf.sharding}" if leaf.sharding else "")
            for leaf in card.sig.leaves
        }
        found.update((name, value) for name, value in card.sig.statics)
        return found

    before, after = parts(a), parts(b)
    return [
        f"{path}: {before.get(path, '—')} → {after.get(path, '—')}"
        for path in dict.fromkeys([*before, *after])
        if before.get(path) != after.get(path)
    ]
