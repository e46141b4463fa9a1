"""One card's script: its source and jaxpr side by side, each equation linked to the source
line that made it (select a line and its equations light up, and back); the lowered StableHLO
and the optimized HLO in their own tabs, searchable (Ctrl+F); and the figures (equations,
HLO instructions, flops, bytes, the compile's times).
"""

from __future__ import annotations

import os
from typing import Any

from pygments.lexers.python import PythonLexer
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from jitlab.gui import plain
from jitlab.gui.executor import ScriptOf
from jitlab.gui.i18n import Retranslating, language
from jitlab.gui.scripts.code_pane import CodePane, FindBar
from jitlab.gui.scripts.equations import EquationSpan, equation_spans
from jitlab.gui.scripts.figures import (
    FIGURE_ORDER,
    figure_cell,
    figure_names,
    figure_table,
    figure_text,
)
from jitlab.gui.scripts.lexers import HloLexer, JaxprLexer, StableHloLexer
from jitlab.gui.views.card_text import signature_difference
from jitlab.gui.views.model import CardView
from jitlab.records import messages
from jitlab.records.text import format_ms


class ScriptView(Retranslating, QWidget):
    """One card's script: source ↔ jaxpr, StableHLO, HLO, figures; a find bar; compare."""

    compare_requested = Signal(object)  # the other CardView
    part_wanted = Signal(str)  # "stablehlo" / "hlo": its tab is shown, its text unprinted

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.script: Any = None  # jitlab.probe.scripts.Script
        self.why = ""
        self._asked: set[str] = set()  # parts part_wanted was sent for, for this script
        self._spans: list[EquationSpan] | None = []
        self._spans_of = ""  # the annotated jaxpr the spans are read from, on first use
        self.linked_source: list[int] = []  # source blocks marked by the last link
        self.linked_jaxpr: list[int] = []  # jaxpr blocks marked by the last link
        self._others: list[CardView] = []
        self.title = QLabel(self)
        self.title.setObjectName("scriptTitle")
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title.setFont(font)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary = QLabel(self)
        self.summary.setObjectName("scriptSummary")
        self.summary.setWordWrap(True)
        self.notes = QLabel(self)
        self.notes.setObjectName("scriptNotes")
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.compare_label = QLabel(self)
        self.compare_with = QComboBox(self)
        self.compare_with.setObjectName("compareWith")
        self.compare_button = QPushButton(self)
        self.compare_button.setObjectName("compareButton")
        self.compare_button.clicked.connect(self._compare)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.compare_label)
        top.addWidget(self.compare_with)
        top.addWidget(self.compare_button)

        self.source = CodePane(PythonLexer(), self)
        self.source.setObjectName("scriptSource")
        self.jaxpr = CodePane(JaxprLexer(), self)
        self.jaxpr.setObjectName("scriptJaxpr")
        self.source_caption = QLabel(self)
        self.jaxpr_caption = QLabel(self)
        self.link = QLabel(self)  # what the selected line links to
        self.link.setObjectName("scriptLink")
        self.link.setWordWrap(True)
        left = QWidget(self)
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.source_caption)
        lv.addWidget(self.source)
        right = QWidget(self)
        rv = QVBoxLayout(right)
        rv.setContentsMargins(0, 0, 0, 0)
        rv.addWidget(self.jaxpr_caption)
        rv.addWidget(self.jaxpr)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([400, 600])
        linked = QWidget(self)
        kv = QVBoxLayout(linked)
        kv.setContentsMargins(0, 0, 0, 0)
        kv.addWidget(split, 1)
        kv.addWidget(self.link)

        self.stablehlo = CodePane(StableHloLexer(), self)
        self.stablehlo.setObjectName("scriptStableHlo")
        self.hlo = CodePane(HloLexer(), self)
        self.hlo.setObjectName("scriptHlo")
        self.figures = figure_table(2)
        self.figures.setObjectName("scriptFigures")
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("scriptTabs")
        for widget in (linked, self.stablehlo, self.hlo, self.figures):
            self.tabs.addTab(widget, "")
        self.find_bar = FindBar(self.current_pane, self)
        shortcut = QShortcut(QKeySequence.StandardKey.Find, self)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(self.focus_find)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.notes)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.find_bar)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.source.cursorPositionChanged.connect(self._source_moved)
        self.jaxpr.cursorPositionChanged.connect(self._jaxpr_moved)
        # They show recorded strings (names, files, why no script): as text, never markup.
        for label in (
            self.title,
            self.summary,
            self.notes,
            self.source_caption,
            self.jaxpr_caption,
            self.link,
        ):
            label.setTextFormat(Qt.TextFormat.PlainText)
        self.retranslate()
        self.show_waiting(None)

    # -- filling ------------------------------------------------------------------------
    def show_waiting(self, card: CardView | None) -> None:
        self.script = None
        if card is not None:
            self.title.setText(self.tr("Card #%1").replace("%1", str(card.number)))
        self.summary.setText(self.tr("Writing out the script on the executor…"))
        self.notes.hide()

    def set_script(self, made: ScriptOf, number: int | None = None) -> None:
        """Show a made script (or why there is none)."""
        self.script, self.why = made.script, made.why
        self._number = number
        s = made.script
        card = f"#{number}" if number else "#?"  # the app's numbering, never the core's index
        title = self.tr("%1 · card %2 · compiled by call #%3")
        self.title.setText(
            title.replace("%1", made.function)
            .replace("%2", card)
            .replace("%3", str(made.created_by))
        )
        if s is None:
            self.summary.setText(self.tr("No script: %1").replace("%1", made.why))
            for pane in (self.source, self.jaxpr, self.stablehlo, self.hlo):
                pane.set_text("")
            self.figures.setRowCount(0)
            self.notes.hide()
            self._spans, self._spans_of = [], ""
            return
        self.title.setToolTip(plain.tip(str(s.signature)))
        self.source.set_text(s.source if s.source is not None else s.text("source"))
        jaxpr = s.jaxpr_annotated or s.jaxpr
        if jaxpr is not None and s.source_file:  # the function's own file by its name only
            jaxpr = jaxpr.replace(f"# {s.source_file}:", f"# {os.path.basename(s.source_file)}:")
        self.jaxpr.set_text(jaxpr if jaxpr is not None else s.text("jaxpr"))
        # Read the equations' spans when a line is first linked, not now: on a big jaxpr
        # that parse costs tens of ms the GUI thread need not spend up front.
        self._spans, self._spans_of = None, (jaxpr or "") if s.jaxpr_annotated else ""
        self._asked = set()
        deferred = s.deferred
        for part, pane in self._printed_later():
            pane.set_text("" if part in deferred else s.text(part))
        self._fill_figures()
        self._fill_summary()
        self._fill_notes()
        where = os.path.basename(s.source_file) if s.source_file else "?"
        self.source_caption.setText(
            self.tr("Source — %1, from line %2")
            .replace("%1", where)
            .replace("%2", str(s.source_line or "?"))
        )
        for highlighter in (self.source.highlighter, self.jaxpr.highlighter):
            if highlighter is not None:
                highlighter.highlight_visible()
        self._want(self.tabs.currentWidget())

    def _fill_notes(self) -> None:
        s = self.script
        # A script keeps its notes in English (a recording's too): said in the window's language.
        notes = [messages.reword(note, language(), "script.") for note in s.notes]
        deferred = s.deferred
        for part, why in s.unavailable.items():
            if part not in deferred:  # printed when asked for: not a failure
                notes.append(f"{part}: {why}")
        self.notes.setText("\n".join(notes))
        self.notes.setVisible(bool(notes))

    # -- the StableHLO and a big HLO, printed when their tabs are first shown ------------
    def _printed_later(self) -> tuple[tuple[str, CodePane], ...]:
        """The texts a script window's script may leave to be printed, and their panes."""
        return (("stablehlo", self.stablehlo), ("hlo", self.hlo))

    def pending(self, part: str) -> bool:
        """The script shown was made without the text ``part`` (printed when asked for)."""
        return self.script is not None and part in self.script.deferred

    @property
    def stablehlo_pending(self) -> bool:
        """The script shown was made without its StableHLO text (printed when asked for)."""
        return self.pending("stablehlo")

    def _tab_changed(self, index: int) -> None:
        self._want(self.tabs.widget(index))

    def _want(self, widget: QWidget | None) -> None:
        for part, pane in self._printed_later():
            if widget is pane and self.pending(part) and part not in self._asked:
                self._asked.add(part)
                pane.setPlaceholderText(
                    self.tr("Printing the StableHLO on the executor…")
                    if part == "stablehlo"
                    else self.tr("Writing out the script on the executor…")
                )
                self.part_wanted.emit(part)

    def set_part(self, made: ScriptOf, part: str) -> None:
        """Take the text ``part`` (and its figure) from ``made``, the same card's script with
        that text printed; the other panes, their selection and links stay as they are."""
        s = made.script
        if not self.pending(part):
            return
        pane = dict(self._printed_later())[part]
        if s is None:
            failed = (
                self.tr("No StableHLO: %1") if part == "stablehlo" else self.tr("No script: %1")
            )
            pane.set_text(failed.replace("%1", made.why))
            return
        self.script = self.script.with_part(part, s)
        pane.set_text(self.script.text(part))
        self._fill_figures()
        self._fill_summary()
        self._fill_notes()

    def set_stablehlo(self, made: ScriptOf) -> None:
        """:meth:`set_part` of the StableHLO."""
        self.set_part(made, "stablehlo")

    @property
    def spans(self) -> list[EquationSpan]:
        """The jaxpr's equations with their source lines (parsed on first use)."""
        if self._spans is None:
            self._spans = equation_spans(self._spans_of)
        return self._spans

    def _fill_summary(self) -> None:
        s = self.script
        f = s.figures
        parts = []
        if f is not None:
            parts.append(self.tr("%1 equations").replace("%1", f"{f.equations:,}"))
            if f.hlo_instructions is not None:
                parts.append(
                    self.tr("%1 HLO instructions").replace("%1", f"{f.hlo_instructions:,}")
                )
            if f.flops is not None:
                parts.append(self.tr("%1 flops").replace("%1", figure_text("flops", f.flops)))
            if f.compile_ms is not None:  # the figure the table and the compare view show
                parts.append(
                    self.tr("%1 to compile").replace("%1", figure_text("compile_ms", f.compile_ms))
                )
        parts.append(self.tr("made in %1").replace("%1", format_ms(s.produce_ms)))
        self.summary.setText(" · ".join(parts))

    def _fill_figures(self) -> None:
        f = self.script.figures if self.script is not None else None
        names = figure_names()
        self.figures.setRowCount(0)
        if f is None:
            return
        self.figures.setRowCount(len(FIGURE_ORDER))
        for row, name in enumerate(FIGURE_ORDER):
            self.figures.setItem(row, 0, figure_cell(names[name]))
            self.figures.setItem(row, 1, figure_cell(figure_text(name, getattr(f, name)), True))

    def set_others(self, cards: list[CardView], this: CardView | None) -> None:
        """The cards it can be compared with."""
        self._others = [c for c in cards if this is None or c.key != this.key]
        self.compare_with.clear()
        for card in self._others:
            # What differs from this card first (a signature cut at 40 characters hid it),
            # the whole signature in the item's tip.
            differs = signature_difference(this, card) if this is not None else []
            shown = "; ".join(differs) or card.signature
            self.compare_with.addItem(f"#{card.number}  {card.key[0]}  {shown}")
            tip = plain.tip(card.signature)
            self.compare_with.setItemData(
                self.compare_with.count() - 1, tip, Qt.ItemDataRole.ToolTipRole
            )
        self.compare_with.setEnabled(bool(self._others))
        self.compare_button.setEnabled(bool(self._others))

    def _compare(self) -> None:
        i = self.compare_with.currentIndex()
        if 0 <= i < len(self._others):
            self.compare_requested.emit(self._others[i])

    # -- linking ------------------------------------------------------------------------
    def _source_file_line(self, block: int) -> int | None:
        s = self.script
        if s is None or s.source_line is None:
            return None
        return s.source_line + block

    def _same_file(self, path: str) -> bool:
        s = self.script
        if s is None or not s.source_file:
            return False
        if path == os.path.basename(s.source_file):  # shortened in the text shown
            return True
        try:
            return os.path.samefile(path, s.source_file)
        except OSError:
            return os.path.normpath(path) == os.path.normpath(s.source_file)

    def select_source_line(self, line: int) -> list[int]:
        """The user's ``line`` (in the file) → mark it and its equations; returns their
        first text lines in the jaxpr."""
        s = self.script
        if s is None or s.source_line is None:
            return []
        spans = [sp for sp in self.spans if sp.line == line and self._same_file(sp.file)]
        jaxpr_lines = [n for sp in spans for n in range(sp.first, sp.last + 1)]
        self.linked_jaxpr = jaxpr_lines
        self.linked_source = [line - s.source_line]
        self.jaxpr.mark_lines(jaxpr_lines)
        self.source.mark_lines(self.linked_source, scroll=False)
        n = len(spans)
        self.link.setText(
            (
                self.tr("Line %1 made no equation of this jaxpr.")
                if not n
                else self.tr("Line %1 made one equation of the jaxpr.")
                if n == 1
                else self.tr("Line %1 made %2 equations of the jaxpr.")
            )
            .replace("%1", str(line))
            .replace("%2", str(n))
        )
        return [sp.first for sp in spans]

    def select_equation_at(self, block: int) -> EquationSpan | None:
        """A jaxpr text line → its equation and the source line that made it, marked."""
        span = None
        for sp in self.spans:
            if sp.first <= block <= sp.last and (span is None or sp.first >= span.first):
                span = sp
        if span is None:
            self.link.setText("")
            return None
        self.linked_jaxpr = list(range(span.first, span.last + 1))
        self.jaxpr.mark_lines(self.linked_jaxpr, scroll=False)
        s = self.script
        inside = (
            s is not None
            and s.source_line is not None
            and self._same_file(span.file)
            and 0 <= span.line - s.source_line < self.source.blockCount()
        )
        where = f"{os.path.basename(span.file)}:{span.line} ({span.function})"
        if inside:
            self.linked_source = [span.line - s.source_line]
            self.source.mark_lines(self.linked_source)
            self.link.setText(self.tr("This equation comes from %1.").replace("%1", where))
        else:
            self.linked_source = []
            self.source.mark_lines([])
            self.link.setText(
                self.tr("This equation comes from %1, outside the function shown.").replace(
                    "%1", where
                )
            )
        return span

    def _source_moved(self) -> None:
        if self.source.loading:
            return
        line = self._source_file_line(self.source.current_line())
        if line is not None:
            self.select_source_line(line)

    def _jaxpr_moved(self) -> None:
        if self.jaxpr.loading:
            return
        self.select_equation_at(self.jaxpr.current_line())

    # -- find ---------------------------------------------------------------------------
    def current_pane(self) -> CodePane | None:
        widget = self.tabs.currentWidget()
        if isinstance(widget, CodePane):
            return widget
        if widget is self.figures:
            return None
        return self.source if self.source.hasFocus() else self.jaxpr

    def focus_find(self) -> None:
        self.find_bar.box.setFocus()
        self.find_bar.box.selectAll()

    # -- language -----------------------------------------------------------------------
    def retranslate(self) -> None:
        self.tabs.setTabText(0, self.tr("Source ↔ jaxpr"))
        self.tabs.setTabText(1, self.tr("StableHLO (lowered)"))
        self.tabs.setTabText(2, self.tr("HLO (optimized by XLA)"))
        self.tabs.setTabText(3, self.tr("Figures"))
        self.tabs.setTabToolTip(
            1, self.tr("What jit handed to XLA: the program lowered to StableHLO.")
        )
        self.tabs.setTabToolTip(
            2, self.tr("What XLA made of it after fusing and optimizing: what actually runs.")
        )
        self.jaxpr_caption.setText(self.tr("jaxpr — select a line to see where it came from"))
        self.compare_label.setText(self.tr("Compare with"))
        self.compare_button.setText(self.tr("Compare"))
        self.figures.setHorizontalHeaderLabels([self.tr("Figure"), self.tr("Value")])
        if self.script is not None:
            self._fill_summary()
            self._fill_figures()
            self._fill_notes()
