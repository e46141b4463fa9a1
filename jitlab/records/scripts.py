"""The chef's scripts as plain data: what :mod:`jitlab.probe.scripts` makes, without JAX.

:class:`Script` (one card's program at every stage), its :class:`Figures` and
:class:`EquationLine` s, and :func:`compare` of two scripts. Each reads back from its
``to_json`` with ``from_json``, so a script kept in a ``jitlab watch --scripts`` recording
opens in ``jitlab open`` without importing JAX. :mod:`jitlab.probe.scripts` re-exports all of it.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, fields, replace
from typing import Any

from jitlab.records.calls import Signature
from jitlab.records.strict import is_object

__all__ = [
    "ON_REQUEST",
    "PARTS",
    "STABLEHLO_ON_REQUEST",
    "EquationLine",
    "FigureChange",
    "Figures",
    "Script",
    "ScriptDiff",
    "compare",
]

PARTS = ("source", "jaxpr", "stablehlo", "hlo", "figures")

#: ``Script.unavailable[part]`` of a text a script was made without: not a failure, the text
#: is printed when asked for (``Probe.script(card, stablehlo=False)`` leaves the StableHLO out;
#: a script window's script may leave out the plain jaxpr and a big optimized HLO as well).
ON_REQUEST = "printed when asked for"
STABLEHLO_ON_REQUEST = ON_REQUEST


@dataclass(frozen=True)
class EquationLine:
    """One jaxpr equation and the user's line that made it.

    ``index`` counts equations in a depth-first walk (a scan or cond body right after the
    equation that holds it, ``depth`` one deeper), the order ``jaxpr_lines`` lists them in.
    """

    index: int
    depth: int
    primitive: str
    file: str | None = None
    line: int | None = None
    function: str | None = None

    @property
    def where(self) -> str:
        """``file:line (function)``, or ``unknown`` when JAX kept no user frame."""
        if self.file is None:
            return "unknown"
        return f"{self.file}:{self.line} ({self.function})"

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EquationLine:
        return cls(
            int(data["index"]),
            int(data["depth"]),
            str(data["primitive"]),
            _str(data.get("file")),
            _whole(data.get("line")),
            _str(data.get("function")),
        )


@dataclass(frozen=True)
class Figures:
    """What a compiled program measures. ``None``: JAX or the backend did not say."""

    equations: int  # every equation, each sub-graph (scan body, cond branch) counted once
    top_level_equations: int
    hlo_instructions: int | None = None  # in every computation of the optimized HLO
    stablehlo_ops: int | None = None
    flops: float | None = None
    transcendentals: float | None = None
    bytes_accessed: float | None = None
    argument_bytes: int | None = None
    output_bytes: int | None = None
    temp_bytes: int | None = None
    generated_code_bytes: int | None = None
    # The compile that made the card, as the probe recorded it.
    trace_ms: float | None = None
    lower_ms: float | None = None
    compile_ms: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Figures:
        """Read back :meth:`to_json` (a figure missing or of the wrong type reads ``None``)."""
        values: dict[str, Any] = {}
        for f in fields(cls):
            value = data.get(f.name)
            if f.name in ("equations", "top_level_equations"):
                values[f.name] = _whole(value) or 0
            elif f.type in ("int | None", "int"):
                values[f.name] = _whole(value)
            else:
                values[f.name] = _real(value)
        return cls(**values)

    def text(self) -> str:
        width = max(len(f.name) for f in fields(self))
        lines: list[str] = []
        for f in fields(self):
            value = getattr(self, f.name)
            shown = "unknown" if value is None else _number(value)
            lines.append(f"{f.name:<{width}}  {shown}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Script:
    """The program JAX compiled for one card. Texts are plain ``str`` (they can be long)."""

    function: str
    card: int
    signature: Signature
    created_by: int | None  # the call that compiled the card
    source: str | None = None  # the user's Python function
    source_file: str | None = None
    source_line: int | None = None
    jaxpr: str | None = None  # as JAX prints it (compare two cards with this)
    jaxpr_annotated: str | None = None  # the same, each equation followed by its line
    jaxpr_lines: tuple[EquationLine, ...] = ()
    stablehlo: str | None = None  # jit(f).lower(...).as_text()
    hlo: str | None = None  # ....compile().as_text(): after XLA's optimisations
    figures: Figures | None = None
    unavailable: dict[str, str] = field(default_factory=dict)  # part -> why not
    notes: tuple[str, ...] = ()  # what the reader should know (JAX retraced, context differs)
    stdout: tuple[str, ...] = ()  # printed while JAX traced again for this script
    produce_ms: float = 0.0  # how long making this script took

    @property
    def complete(self) -> bool:
        return not self.unavailable

    @property
    def stablehlo_deferred(self) -> bool:
        """Made without its StableHLO text, which is printed when asked for (not a failure)."""
        return self.stablehlo is None and self.unavailable.get("stablehlo") == ON_REQUEST

    @property
    def deferred(self) -> tuple[str, ...]:
        """The texts it was made without, each printed when asked for (not failures):
        ``jaxpr`` (the plain one; the annotated one is there), ``stablehlo``, ``hlo``."""
        return tuple(
            part
            for part in ("jaxpr", "stablehlo", "hlo")
            if getattr(self, part) is None and self.unavailable.get(part) == ON_REQUEST
        )

    def with_part(self, part: str, other: Script) -> Script:
        """This script with ``other``'s text ``part`` (``jaxpr``, ``stablehlo`` or ``hlo``,
        printed after this one was made without it: see :attr:`deferred`), the figure counted
        from it, why it is missing if it is, and ``other``'s notes this one lacks."""
        figure = {"stablehlo": "stablehlo_ops", "hlo": "hlo_instructions"}.get(part)
        figures = self.figures
        if figure is not None and figures is not None and other.figures is not None:
            count = getattr(other.figures, figure)
            if count is not None:
                figures = replace(figures, **{figure: count})
        unavailable = {k: v for k, v in self.unavailable.items() if k != part}
        if getattr(other, part) is None and part in other.unavailable:
            unavailable[part] = other.unavailable[part]
        notes = (*self.notes, *(n for n in other.notes if n not in self.notes))
        return replace(
            self,
            **{part: getattr(other, part)},
            figures=figures,
            unavailable=unavailable,
            notes=notes,
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Script:
        """Read back :meth:`to_json`, whichever parts it kept (the others read ``None``).

        Raises (KeyError, TypeError, ValueError) on a shape it cannot take."""
        figures = data.get("figures")
        unavailable: Any = data.get("unavailable") or {}  # JSON: checked as it is read
        return cls(
            function=str(data["function"]),
            card=int(data["card"]),
            signature=Signature.from_json(data.get("signature") or {}),
            created_by=_whole(data.get("created_by")),
            source=_str(data.get("source")),
            source_file=_str(data.get("source_file")),
            source_line=_whole(data.get("source_line")),
            jaxpr=_str(data.get("jaxpr")),
            jaxpr_annotated=_str(data.get("jaxpr_annotated")),
            jaxpr_lines=tuple(EquationLine.from_json(e) for e in data.get("jaxpr_lines") or ()),
            stablehlo=_str(data.get("stablehlo")),
            hlo=_str(data.get("hlo")),
            figures=Figures.from_json(figures) if is_object(figures) else None,
            unavailable={str(k): str(v) for k, v in dict(unavailable).items()},
            notes=tuple(str(n) for n in data.get("notes") or ()),
            stdout=tuple(str(n) for n in data.get("stdout") or ()),
            produce_ms=_real(data.get("produce_ms")) or 0.0,
        )

    def text(self, part: str) -> str:
        """One part as text: ``source``, ``jaxpr`` (annotated), ``stablehlo``, ``hlo`` or
        ``figures``; a missing part reads ``unavailable: why``."""
        if part not in PARTS:
            raise ValueError(f"unknown script part {part!r}; choose from {', '.join(PARTS)}")
        if part == "figures":
            value: str | None = self.figures.text() if self.figures is not None else None
        elif part == "jaxpr":
            value = self.jaxpr_annotated or self.jaxpr
        else:
            value = getattr(self, part)
        if value is None:
            why = self.unavailable.get(part) or self.unavailable.get("script") or "not made"
            return f"unavailable: {why}"
        return value

    def to_json(self, parts: tuple[str, ...] = PARTS) -> dict[str, Any]:
        """Plain JSON values; only the texts named in ``parts`` (figures are always there)."""
        out: dict[str, Any] = {
            "function": self.function,
            "card": self.card,
            "created_by": self.created_by,
            "signature": self.signature.to_json(),
            "figures": self.figures.to_json() if self.figures is not None else None,
            "unavailable": dict(self.unavailable),
            "notes": list(self.notes),
            "stdout": list(self.stdout),
            "produce_ms": self.produce_ms,
        }
        if "source" in parts:
            out.update(
                source=self.source, source_file=self.source_file, source_line=self.source_line
            )
        if "jaxpr" in parts:
            out["jaxpr"] = self.jaxpr
            out["jaxpr_annotated"] = self.jaxpr_annotated
            out["jaxpr_lines"] = [line.to_json() for line in self.jaxpr_lines]
        if "stablehlo" in parts:
            out["stablehlo"] = self.stablehlo
        if "hlo" in parts:
            out["hlo"] = self.hlo
        return out


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _real(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _number(value: Any) -> str:
    if isinstance(value, float):
        if value.is_integer():
            return f"{value:,.0f}"
        return f"{value:,.3f}".rstrip("0").rstrip(".")
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


# -- comparing two cards -----------------------------------------------------------------------
@dataclass(frozen=True)
class FigureChange:
    name: str
    before: float | int | None
    after: float | int | None

    @property
    def delta(self) -> float | None:
        if self.before is None or self.after is None:
            return None
        return float(self.after) - float(self.before)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "before": self.before, "after": self.after, "delta": self.delta}


@dataclass(frozen=True)
class ScriptDiff:
    """Two scripts of one function side by side (``before`` → ``after``)."""

    before: Script
    after: Script
    jaxpr_diff: str  # unified diff; empty when the jaxprs are identical
    stablehlo_diff: str
    hlo_diff: str
    figures: tuple[FigureChange, ...]  # every figure, changed or not

    @property
    def same_jaxpr(self) -> bool:
        return self.before.jaxpr is not None and self.before.jaxpr == self.after.jaxpr

    @property
    def same_stablehlo(self) -> bool:
        return self.before.stablehlo is not None and self.before.stablehlo == self.after.stablehlo

    @property
    def same_hlo(self) -> bool:
        return self.before.hlo is not None and self.before.hlo == self.after.hlo

    @property
    def changed_figures(self) -> tuple[FigureChange, ...]:
        return tuple(c for c in self.figures if c.before != c.after)

    def to_json(self) -> dict[str, Any]:
        return {
            "before": {"function": self.before.function, "card": self.before.card},
            "after": {"function": self.after.function, "card": self.after.card},
            "same_jaxpr": self.same_jaxpr,
            "same_stablehlo": self.same_stablehlo,
            "same_hlo": self.same_hlo,
            "jaxpr_diff": self.jaxpr_diff,
            "stablehlo_diff": self.stablehlo_diff,
            "hlo_diff": self.hlo_diff,
            "figures": [c.to_json() for c in self.figures],
        }


def _diff(a: str | None, b: str | None, before: str, after: str) -> str:
    if a is None or b is None or a == b:
        return ""
    lines = difflib.unified_diff(
        a.splitlines(keepends=True), b.splitlines(keepends=True), before, after
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


# Figures that measure the program (compile times vary run to run and are listed after them).
def compare(a: Script, b: Script) -> ScriptDiff:
    """What differs between two scripts: their jaxprs, StableHLO and HLO as unified diffs,
    and every figure before and after."""
    name_a = f"{a.function} card {a.card}"
    name_b = f"{b.function} card {b.card}"
    changes: list[FigureChange] = []
    for f in fields(Figures):
        before = getattr(a.figures, f.name) if a.figures is not None else None
        after = getattr(b.figures, f.name) if b.figures is not None else None
        changes.append(FigureChange(f.name, before, after))
    return ScriptDiff(
        before=a,
        after=b,
        jaxpr_diff=_diff(a.jaxpr, b.jaxpr, name_a, name_b),
        stablehlo_diff=_diff(a.stablehlo, b.stablehlo, name_a, name_b),
        hlo_diff=_diff(a.hlo, b.hlo, name_a, name_b),
        figures=tuple(changes),
    )
