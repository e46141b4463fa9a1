"""Hostile recordings, and what the views really show of them.

:func:`make_hostile` takes a real recording of ``jitlab watch`` and puts markup in every
string it holds (each string its own numbered marker); :func:`shown_texts` collects what a
window's widgets show, rendered as a user reads them (a QLabel or tooltip that Qt takes for
rich text is rendered to plain text first, as Qt would paint it); :func:`check_literal`
says where a marker shows up without its markup, i.e. where markup was interpreted.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

# What a program may call its function, print, raise; "{n}" numbers each string. The <img>
# of /dev/zero made Qt read /dev/zero until it ran out of memory (std::bad_alloc); the
# missing image is for windows shown in the test process itself.
MARKUP = "<b>M{n}</b><lambda>&amp;<u>x</u>"
CRASHING = MARKUP + "<img src=/dev/zero>"
HARMLESS_IMG = MARKUP + "<img src=no-such-image.png>"
MARKER = re.compile(r"M(\d+)(?!\d)")
# Strings the reader reads as names of its own (kinds, line types) or JAX's (dtypes are
# matched against JAX's names to be abbreviated; markup makes them unknown dtypes, kept).
STRUCTURAL = {"type", "kind", "source", "scripts"}


def make_hostile(lines: list[dict[str, Any]], markup: str = MARKUP) -> tuple[list[str], dict]:
    """Every string value of the recording's lines (not keys, not structural fields) made
    markup, the same string the same markup (a function keeps its name from line to line);
    returns the JSON lines and {marker number: the string written}."""
    written: dict[int, str] = {}
    made: dict[str, str] = {}

    def walk(value: Any, key: str | None) -> Any:
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, key) for v in value]
        if isinstance(value, str) and key not in STRUCTURAL:
            if value not in made:
                n = len(written) + 1
                written[n] = made[value] = markup.format(n=n)
            return made[value]
        return value

    out = [json.dumps(walk(line, None)) + "\n" for line in lines]
    return out, written


WATCHED = """
import jax
import jax.numpy as jnp

double = jax.jit(lambda x: x * 2)
double(jnp.ones(3))
double(jnp.ones(4))


@jax.jit
def step(x, n):
    return x + n


step(jnp.ones(2), 1)
step(jnp.ones(2, jnp.int32), 2)
step(jnp.ones(5, jnp.int32), 2)
step(jnp.ones(5, jnp.int32), 2)


@jax.jit
def broken(x):
    raise ValueError("broken on purpose")


try:
    broken(jnp.ones(2))
except ValueError:
    pass
"""


def record_real(folder: Path, timeout: float = 240) -> list[dict[str, Any]]:
    """A real recording (``jitlab watch --scripts``) of a program with a lambda, recompiles,
    cache hits and a failing call: its lines as JSON objects."""
    program = folder / "prog.py"
    program.write_text(textwrap.dedent(WATCHED), encoding="utf-8")
    out = folder / "real.jsonl"
    jitlab = Path(sys.executable).with_name("jitlab")
    subprocess.run(
        [str(jitlab), "watch", "--scripts", "--out", str(out), "--", "python", str(program)],
        cwd=folder,
        check=True,
        capture_output=True,
        timeout=timeout,
    )
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


# -- what the widgets show --------------------------------------------------------------
def rendered(text: str, rich: bool) -> str:
    """What Qt paints for ``text``: itself, or, taken as rich text, its plain rendering."""
    if not rich:
        return text
    from PySide6.QtGui import QTextDocument

    document = QTextDocument()
    document.setHtml(text)
    return document.toPlainText()


def _auto(text: str) -> bool:
    from PySide6.QtGui import Qt

    return bool(Qt.mightBeRichText(text))


def shown_texts(root: Any) -> list[tuple[str, str]]:
    """(where, text as rendered) for every label, button, tooltip, item view cell, item
    tooltip, text edit and graphics text under ``root`` (a widget, with its children)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import (
        QAbstractButton,
        QAbstractItemView,
        QGraphicsView,
        QLabel,
        QPlainTextEdit,
        QTabWidget,
        QTextBrowser,
        QTextEdit,
        QWidget,
    )

    out: list[tuple[str, str]] = []
    widgets = [root, *root.findChildren(QWidget)]
    for w in widgets:
        name = f"{type(w).__name__}#{w.objectName()}"
        if w.toolTip():
            out.append((name + ".toolTip", rendered(w.toolTip(), _auto(w.toolTip()))))
        if isinstance(w, QLabel):
            fmt = w.textFormat()
            rich = fmt == Qt.TextFormat.RichText or (
                fmt == Qt.TextFormat.AutoText and _auto(w.text())
            )
            out.append((name, rendered(w.text(), rich)))
        elif isinstance(w, QAbstractButton):
            out.append((name, w.text()))
        elif isinstance(w, QTextEdit | QTextBrowser | QPlainTextEdit):
            out.append((name, w.toPlainText()))
        elif isinstance(w, QTabWidget):
            for i in range(w.count()):
                out.append((f"{name}.tab{i}", w.tabText(i)))
                tip = w.tabToolTip(i)
                out.append((f"{name}.tabTip{i}", rendered(tip, _auto(tip))))
        if isinstance(w, QAbstractItemView) and w.model() is not None:
            out += _model_texts(name, w.model())
        if isinstance(w, QGraphicsView) and w.scene() is not None:
            out += _scene_texts(name, w.scene())
    if isinstance(root, QWidget) and root.windowTitle():
        out.append(("windowTitle", root.windowTitle()))
    return out


def _model_texts(name: str, model: Any) -> list[tuple[str, str]]:
    from PySide6.QtCore import QModelIndex, Qt

    out = []
    display, tip = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole

    def walk(parent: QModelIndex, depth: int) -> None:
        rows = min(model.rowCount(parent), 500)
        for row in range(rows):
            for column in range(model.columnCount(parent)):
                index = model.index(row, column, parent)
                text = model.data(index, display)
                if isinstance(text, str):
                    out.append((f"{name}[{row},{column}]", text))
                text = model.data(index, tip)
                if isinstance(text, str) and text:
                    out.append((f"{name}[{row},{column}].tip", rendered(text, _auto(text))))
                if depth < 3 and column == 0 and model.rowCount(index) > 0:
                    walk(index, depth + 1)

    walk(QModelIndex(), 0)
    for column in range(model.columnCount()):
        text = model.headerData(column, Qt.Orientation.Horizontal, display)
        if isinstance(text, str):  # a header paints its text as it is
            out.append((f"{name}.header{column}", text))
        text = model.headerData(column, Qt.Orientation.Horizontal, tip)
        if isinstance(text, str) and text:
            out.append((f"{name}.header{column}.tip", rendered(text, _auto(text))))
    return out


def _scene_texts(name: str, scene: Any) -> list[tuple[str, str]]:
    from PySide6.QtWidgets import QGraphicsSimpleTextItem, QGraphicsTextItem

    out = []
    for item in scene.items():
        if isinstance(item, QGraphicsTextItem):  # pyqtgraph's TextItem and labels hold one
            out.append((f"{name}.text", item.toPlainText()))
        elif isinstance(item, QGraphicsSimpleTextItem):
            out.append((f"{name}.text", item.text()))
        tip = item.toolTip()
        if tip:
            out.append((f"{name}.itemTip", rendered(tip, _auto(tip))))
    return out


def check_literal(shown: list[tuple[str, str]], written: dict[int, str]) -> list[str]:
    """Where a marker shows without the very text the recording holds around it (its markup
    interpreted, or dropped), e.g. ``M3`` shown bold instead of ``<b>M3</b><lambda>…``.

    A shown text may cut a long string short (an ellipsis, a column's width): the marker
    must then be preceded by its own ``<b>`` at least, as written."""
    wrong = []
    for where, text in shown:
        for match in MARKER.finditer(text):
            n = int(match[1])
            if n not in written:
                continue
            start = match.start() - len("<b>")
            if text[start : match.start()] != "<b>":
                wrong.append(
                    f"{where}: M{n} shown as {text[max(0, start - 20) : match.end() + 30]!r}"
                )
    return wrong


def markers_in(shown: list[tuple[str, str]]) -> set[int]:
    """The markers shown literally (with their ``<b>``), wherever."""
    found = set()
    for _, text in shown:
        found |= {int(m) for m in re.findall(r"<b>M(\d+)</b>", text)}
    return found


def window_texts(window: Any, qtbot: Any) -> list[tuple[str, str]]:
    """What a recording window shows, function by function: every widget's text, the
    picker's tips, each chart point's tip, each kitchen card's tip and its script window."""
    from PySide6.QtGui import Qt

    from jitlab.gui.views.chart import describe

    shown: list[tuple[str, str]] = []
    for lane in window.lanes():
        window.pick(lane)
        qtbot.waitUntil(lambda: not window.loading, timeout=30_000)
        shown += shown_texts(window)
        for row in range(len(window.rows)):
            shown.append((f"picker tip {row}", rendered(window.row_tip(row), True)))
        for call in window.calls_of(lane):  # a chart point's tip (rich text)
            shown.append(("chart tip", rendered(describe(call.record), True)))
        for card in list(window.state.cards.values()):
            tip = window.kitchen.canvas.card_tip(card)
            shown.append(("card tip", rendered(tip, bool(Qt.mightBeRichText(tip)))))
            shown += [(f"script: {w}", t) for w, t in shown_texts(window.open_script(card))]
    return shown
