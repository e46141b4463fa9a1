"""The script windows: one card's script, and two cards' scripts compared."""

from __future__ import annotations

from pygments.lexers.diff import DiffLexer
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QLabel, QSplitter, QTabWidget, QVBoxLayout, QWidget

from jitlab.gui import plain
from jitlab.gui.executor import ScriptsCompared
from jitlab.gui.i18n import Retranslating
from jitlab.gui.scripts.code_pane import CodePane, FindBar
from jitlab.gui.scripts.figures import (
    FIGURE_ORDER,
    figure_cell,
    figure_names,
    figure_table,
    figure_text,
)
from jitlab.gui.scripts.view import ScriptView
from jitlab.gui.views.card_text import signature_difference
from jitlab.gui.views.fitting import breakable
from jitlab.gui.views.model import CardView


class ScriptWindow(Retranslating, QWidget):
    """A non-modal window around one card's :class:`ScriptView`."""

    def __init__(self, card: CardView, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("scriptWindow")
        self.card = card
        self.view = ScriptView(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.view)
        self.view.show_waiting(card)
        self.resize(1100, 720)
        self.retranslate()

    def retranslate(self) -> None:
        self.setWindowTitle(
            self.tr("Script of card #%1 — %2")
            .replace("%1", str(self.card.number))
            .replace("%2", str(self.card.key[0]))
        )


class ScriptDiffWindow(Retranslating, QWidget):
    """Two cards' scripts compared: the figures before and after, and unified diffs."""

    def __init__(self, a: CardView, b: CardView, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("scriptDiffWindow")
        self.cards = (a, b)
        self.compared: ScriptsCompared | None = None
        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)  # the cards' signatures
        self.title.setWordWrap(True)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.figures = figure_table(4)
        self.figures.setObjectName("diffFigures")
        self.jaxpr = CodePane(DiffLexer(), self)
        self.jaxpr.setObjectName("diffJaxpr")
        self.stablehlo = CodePane(DiffLexer(), self)
        self.hlo = CodePane(DiffLexer(), self)
        self.tabs = QTabWidget(self)
        for widget in (self.jaxpr, self.stablehlo, self.hlo):
            self.tabs.addTab(widget, "")
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.figures)
        split.addWidget(self.tabs)
        split.setSizes([260, 460])
        self.find_bar = FindBar(lambda: self.tabs.currentWidget(), self)
        shortcut = QShortcut(QKeySequence.StandardKey.Find, self)
        shortcut.activated.connect(lambda: self.find_bar.box.setFocus())
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(split, 1)
        layout.addWidget(self.find_bar)
        self.resize(1000, 720)
        self.retranslate()

    def set_compared(self, compared: ScriptsCompared) -> None:
        self.compared = compared
        diff = compared.diff
        if diff is None:
            why = compared.before.why or compared.after.why
            self.jaxpr.set_text(self.tr("No comparison: %1").replace("%1", why))
            return
        same = self.tr("(identical)")
        a, b = self.cards
        for pane, text in (
            (self.jaxpr, diff.jaxpr_diff),
            (self.stablehlo, diff.stablehlo_diff),
            (self.hlo, diff.hlo_diff),
        ):
            pane.set_text(renumber_diff(text, a, b) or same)
        self._fill()

    def _fill(self) -> None:
        diff = self.compared.diff if self.compared is not None else None
        if diff is None:
            return
        names = figure_names()
        by_name = {c.name: c for c in diff.figures}
        self.figures.setRowCount(0)
        rows = [n for n in FIGURE_ORDER if n in by_name]
        self.figures.setRowCount(len(rows))
        for row, name in enumerate(rows):
            c = by_name[name]
            delta = c.delta
            sign = "" if delta is None or delta <= 0 else "+"
            changed = delta is not None and delta != 0
            self.figures.setItem(row, 0, figure_cell(names[name]))
            self.figures.setItem(row, 1, figure_cell(figure_text(name, c.before), True))
            self.figures.setItem(row, 2, figure_cell(figure_text(name, c.after), True))
            text = "—" if delta is None else sign + figure_text(name, delta)
            item = figure_cell(text if changed or delta is None else "0", True)
            if changed and not name.endswith("_ms"):
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            self.figures.setItem(row, 3, item)

    def retranslate(self) -> None:
        a, b = self.cards
        self.setWindowTitle(
            self.tr("Compare card #%1 with card #%2")
            .replace("%1", str(a.number))
            .replace("%2", str(b.number))
        )
        # What differs between the two signatures, whole (wrapped): the signatures were cut
        # at 60 characters, before what differed. Both whole in the tooltip.
        differs = signature_difference(a, b)
        self.title.setText(
            breakable(
                self.tr("Card #%1 → card #%2: %3")
                .replace("%1", str(a.number))
                .replace("%2", str(b.number))
                .replace(
                    "%3",
                    "; ".join(differs)
                    if differs
                    else self.tr("the same signature, compiled again by another function object"),
                )
            )
        )
        self.title.setToolTip(
            plain.tip("\n".join(f"#{card.number}: {card.signature}" for card in (a, b)))
        )
        self.tabs.setTabText(0, self.tr("jaxpr diff"))
        self.tabs.setTabText(1, self.tr("StableHLO diff"))
        self.tabs.setTabText(2, self.tr("HLO diff"))
        self.figures.setHorizontalHeaderLabels(
            [self.tr("Figure"), f"#{a.number}", f"#{b.number}", self.tr("Change")]
        )
        self._fill()


def renumber_diff(text: str, a: CardView, b: CardView) -> str:
    """A unified diff whose two header lines name the cards as the app does (``#1``), not
    by the core's 0-based index in their function's holder (``card 0``)."""
    if not text.startswith("--- "):
        return text
    lines = text.split("\n", 2)
    if len(lines) < 3 or not lines[1].startswith("+++ "):
        return text
    call = QCoreApplication.translate("ScriptDiffWindow", "call #%1")
    head = [
        f"{mark} {card.key[0]} #{card.number} ({call.replace('%1', str(card.created_by))})"
        for mark, card in (("---", a), ("+++", b))
    ]
    return "\n".join([*head, lines[2]])
