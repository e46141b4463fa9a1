"""Export what the lab measured: the chart as PNG, the call log as CSV or JSON.

The JSON holds the same objects as ``jitlab run --json``, then the summary; both files are
strict (non-finite floats are written as null).
"""

from __future__ import annotations

import csv
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from jitlab.gui.i18n import translate
from jitlab.gui.views.chart import ChartView
from jitlab.gui.views.model import RunState
from jitlab.records.calls import CallRecord, dumps_strict
from jitlab.records.change_words import call_json

CSV_FIELDS = (
    "index",
    "kind",
    "latency_ms",
    "trace_ms",
    "lower_ms",
    "compile_ms",
    "execute_ms",
    "variant",
    "params",
    "card",
    "signature",
    "reason",
    "error",
)


def ask(parent: QWidget, what: str) -> Path | None:
    """Ask where to save: ``what`` is ``png``, ``csv`` or ``json``; None if cancelled."""
    if what == "png":
        title, name, pattern = translate("MainWindow", "Export chart"), "jitlab-chart.png", "PNG"
    else:
        title, name, pattern = translate("MainWindow", "Export call log"), "", what.upper()
        name = f"jitlab-calls.{what}"
    path, _ = QFileDialog.getSaveFileName(parent, title, name, f"{pattern} (*.{what})")
    return Path(path) if path else None


def chart_png(chart: ChartView, path: Path) -> None:
    chart.export_png(path)


def calls_csv(records: list[CallRecord], path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, CSV_FIELDS)
        writer.writeheader()
        for record in records:
            data = call_json(record)
            error = data["error"]
            writer.writerow(
                {
                    **{k: data[k] for k in CSV_FIELDS[:8]},
                    "params": dumps_strict(data["params"]),
                    "card": data["card"],
                    "signature": data["signature"]["text"] if data["signature"] else "",
                    "reason": data["reason"]["text"] if data["reason"] else "",
                    "error": f"{error['type']}: {error['message']}" if error else "",
                }
            )


def calls_json(scenario: str | None, state: RunState, path: Path) -> None:
    data = {
        "scenario": scenario,
        "calls": [call_json(r) for r in state.records],
        "summary": state.summary().to_json(),
    }
    path.write_text(dumps_strict(data, indent=1), encoding="utf-8")
