"""One exercise on screen: its claim, its code and the input for a prediction."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QRadioButton,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)
from superqt.utils import CodeSyntaxHighlight

from jitlab.gui import i18n
from jitlab.gui.i18n import Retranslating
from jitlab.gui.quiz.look import WRONG_COLOR, dim, wrapping
from jitlab.gui.quiz.words import expected_message, text
from jitlab.gui.style import fixed_font, is_dark


class CodeBox(QPlainTextEdit):
    """Read-only, highlighted source, as tall as its lines (up to a limit)."""

    MAX_LINES = 22

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(fixed_font())
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
        wrapping(self.title)
        self.pitfall = dim(wrapping(QLabel(self)))
        self.claim = wrapping(QLabel(self))
        self.claim.setObjectName("quizClaim")
        self.claim.setFrameShape(QFrame.Shape.StyledPanel)
        self.claim.setMargin(8)
        self.claim.setAutoFillBackground(True)
        self.claim.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.code_note = dim(wrapping(QLabel(self)))
        self.code = CodeBox(self)
        self.question = wrapping(QLabel(self))
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
        self._error_edit().returnPressed.connect(self.submitted)
        self.inputs = QStackedWidget(self)
        for widget in (self.number, self.choices, self.error):
            holder = QWidget(self)
            row = QHBoxLayout(holder)
            row.setContentsMargins(0, 0, 0, 0)
            row.addWidget(widget)
            if widget is not self.choices:
                row.addStretch(1)
            self.inputs.addWidget(holder)
        self.problem = wrapping(QLabel(self))  # why the input does not parse
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
        self.code.set_source(ex.source_in(i18n.language()))
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

    def _error_edit(self) -> QLineEdit:
        """The exception box's text field (an editable combo box always has one)."""
        edit = self.error.lineEdit()
        assert edit is not None
        return edit

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
        self._error_edit().setPlaceholderText(self.tr("exception name, or none"))
        self.code.setToolTip(self.tr("The exact code the check runs, with empty JAX caches."))
        self.claim.setToolTip(
            self.tr("A common belief about jit. The real run confirms or refutes it.")
        )
        self.relabel()

    def restyle(self) -> None:
        self.code.apply_theme()
        dim(self.pitfall)
        dim(self.code_note)
