"""The verdict of a real run: who was right, what JAX did, the evidence and the lesson."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from jitlab.gui.i18n import Retranslating
from jitlab.gui.quiz.look import (
    LATE_COLOR,
    RIGHT_COLOR,
    RUNTIME_COLOR,
    TRACE_COLOR,
    WRONG_COLOR,
    scenario_icon,
    wrapping,
)
from jitlab.gui.quiz.words import option_words, text, variant_name
from jitlab.gui.style import KIND_COLORS, kind_name
from jitlab.records.calls import CallKind


class VerdictPanel(Retranslating, QFrame):
    """Who was right, what JAX did, the evidence, the lesson, and where to play with it."""

    open_scenario = Signal(str, str)  # scenario id, variant

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("quizVerdict")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.exercise: Any = None
        self.verdict: Any = None
        self.elapsed: float | None = None
        self.headline = wrapping(QLabel(self))
        self.headline.setObjectName("quizHeadline")
        font = self.headline.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.headline.setFont(font)
        self.you = wrapping(QLabel(self))
        self.answer = wrapping(QLabel(self))
        self.answer.setObjectName("quizAnswer")
        self.detail = wrapping(QLabel(self))
        self.detail.setObjectName("quizDetail")
        self.evidence_title = QLabel(self)
        bold = self.evidence_title.font()
        bold.setBold(True)
        self.evidence_title.setFont(bold)
        self.calls = wrapping(QLabel(self))
        self.calls.setTextFormat(Qt.TextFormat.RichText)
        self.printed = wrapping(QLabel(self))
        self.printed.setTextFormat(Qt.TextFormat.RichText)
        self.printed.setObjectName("quizPrinted")
        self.facts = wrapping(QLabel(self))
        self.facts.setTextFormat(Qt.TextFormat.RichText)
        self.lesson_title = QLabel(self)
        self.lesson_title.setFont(bold)
        self.explanation = wrapping(QLabel(self))
        self.explanation.setObjectName("quizExplanation")
        self.open_button = QPushButton(self)
        self.open_button.setObjectName("quizOpenScenario")
        self.open_button.setIconSize(QSize(20, 20))
        self.open_button.clicked.connect(self._open)
        layout = QVBoxLayout(self)
        for widget in (
            self.headline,
            self.you,
            self.answer,
            self.detail,
            self.evidence_title,
            self.calls,
            self.printed,
            self.facts,
            self.lesson_title,
            self.explanation,
        ):
            layout.addWidget(widget)
        row = QHBoxLayout()
        row.addWidget(self.open_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.retranslate()
        self.hide()

    def show_verdict(self, exercise: Any, verdict: Any, elapsed: float | None = None) -> None:
        self.exercise, self.verdict, self.elapsed = exercise, verdict, elapsed
        self.refresh()
        self.show()

    def clear(self) -> None:
        self.exercise = self.verdict = None
        self.hide()

    # -- rendering ------------------------------------------------------------------------
    def verdict_word(self) -> str:
        """``right``, ``close``, ``wrong``, ``late``, ``broken`` or ``skipped`` (for tests)."""
        v = self.verdict
        if v is None:
            return ""
        if v.outcome.skipped is not None:
            return "skipped"
        if v.outcome.failure is not None:
            return "broken"
        if v.timed_out:
            return "late"
        if v.correct:
            return "right" if v.exact else "close"
        return "wrong"

    def refresh(self) -> None:
        ex, v = self.exercise, self.verdict
        if ex is None or v is None:
            return
        outcome = v.outcome
        answer = outcome.answer
        word = self.verdict_word()
        if word == "right":
            head, color = self.tr("✓ Right."), RIGHT_COLOR
        elif word == "close":
            head = self.tr("✓ Right — precisely, it is %1.").replace("%1", str(answer.value))
            color = RIGHT_COLOR
        elif word == "wrong":
            head, color = self.tr("✗ Not this time."), WRONG_COLOR
        elif word == "late":
            seconds = f"{self.elapsed:.0f}" if self.elapsed is not None else "?"
            head = self.tr("⏱ Too late (%1 s): checked, but not scored.").replace("%1", seconds)
            color = LATE_COLOR
        elif word == "skipped":
            head, color = self.tr("Skipped: %1").replace("%1", text(outcome.skipped)), LATE_COLOR
        else:
            head = self.tr("The run broke: %1").replace("%1", outcome.failure or "")
            color = WRONG_COLOR
        self.headline.setText(head)
        self.headline.setStyleSheet(f"color: {color};")
        if v.prediction is None:
            self.you.setText(self.tr("You passed."))
        else:
            self.you.setText(
                self.tr("You predicted: %1").replace("%1", option_words(ex, v.prediction))
            )
        if answer is not None:
            self.answer.setText(
                self.tr("The real run says: %1").replace("%1", option_words(ex, answer.value))
            )
            self.detail.setText(text(answer.detail))
        self.answer.setVisible(answer is not None)
        self.detail.setVisible(answer is not None)
        evidence = outcome.evidence
        self.evidence_title.setVisible(evidence is not None)
        self.calls.setVisible(evidence is not None)
        if evidence is not None:
            self.calls.setText(self._calls_html(evidence))
            self.printed.setText(self._printed_html(evidence))
            self.printed.setVisible(bool(evidence.printed))
            facts = self._facts_html(evidence)
            self.facts.setText(facts)
            self.facts.setVisible(bool(facts))
        else:
            self.printed.hide()
            self.facts.hide()
        self.explanation.setText(text(ex.explanation))
        self.open_button.setIcon(scenario_icon(ex))
        self.open_button.setText(
            self.tr("Open the scenario: %1 (%2)")
            .replace("%1", text(ex.chapter.title))
            .replace("%2", variant_name(ex))
        )

    def _calls_html(self, evidence: Any) -> str:
        chips = []
        for record in evidence.records:
            kind = record.kind
            try:
                name = kind_name(CallKind(kind))
                color = KIND_COLORS[CallKind(kind)]
            except (KeyError, ValueError):
                name, color = str(kind), "#888888"
            chips.append(
                f'<span style="color:{color}; font-weight:bold;">{html.escape(name)}</span>'
            )
        sequence = " · ".join(chips) if chips else "—"
        summary = (
            self.tr("%1 probed call(s), %2 compile(s), %3 ms in all.")
            .replace("%1", str(len(evidence.records)))
            .replace("%2", str(evidence.compiles))
            .replace("%3", f"{evidence.wall_ms:.0f}")
        )
        return f"{html.escape(summary)}<br>{sequence}"

    def _printed_html(self, evidence: Any) -> str:
        lines = []
        for line in evidence.printed:
            if line.when == "trace":
                tag, color = self.tr("trace"), TRACE_COLOR
            else:
                tag, color = self.tr("runtime"), RUNTIME_COLOR
            lines.append(
                f'<span style="color:{color}; font-weight:bold;">[{html.escape(tag)}]</span> '
                f"<code>{html.escape(line.text)}</code>"
            )
        head = html.escape(self.tr("Printed (trace = while rehearsing, runtime = while serving):"))
        return head + "<br>" + "<br>".join(lines)

    def _facts_html(self, evidence: Any) -> str:
        items = []
        for name, value in evidence.facts.items():
            shown = f"{value:.3g}" if isinstance(value, float) else str(value)
            if len(shown) > 160:
                shown = shown[:157] + "…"
            items.append(f"<code>{html.escape(str(name))} = {html.escape(shown)}</code>")
        if not items:
            return ""
        return html.escape(self.tr("Noted by the code:")) + "<br>" + "<br>".join(items)

    def _open(self) -> None:
        if self.exercise is not None:
            self.open_scenario.emit(self.exercise.scenario, self.exercise.variant)

    def retranslate(self) -> None:
        self.evidence_title.setText(self.tr("Evidence from the run"))
        self.lesson_title.setText(self.tr("Why"))
        self.open_button.setToolTip(
            self.tr(
                "Open the scenario that teaches this point, in the variant shown, to play with it."
            )
        )
        self.calls.setToolTip(
            self.tr("Every call of a jitted function in the snippet, in order: what it did.")
        )
        self.printed.setToolTip(
            self.tr(
                "Lines printed during the calls. “trace” lines come from Python while jit "
                "traces (Chef Wang rehearsing); “runtime” lines come from the compiled "
                "program as it runs."
            )
        )
        self.headline.setToolTip(self.tr("Your prediction against the real run."))
        self.refresh()
