"""A script's figures (equations, flops, bytes, times): their names and how they print."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem

from jitlab.records.text import format_ms


def _human(value: float | int | None) -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and value != int(value):
        return f"{value:,.2f}"
    return f"{int(value):,}"


def _bytes(value: float | int | None) -> str:
    if value is None:
        return "—"
    value = float(value)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{value:,.0f} {unit}" if unit == "B" else f"{value:,.1f} {unit}"
        value /= 1024
    return ""


def _ms(value: float | None) -> str:
    return "—" if value is None else format_ms(value)


FIGURE_ORDER = (
    "equations",
    "top_level_equations",
    "stablehlo_ops",
    "hlo_instructions",
    "flops",
    "transcendentals",
    "bytes_accessed",
    "argument_bytes",
    "output_bytes",
    "temp_bytes",
    "generated_code_bytes",
    "trace_ms",
    "lower_ms",
    "compile_ms",
)


def figure_text(name: str, value: Any) -> str:
    """``value`` of the figure ``name`` as the windows print it (ms, bytes, or a count)."""
    if name.endswith("_ms"):
        return _ms(value)
    if name.endswith("bytes") or name == "bytes_accessed":
        return _bytes(value)
    return _human(value)


class _Figures(QObject):
    """The figures' names in the interface language (one ``tr`` context for both windows)."""

    def names(self) -> dict[str, str]:
        return {
            "equations": self.tr("jaxpr equations (sub-graphs once)"),
            "top_level_equations": self.tr("top-level equations"),
            "stablehlo_ops": self.tr("StableHLO operations"),
            "hlo_instructions": self.tr("HLO instructions (optimized)"),
            "flops": self.tr("flops (XLA's estimate)"),
            "transcendentals": self.tr("transcendentals"),
            "bytes_accessed": self.tr("bytes accessed"),
            "argument_bytes": self.tr("argument memory"),
            "output_bytes": self.tr("output memory"),
            "temp_bytes": self.tr("temporary memory"),
            "generated_code_bytes": self.tr("generated code"),
            "trace_ms": self.tr("trace time (when compiled)"),
            "lower_ms": self.tr("lower time"),
            "compile_ms": self.tr("compile time"),
        }


def figure_names() -> dict[str, str]:
    """Each figure's name in the interface language."""
    return _Figures().names()


def figure_table(columns: int) -> QTableWidget:
    """A read-only table of figures: names stretch, numbers take what they need."""
    table = QTableWidget(0, columns)
    table.verticalHeader().hide()
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
    header = table.horizontalHeader()
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    for c in range(1, columns):
        header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
    return table


def figure_cell(text: str, right: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item
