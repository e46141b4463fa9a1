"""Pieces shared by the quiz and the interview: one exercise with its answer input, and the
verdict of a real run (who was right, what JAX did, the evidence, the lesson)."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QSize, Qt, Signal
from PySide6.QtGui import QFontDatabase, QIcon, QPalette
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)
from superqt.utils import CodeSyntaxHighlight

from jitlab.gui import i18n
from jitlab.gui.i18n import Retranslating
from jitlab.gui.style import KIND_COLORS, is_dark, kind_name
from jitlab.records.calls import CallKind
from jitlab.records.paths import resource

RIGHT_COLOR = "#2f9e4f"
WRONG_COLOR = "#e0323f"
LATE_COLOR = "#e3a21a"
TRACE_COLOR = "#e3a21a"  # printed while tracing: the rehearsal
RUNTIME_COLOR = "#1f9bbf"  # printed while the program runs: the service

_ICONS: dict[str, QIcon] = {}


def scenario_icon(exercise: Any) -> QIcon:
    """The icon of the scenario an exercise belongs to (the catalogue gives its file)."""
    path = str(getattr(exercise, "icon", "") or resource("icons", "pot.svg"))
    if path not in _ICONS:
        _ICONS[path] = QIcon(path)
    return _ICONS[path]


def text(value: Any) -> str:
    """A lesson ``Text`` in the interface language ("" for None)."""
    return value.get(i18n.language()) if value is not None else ""


_VARIANT_TITLES: dict[tuple[str, str], Any] = {}  # (scenario, variant) -> Text
_VARIANT_WORDS = {
    "pitfall": QT_TRANSLATE_NOOP("QuizVariant", "the pitfall"),
    "fix": QT_TRANSLATE_NOOP("QuizVariant", "the fix"),
}


def learn_variants(titles: Any) -> None:
    """Remember the variants' titles (``Catalogue.variants``) so views name a variant in
    words, never by its id."""
    _VARIANT_TITLES.update(titles or {})


def variant_name(exercise: Any) -> str:
    """The variant an exercise points to, in the interface language: the scenario's own
    title for it, else "the pitfall" / "the fix", else (a plugin's unknown id) the id."""
    title = _VARIANT_TITLES.get((exercise.scenario, exercise.variant))
    if title is not None:
        return text(title)
    words = _VARIANT_WORDS.get(exercise.variant)
    return i18n.translate("QuizVariant", words) if words else str(exercise.variant)


def option_words(exercise: Any, value: Any) -> str:
    """An answer as the user saw it: ``b) Both are traced…`` for an option, else the value."""
    for position, option in enumerate(exercise.options):
        if str(option.id).lower() == str(value).lower():
            label = text(option.label)
            letter = "abcdefghij"[position]
            return f"{letter}) {label}" if label != option.id else f"{letter}) {option.id}"
    return str(value)


_INPUT_MESSAGES = {
    "empty": QT_TRANSLATE_NOOP("QuizInput", "Make a prediction first."),
    "number": QT_TRANSLATE_NOOP("QuizInput", "“%1” is not a whole number ≥ 0."),
    "choice": QT_TRANSLATE_NOOP("QuizInput", "Pick one of the answers."),
    "error": QT_TRANSLATE_NOOP(
        "QuizInput",
        "“%1” is not an exception name. Pick one from the list, type a name such as "
        "ValueError, or “none” if you think the code runs cleanly.",
    ),
}


def expected_message(exercise: Any, raw: str) -> str:
    """Why ``raw`` is not a prediction for ``exercise``, in the interface language."""
    kind = str(exercise.kind)
    key = kind if raw or kind == "choice" else "empty"
    return i18n.translate("QuizInput", _INPUT_MESSAGES[key]).replace("%1", raw)


def list_title(exercise: Any) -> str:
    """The title for a list: ⚖ stands for "Misconception:" (kept in the tooltip)."""
    title = text(exercise.title)
    if exercise.misconception:
        for prefix in ("Misconception:", "误区："):
            if title.startswith(prefix):
                title = title[len(prefix) :].strip()
        title = "⚖ " + title
    return title


def dim(label: QLabel) -> QLabel:
    """Secondary text: the palette's text colour, faded (light and dark schemes alike)."""
    label.setProperty("dim", True)
    color = label.palette().color(QPalette.ColorRole.WindowText)
    label.setStyleSheet(f"color: rgba({color.red()}, {color.green()}, {color.blue()}, 165);")
    return label


def _mono() -> Any:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


def _wrapping(label: QLabel) -> QLabel:
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    return label


class CodeBox(QPlainTextEdit):
    """Read-only, highlighted source, as tall as its lines (up to a limit)."""

    MAX_LINES = 22

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(_mono())
        self.setObjectName("quizCode")
        self._highlighter: Any = None
        self.apply_theme()

    def apply_theme(self) -> None:
        theme = "monokai" if is_dark() else "default"
        self._highlighter = CodeSyntaxHighlight(self.document(), "python", theme)

    def set_source(self, source: str) -> None:
        self.setPlainText(source)
        lines = min(max(source.count("\n") + 1, 3), self.MAX_LINES)
        height = self.fontMetrics().lineSpacing() * lines + 16
        bar = self.horizontalScrollBar().sizeHint().height()
        self.setFixedHeight(height + bar)


class ExerciseCard(Retranslating, QWidget):
    """One exercise: title, the claim to test, the code, the question, the answer input.

    ``submitted`` fires when the user presses Enter in the answer (the view's button does
    the same); :meth:`prediction_text` is what the user chose, for ``exercise.parse``.
    """

    submitted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.exercise: Any = None
        self.title = QLabel(self)
        self.title.setObjectName("quizTitle")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.title.setFont(font)
        _wrapping(self.title)
        self.pitfall = dim(_wrapping(QLabel(self)))
        self.claim = _wrapping(QLabel(self))
        self.claim.setObjectName("quizClaim")
        self.claim.setFrameShape(QFrame.Shape.StyledPanel)
        self.claim.setMargin(8)
        self.claim.setAutoFillBackground(True)
        self.claim.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.code_note = dim(_wrapping(QLabel(self)))
        self.code = CodeBox(self)
        self.question = _wrapping(QLabel(self))
        qfont = self.question.font()
        qfont.setBold(True)
        self.question.setFont(qfont)

        # the answer: a number, one option, or an exception name
        self.answer_label = QLabel(self)
        self.number = QSpinBox(self)
        self.number.setObjectName("quizNumber")
        self.number.setRange(0, 999)
        self.number.setMinimumWidth(90)
        self.number.lineEdit().returnPressed.connect(self.submitted)
        self.choices = QWidget(self)
        self.choice_layout = QVBoxLayout(self.choices)
        self.choice_layout.setContentsMargins(0, 0, 0, 0)
        self.choice_group = QButtonGroup(self)
        self.choice_buttons: list[QRadioButton] = []
        self.error = QComboBox(self)
        self.error.setObjectName("quizError")
        self.error.setEditable(True)
        self.error.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.error.setMinimumContentsLength(28)
        self.error.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.error.lineEdit().returnPressed.connect(self.submitted)
        self.inputs = QStackedWidget(self)
        for widget in (self.number, self.choices, self.error):
            holder = QWidget(self)
            row = QHBoxLayout(holder)
            row.setContentsMargins(0, 0, 0, 0)
            row.addWidget(widget)
            if widget is not self.choices:
                row.addStretch(1)
            self.inputs.addWidget(holder)
        self.problem = _wrapping(QLabel(self))  # why the input does not parse
        self.problem.setObjectName("quizProblem")
        self.problem.setStyleSheet(f"color: {WRONG_COLOR};")
        self.problem.hide()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.pitfall)
        layout.addWidget(self.claim)
        layout.addWidget(self.code_note)
        layout.addWidget(self.code)
        layout.addWidget(self.question)
        answer_row = QHBoxLayout()
        answer_row.addWidget(self.answer_label, 0, Qt.AlignmentFlag.AlignTop)
        answer_row.addWidget(self.inputs, 1)
        layout.addLayout(answer_row)
        layout.addWidget(self.problem)
        self.retranslate()

    # -- content --------------------------------------------------------------------------
    def set_exercise(self, exercise: Any) -> None:
        self.exercise = exercise
        self.code.set_source(exercise.source)
        self.number.setValue(0)
        self._build_choices()
        self._build_errors()
        kind = str(exercise.kind)
        self.inputs.setCurrentIndex({"number": 0, "choice": 1, "error": 2}[kind])
        self.show_problem("")
        self.relabel()

    def _build_choices(self) -> None:
        for button in self.choice_buttons:
            self.choice_group.removeButton(button)
            button.deleteLater()
        self.choice_buttons = []
        if self.exercise is None or str(self.exercise.kind) != "choice":
            return
        for position, option in enumerate(self.exercise.options):
            button = QRadioButton(self.choices)
            button.setProperty("option", option.id)
            button.setObjectName(f"quizOption_{option.id}")
            self.choice_group.addButton(button, position)
            self.choice_layout.addWidget(button)
            self.choice_buttons.append(button)

    def _build_errors(self) -> None:
        self.error.clear()
        if self.exercise is None or str(self.exercise.kind) != "error":
            return
        for option in self.exercise.options:
            self.error.addItem(option.id, option.id)
        self.error.setCurrentIndex(-1)
        self.error.setEditText("")

    def relabel(self) -> None:
        """Lesson texts in the interface language (after a switch or a new exercise)."""
        ex = self.exercise
        if ex is None:
            return
        self.title.setText(text(ex.title))
        self.pitfall.setText(text(ex.chapter.title))
        self.claim.setVisible(ex.claim is not None)
        if ex.claim is not None:
            self.claim.setText(
                self.tr("Claim to test: “%1”").replace("%1", html.escape(text(ex.claim)))
            )
        self.question.setText(text(ex.question))
        for position, (button, option) in enumerate(
            zip(self.choice_buttons, ex.options, strict=False)
        ):
            button.setText(f"{'abcdefghij'[position]}) {text(option.label)}")
            button.setToolTip(self.tr("Predict this answer."))
        for index, option in enumerate(ex.options):
            label = text(option.label)
            shown = option.id if label == option.id else f"{option.id} — {label}"
            self.error.setItemText(index, shown)
        if str(ex.kind) == "error":
            self.error.setEditText(
                self.error.currentText() if self.error.currentIndex() >= 0 else ""
            )

    # -- the prediction -------------------------------------------------------------------
    def prediction_text(self) -> str:
        """What the user chose, as text ``exercise.parse`` understands ("" when nothing)."""
        kind = str(self.exercise.kind) if self.exercise is not None else ""
        if kind == "number":
            return self.number.text().strip()
        if kind == "choice":
            button = self.choice_group.checkedButton()
            return str(button.property("option")) if button is not None else ""
        typed = self.error.currentText().strip()
        for index in range(self.error.count()):
            if typed == self.error.itemText(index):
                return str(self.error.itemData(index))
        return typed.split(" — ")[0].strip()

    def read_prediction(self) -> tuple[bool, Any]:
        """(True, prediction) when the input parses; else (False, None) with the problem shown."""
        raw = self.prediction_text()
        try:
            if not raw:
                raise ValueError("empty")
            prediction = self.exercise.parse(raw)
        except ValueError:
            self.show_problem(expected_message(self.exercise, raw))
            return False, None
        self.show_problem("")
        return True, prediction

    def set_prediction(self, value: Any) -> None:
        """Put a prediction into the input (tests, replaying a round)."""
        kind = str(self.exercise.kind)
        if kind == "number":
            self.number.setValue(int(value))
        elif kind == "choice":
            for button in self.choice_buttons:
                button.setChecked(str(button.property("option")) == str(value))
        else:
            self.error.setEditText(str(value))

    def show_problem(self, message: str) -> None:
        self.problem.setText(message)
        self.problem.setVisible(bool(message))

    def set_input_enabled(self, enabled: bool) -> None:
        self.inputs.setEnabled(enabled)

    # -- language and theme ---------------------------------------------------------------
    def retranslate(self) -> None:
        self.answer_label.setText(self.tr("Your prediction:"))
        self.code_note.setText(
            self.tr(
                "The code that runs. lab.jit is jax.jit with jitlab's probe around it; "
                "lab.note keeps a value for the verdict."
            )
        )
        self.number.setToolTip(self.tr("Your prediction: a whole number. Enter runs it."))
        self.error.setToolTip(
            self.tr(
                "Pick the exception you expect, or type another exception name; "
                "“none” if the code runs cleanly. Enter runs it."
            )
        )
        self.error.lineEdit().setPlaceholderText(self.tr("exception name, or none"))
        self.code.setToolTip(self.tr("The exact code the check runs, with empty JAX caches."))
        self.claim.setToolTip(
            self.tr("A common belief about jit. The real run confirms or refutes it.")
        )
        self.relabel()

    def restyle(self) -> None:
        self.code.apply_theme()
        dim(self.pitfall)
        dim(self.code_note)


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
        self.headline = _wrapping(QLabel(self))
        self.headline.setObjectName("quizHeadline")
        font = self.headline.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.headline.setFont(font)
        self.you = _wrapping(QLabel(self))
        self.answer = _wrapping(QLabel(self))
        self.answer.setObjectName("quizAnswer")
        self.detail = _wrapping(QLabel(self))
        self.detail.setObjectName("quizDetail")
        self.evidence_title = QLabel(self)
        bold = self.evidence_title.font()
        bold.setBold(True)
        self.evidence_title.setFont(bold)
        self.calls = _wrapping(QLabel(self))
        self.calls.setTextFormat(Qt.TextFormat.RichText)
        self.printed = _wrapping(QLabel(self))
        self.printed.setTextFormat(Qt.TextFormat.RichText)
        self.printed.setObjectName("quizPrinted")
        self.facts = _wrapping(QLabel(self))
        self.facts.setTextFormat(Qt.TextFormat.RichText)
        self.lesson_title = QLabel(self)
        self.lesson_title.setFont(bold)
        self.explanation = _wrapping(QLabel(self))
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
        self.render()
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

    def render(self) -> None:
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
        self.render()
