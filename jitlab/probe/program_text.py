"""A compiled program's texts, printed and counted: StableHLO printed in pieces (so the GIL
changes hands while it prints), HLO instructions counted without printing, XLA's figures
read tolerantly (their keys and types vary by backend and version).
"""

from __future__ import annotations

import re
from typing import Any, TypeGuard

from jitlab.probe import _jax


class _Pieces:
    """A text file that keeps what is written to it. Its ``write`` is Python, so the thread
    printing into it lets other threads run between two pieces (a C ``write`` would not)."""

    __slots__ = ("pieces",)

    def __init__(self) -> None:
        self.pieces: list[str] = []

    def write(self, piece: str) -> int:
        self.pieces.append(piece)
        return len(piece)


def stablehlo_text(lowered: Any) -> str:
    """``lowered.as_text()``, printed in pieces: one C++ call prints the whole module (some 50
    ms with the GIL held, and so the GUI thread stalled, for a 10,000-line program), while
    MLIR printing into a Python file hands each piece to Python, where the GIL changes hands.
    The module is JAX's own, verified when it was made (``assume_verified`` skips verifying
    it again, itself a long C++ step); the text is the same (``tests/probe/test_scripts.py``).
    """
    try:
        out = _Pieces()
        lowered.compiler_ir("stablehlo").operation.print(
            file=out, enable_debug_info=False, assume_verified=True
        )
        return "".join(out.pieces)
    except Exception:
        return lowered.as_text()


def hlo_census(compiled: Any) -> tuple[int, bool] | None:
    """(instructions in every computation, whether any is a loop) of a compiled program,
    read from its HLO modules without printing them (the count :func:`count_hlo_instructions`
    reads from the text); None when the executable does not offer its modules."""
    computations = _jax.hlo_opcodes(compiled)
    if computations is None:
        # Below JAX 0.10 the modules list no instructions: counted from the text, printed once.
        try:
            text = compiled.as_text()
        except Exception:
            return None
        if not text:
            return None
        return count_hlo_instructions(text), "while(" in text and bool(HLO_LOOP.search(text))
    count = sum(len(opcodes) for opcodes in computations)
    return count, any("kWhile" in opcodes for opcodes in computations)


# One instruction per line inside a computation: ``%name = type op(...)`` or ``ROOT ...``.
_HLO_INSTRUCTION = re.compile(r"^\s+(ROOT\s+)?%?[\w.\-]+\s*=\s*\S")

_HLO_COMPUTATION = re.compile(r"^(ENTRY\s+)?%?[\w.\-]+\s.*\{\s*$")

HLO_LOOP = re.compile(r"\)?\s+while\(")

_STABLEHLO_OP = re.compile(r"^\s*(%[\w#:, %]+\s*=\s*)?\"?(stablehlo|chlo|sdy|mhlo)\.[\w.]+")


def count_hlo_instructions(hlo: str) -> int:
    count = 0
    inside = False
    for line in hlo.splitlines():
        if not inside:
            inside = bool(_HLO_COMPUTATION.match(line)) and not line.startswith("HloModule")
            continue
        if line.startswith("}"):
            inside = False
        elif _HLO_INSTRUCTION.match(line):
            count += 1
    return count


def count_stablehlo_ops(text: str) -> int:
    return sum(1 for line in text.splitlines() if _STABLEHLO_OP.match(line))


def cost_dict(cost: Any) -> dict[str, Any]:
    """``Compiled.cost_analysis()``: a dict (older JAX: a list of one dict per device)."""
    if _per_device(cost):
        cost = cost[0] if cost else {}
    return dict(cost) if _costs(cost) else {}


def _per_device(cost: object) -> TypeGuard[list[Any] | tuple[Any, ...]]:
    """Older JAX's cost analysis: one entry per device."""
    return isinstance(cost, list | tuple)


def _costs(cost: object) -> TypeGuard[dict[str, Any]]:
    """One device's cost analysis: figures by name (``flops``, ``bytes accessed``…)."""
    return isinstance(cost, dict)


def as_float(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def as_int(value: Any) -> int | None:
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None
