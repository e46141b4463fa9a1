"""The lab's lesson column: the question and a prediction, the kitchen story, and the answer
once a call is made.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from jitlab.gui.i18n import Retranslating, language
from jitlab.gui.views.fitting import breakable
from jitlab.gui.views.model import Change, RunState
from jitlab.lab.manifest import Listing, is_stand_in
from jitlab.lab.spec import Scenario, ScriptLesson

# Start mode frames the question in the accent colour.
_EMPHASIS = (
    "QGroupBox#questionBox { border: 2px solid ACCENT; border-radius: 6px;"
    " margin-top: 1.1em; padding-top: 4px; font-weight: bold; }"
    " QGroupBox#questionBox::title { subcontrol-origin: margin; left: 8px; padding: 0 3px; }"
)


class LessonPanel(Retranslating, QScrollArea):
    """The lab's left column, in the order a learner thinks: what this is about, the question
    and a prediction, then the controls (the window places its sliders and run controls in
    :attr:`controls`), the kitchen story, and the answer.

    The answer (what goes wrong, why, the fix) stays locked until the learner has made a call
    of this scenario; then a click opens it. A new scenario locks it again. The panel follows
    the run model like any view (:meth:`RunState.subscribe`).
    """

    start_clicked = Signal()
    answer_toggled = Signal(bool)  # the answer opened (True) or closed
    fix_code_clicked = Signal()  # show the fix as code (the window's code pane)
    scripts_clicked = Signal()  # open the scripts the lesson names (their diff)

    def __init__(self, state: RunState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonPanel")
        self.state = state
        self.scenario: type[Scenario] | None = None
        self.listing: Listing | None = None  # shown until the scenario's class arrives
        self.stage = "start"
        self.unlocked = False  # a call of this scenario has finished
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        inner = QWidget(self)
        inner.setObjectName("lessonInner")
        self.heading = QLabel(inner)
        self.heading.setObjectName("lessonHeading")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.RichText)

        self.question_box = QGroupBox(inner)
        self.question_box.setObjectName("questionBox")
        self.question = QLabel(self.question_box)
        self.question.setObjectName("question")
        self.question.setWordWrap(True)
        # A plugin's own words: shown as written, never read as markup (so is the story).
        self.question.setTextFormat(Qt.TextFormat.PlainText)
        self.question.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.question.font()
        font.setPointSizeF(font.pointSizeF() * 1.1)
        font.setBold(True)
        self.question.setFont(font)
        self.prediction = QLineEdit(self.question_box)
        self.prediction.setObjectName("prediction")
        self.start = QPushButton(self.question_box)
        self.start.setObjectName("startButton")
        self.start.setDefault(True)
        self.start.clicked.connect(self.start_clicked)
        self.prediction.returnPressed.connect(self.start_clicked)
        self.hint = QLabel(self.question_box)
        self.hint.setObjectName("questionHint")
        self.hint.setWordWrap(True)
        q = QVBoxLayout(self.question_box)
        q.addWidget(self.question)
        q.addWidget(self.prediction)
        row = QHBoxLayout()
        row.addWidget(self.hint, 1)
        row.addWidget(self.start, 0, Qt.AlignmentFlag.AlignTop)
        q.addLayout(row)

        self.controls = QVBoxLayout()  # the sliders and the run controls go here
        self.controls.setContentsMargins(0, 0, 0, 0)

        self.story_box = QGroupBox(inner)
        self.story_box.setObjectName("storyBox")
        # The kitchen story tells what goes wrong in the kitchen's words (a new portion means
        # a new rehearsal): it unlocks with the answer, after the learner's first call.
        self.text = QLabel(self.story_box)
        self.text.setObjectName("lessonStory")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        story = QVBoxLayout(self.story_box)
        story.addWidget(self.text)

        self.answer_button = QToolButton(inner)
        self.answer_button.setObjectName("answerButton")
        self.answer_button.setCheckable(True)
        self.answer_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.answer_button.setArrowType(Qt.ArrowType.RightArrow)
        self.answer_button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.answer_button.toggled.connect(self._show_answer)
        self.answer_note = QLabel(inner)
        self.answer_note.setObjectName("answerLocked")
        self.answer_note.setWordWrap(True)
        self.answer = QLabel(inner)
        self.answer.setObjectName("answerText")
        self.answer.setWordWrap(True)
        self.answer.setTextFormat(Qt.TextFormat.RichText)
        self.answer.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.fix_code = QPushButton(inner)
        self.fix_code.setObjectName("fixCodeButton")
        self.fix_code.clicked.connect(self.fix_code_clicked)
        # What the chef's scripts show (the scenario's ScriptLesson), and a button to see it.
        self.scripts_text = QLabel(inner)
        self.scripts_text.setObjectName("answerScripts")
        self.scripts_text.setWordWrap(True)
        self.scripts_text.setTextFormat(Qt.TextFormat.RichText)
        self.scripts_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.scripts_button = QPushButton(inner)
        self.scripts_button.setObjectName("compareScriptsButton")
        self.scripts_button.clicked.connect(self.scripts_clicked)
        self.scripts_status = QLabel(inner)
        self.scripts_status.setObjectName("scriptsStatus")
        self.scripts_status.setWordWrap(True)
        self._scripts_note = ""  # what to do before the button works ("" when it does)
        self.scripts_status_of: Callable[[], str] | None = None  # set by the window
        self.answer.hide()
        self.fix_code.hide()
        self.story_box.hide()  # until the first call (see _changed)
        for widget in (self.scripts_text, self.scripts_button, self.scripts_status):
            widget.hide()

        layout = QVBoxLayout(inner)
        layout.setContentsMargins(0, 0, 4, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.question_box)
        layout.addLayout(self.controls)
        layout.addWidget(self.story_box)
        layout.addWidget(self.answer_button)
        layout.addWidget(self.answer_note)
        layout.addWidget(self.answer)
        layout.addWidget(self.fix_code, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.scripts_text)
        layout.addWidget(self.scripts_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.scripts_status)
        layout.addStretch(1)
        self.setWidget(inner)
        self._lock()
        self.set_stage("start")
        self.retranslate()
        state.subscribe(self._changed)

    # -- the answer -----------------------------------------------------------------------
    def _changed(self, change: Change) -> None:
        if change.cleared:
            self._lock()
        if not self.unlocked and self.state.calls > 0:
            self.unlocked = True
            self.answer_button.setEnabled(True)
            self.answer_note.hide()
            self.story_box.show()

    def _lock(self) -> None:
        self.unlocked = False
        self.answer_button.setChecked(False)
        self.answer_button.setEnabled(False)
        self.answer_note.show()
        self.story_box.hide()

    def _show_answer(self, shown: bool) -> None:
        self.answer.setVisible(shown)
        self.fix_code.setVisible(shown)
        self._show_scripts()
        self.answer_button.setArrowType(
            Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        )
        self.answer_toggled.emit(shown)
        if shown:  # the opened answer is the point: scroll it up, once it is laid out
            QTimer.singleShot(0, self, self._scroll_to_answer)

    def fit_width(self, least: int, most: int) -> None:
        """Ask for as much width as the widest control needs, between ``least`` and ``most``
        pixels; the minimum stays ``least`` whatever the scenario, so a scenario never widens
        the window (below that its labels wrap and its combos elide)."""
        inner = self._laid_out()
        want = inner.minimumSizeHint().width() + self.verticalScrollBar().sizeHint().width() + 6
        self._wanted = max(least, min(most, want))
        self.setMinimumWidth(least)
        self.updateGeometry()

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(getattr(self, "_wanted", hint.width()), hint.height())

    def _scroll_to_answer(self) -> None:
        """Bring the answer's heading to the top of the column (as far as it scrolls)."""
        if self.answer_button.isChecked():
            self._laid_out()
            self.verticalScrollBar().setValue(self.answer_button.y() - 4)

    def _laid_out(self) -> QWidget:
        """The scrolled column, its layout brought up to date (so its size hints are)."""
        inner = self.widget()
        layout = inner.layout() if inner is not None else None
        assert inner is not None and layout is not None  # both set in __init__
        layout.activate()
        return inner

    def _lesson_scripts(self) -> ScriptLesson | None:
        return getattr(self.scenario, "scripts", None)

    def _show_scripts(self) -> None:
        lesson = self._lesson_scripts()
        shown = self.answer_button.isChecked() and lesson is not None
        refs = lesson.compare if shown and lesson is not None else ()
        self.scripts_text.setVisible(shown)
        self.scripts_button.setVisible(bool(refs))
        self.scripts_status.setVisible(bool(refs) and bool(self._scripts_note))

    def refresh_scripts(self) -> None:
        """Ask :attr:`scripts_status_of` again (a named card's script arrived)."""
        if self.scripts_status_of is not None:
            self.set_scripts_status(self.scripts_status_of())

    def set_scripts_status(self, note: str) -> None:
        """What to do before the lesson's scripts can be compared (empty: they can)."""
        self._scripts_note = note
        self.scripts_status.setText(note)
        self.scripts_button.setEnabled(not note)
        self._show_scripts()

    @property
    def answer_shown(self) -> bool:
        return self.answer_button.isChecked()

    def reveal(self) -> bool:
        """Open the answer as a click would; False while it is locked (no call made yet)."""
        if self.unlocked:
            self.answer_button.setChecked(True)
        return self.answer_shown

    # -- stages ---------------------------------------------------------------------------
    def set_stage(self, stage: str) -> None:
        """Start puts the question forward (framed, with its Start button); later modes keep
        it on show, quieter."""
        self.stage = stage
        starting = stage == "start"
        self.start.setVisible(starting)
        self.question_box.setProperty("emphasis", starting)
        accent = self.palette().color(self.palette().ColorRole.Highlight).name()
        self.question_box.setStyleSheet(_EMPHASIS.replace("ACCENT", accent) if starting else "")
        self.retranslate()

    def show_listing(self, listing: Listing) -> None:
        """The question of the scenario about to open, from the built-ins' manifest (no
        JAX): a learner reads it and writes a prediction while JAX starts on the worker."""
        self.listing = listing
        self.retranslate()

    def show_scenario(self, scenario: type[Scenario]) -> None:
        early = self.listing or (self.scenario if is_stand_in(self.scenario) else None)
        self.listing = None
        self.scenario = scenario
        if early is None or early.id != scenario.id:  # the prediction typed early is kept
            self.prediction.clear()
        self._lock()
        self.verticalScrollBar().setValue(0)
        self.retranslate()

    def retranslate(self) -> None:
        lang = language()
        self.question_box.setTitle(self.tr("Predict before you run"))
        self.question_box.setToolTip(
            self.tr("The question to keep in mind while you cook, and your prediction.")
        )
        self.prediction.setPlaceholderText(self.tr("Your prediction (kept for the summary)…"))
        self.prediction.setToolTip(
            self.tr("Write down what you expect; the summary shows it next to what happened.")
        )
        self.start.setText(self.tr("Start cooking →"))
        self.start.setToolTip(
            self.tr("Keep your prediction and start: move a slider or press Step (Execute mode).")
        )
        self.hint.setText(
            self.tr("Then move a slider or press Step: each change is one call.")
            if self.stage == "start"
            else self.tr("Each slider move or Step is one call.")
        )
        self.story_box.setTitle(self.tr("In Chef Wang's kitchen"))
        self.answer_button.setText(self.tr("The answer"))
        self.answer_button.setToolTip(
            self.tr("Opens after your first call: predict, run, then compare.")
            if not self.unlocked
            else self.tr("Show or hide the answer.")
        )
        self.answer_note.setText(
            self.tr(
                "Make your first call to unlock Chef Wang's story and the answer. Predict first!"
            )
        )
        self.fix_code.setText(self.tr("See the fix as code →"))
        self.fix_code.setToolTip(self.tr("What the fix changes, as a diff against the pitfall."))
        s = self.scenario
        early = self.listing
        if s is None and early is not None:
            self.heading.setText(
                f"<span style='font-size:large; font-weight:bold'>"
                f"{html.escape(early.title.get(lang))}</span><br>"
                f"<span style='color:gray'>{html.escape(early.chapter.title.get(lang))}</span>"
            )
            self.question.setText(early.question.get(lang))
            self.text.setText("")
            self.answer.setText("")
            return
        if s is None:
            self.heading.setText(html.escape(self.tr("Loading the scenarios…")))
            self.question.setText("")
            self.text.setText("")
            self.answer.setText("")
            return
        self.heading.setText(
            f"<span style='font-size:large; font-weight:bold'>{html.escape(s.title.get(lang))}"
            f"</span><br><span style='color:gray'>{html.escape(s.pitfall.title.get(lang))}</span>"
        )
        self.question.setText(s.question.get(lang))
        self.text.setText(s.lesson.kitchen.get(lang))
        sections = (
            (self.tr("What goes wrong"), s.lesson.what),
            (self.tr("Why"), s.lesson.why),
            (self.tr("The fix"), s.lesson.fix),
        )
        self.answer.setText(
            "".join(
                f"<p><b>{html.escape(heading)}</b><br>{html.escape(breakable(text.get(lang)))}</p>"
                for heading, text in sections
            )
        )
        lesson = self._lesson_scripts()
        if lesson is not None:
            heading = self.tr("What the scripts show")
            self.scripts_text.setText(
                f"<p><b>{html.escape(heading)}</b><br>"
                f"{html.escape(breakable(lesson.text.get(lang)))}</p>"
            )
            self.scripts_button.setText(
                self.tr("Compare the scripts")
                if len(lesson.compare) > 1
                else self.tr("Read the script")
            )
            self.scripts_button.setToolTip(
                self.tr("Opens the chef's scripts of the calls named above, side by side.")
            )
        else:
            self.scripts_text.setText("")
        self.refresh_scripts()
        self._show_scripts()
