"""The hands-free demo: the question, the scenario's beats on the pitfall, a look at what
compiled (Monitor), the beats on the fix, then the summary: every mode of the window.

It drives the window as a user would (variant, reset, sliders) and moves to the next beat
once the run model has served the call the beat asked for, after a pause a class can follow.
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QObject, QTimer, Signal

from jitlab.gui import i18n
from jitlab.gui.lesson.controls import ParamControls, RunControls
from jitlab.gui.lesson.summary_cells import (
    ALSO,
    QUESTION,
    also_missing,
    covered,
    question_segment,
)
from jitlab.gui.views.model import Change, RunState
from jitlab.lab.spec import Param, Scenario, value_words

Beat = tuple[str, dict[str, Any], str]  # (variant to switch to, or ""; parameters; note)
# A stop on a mode (no call) is written as a beat whose variant is "@" + the mode.
STOP = "@"
STOP_BEATS = 3  # a stop lasts this many beat pauses: time to read what the mode shows


class Stage(Protocol):
    """What the demo drives: the main window, seen from here."""

    params: ParamControls
    run_controls: RunControls
    mode: str

    def set_mode(self, mode: str) -> None: ...
    def go_to(self, mode: str) -> None: ...
    def set_variant(self, variant: str) -> None: ...
    def reset(self) -> None: ...


def beats(scenario: type[Scenario], language: str) -> list[Beat]:
    """The scenario's autoplay script on the pitfall, then on the fix."""
    out: list[Beat] = []
    for variant in ("pitfall", "fix"):
        first = True
        for beat in scenario.autoplay:
            if beat.variant not in (None, variant):
                continue
            note = beat.note.get(language) if beat.note else ""
            out.append((variant if first else "", dict(beat.params), note))
            first = False
    return out or [("pitfall", {}, ""), ("fix", {}, "")]


def params_text(params: tuple[Param, ...], values: dict[str, Any], language: str) -> str:
    """A beat's parameters as the controls show them: each one's label and its value's label
    in ``language`` (:func:`~jitlab.lab.spec.value_words`)."""
    said = i18n.translate("MainWindow", "%1 set to %2")
    words = [
        said.replace("%1", label).replace("%2", value)
        for label, value in value_words(params, values, language)
    ]
    return i18n.translate("MainWindow", ", ").join(words)


def measure_beats(
    scenario: type[Scenario], variants: tuple[str, ...] = ("pitfall", "fix")
) -> list[Beat]:
    """ "Measure both" (and Complete's missing runs): the lesson's comparison sequence, the
    same on the pitfall and on the fix (``Scenario.comparison``: chosen so the pitfall
    visibly hurts); each variant starts from a fresh run, so the two compare like with like.
    """
    sequence = [dict(call) for call in scenario.comparison().calls] or [{}]
    out: list[Beat] = []
    answer = getattr(scenario, "question_run", None)
    if QUESTION in variants and answer is not None:
        # The question's own calls first, from a fresh run: the run its prediction is graded on.
        out += [(answer.variant if i == 0 else "", dict(p), "") for i, p in enumerate(answer.calls)]
    out += [
        (variant if i == 0 else "", params, "")
        for variant in variants
        if not variant.startswith("?")
        for i, params in enumerate(sequence)
    ]
    for marker in (v for v in variants if v.startswith(ALSO)):
        # A comparison the question also asks about (the loop): each side on its own calls.
        also = scenario.also_judged[int(marker[len(ALSO) :])]
        for variant in also.variants:
            out += [(variant if i == 0 else "", dict(p), "") for i, p in enumerate(also.calls)]
    return out


class Autoplay(QObject):
    """Plays one scenario's demo; any user command that stops it calls :meth:`stop`."""

    note_changed = Signal(str)  # what a presenter would say now ("" when the demo ends)

    def __init__(self, stage: Stage, state: RunState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.stage = stage
        self.state = state
        self.delay_ms = 900  # pause between beats, so a class can follow
        self.beats: list[Beat] = []
        self.waiting = False  # a beat's call was asked for and not yet served
        self.measured = False  # the comparison's runs were played: Complete runs nothing more
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.next)
        state.subscribe(self._changed)

    def start(self, scenario: type[Scenario]) -> None:
        """Start (the question), the pitfall's beats, Monitor, the fix's beats, Complete."""
        played = beats(scenario, i18n.language())
        fix = next((i for i, b in enumerate(played) if b[0] == "fix"), len(played))
        question = i18n.translate("MainWindow", "Demo: first the question. Make a guess!")
        monitor = i18n.translate(
            "MainWindow",
            "Demo: Monitor. The ledger highlights what changed in each compiled signature; "
            "the bars show where the compile time went.",
        )
        self.beats = [
            (STOP + "start", {}, question),
            *played[:fix],
            (STOP + "monitor", {}, monitor),
            *played[fix:],
        ]
        self.measured = False
        self.stage.run_controls.set_playing(False)
        self.next()

    def measure(
        self, scenario: type[Scenario], variants: tuple[str, ...] = ("pitfall", "fix")
    ) -> None:
        """Run the variants on the lesson's call sequence, then show the summary; the
        question's own calls first while no run has answered them."""
        answer = getattr(scenario, "question_run", None)
        if (
            answer is not None
            and question_segment(self.state, answer) is None
            and not (answer.variant in variants and covered(answer, scenario))
        ):
            variants = tuple(dict.fromkeys((QUESTION, *variants)))
        variants = tuple(dict.fromkeys((*variants, *also_missing(self.state, scenario))))
        self.beats = measure_beats(scenario, variants)
        self.measured = True
        self.stage.run_controls.set_playing(False)
        self.stage.set_mode("execute")
        self.next()

    def stop(self) -> None:
        self.beats = []
        self.waiting = False
        self.timer.stop()
        self.note_changed.emit("")

    def _changed(self, change: Change) -> None:
        if change.served and self.waiting:
            self.waiting = False
            self.timer.start(self.delay_ms)

    def next(self) -> None:
        if not self.beats:
            self.note_changed.emit("")
            # The demo ends on Complete as the button goes there: runs the comparison lacks
            # are played first (once), so the verdict compares like with like.
            if self.measured:
                self.stage.set_mode("complete")
            else:
                self.measured = True
                self.stage.go_to("complete")
            return
        variant, params, note = self.beats.pop(0)
        stage = self.stage
        if variant.startswith(STOP):  # show a mode for a while: no call
            stage.set_mode(variant[len(STOP) :])
            self.note_changed.emit(note)
            self.waiting = False
            self.timer.start(self.delay_ms * STOP_BEATS)
            return
        if stage.mode != "execute":
            stage.set_mode("execute")
        if variant and variant != stage.run_controls.current_variant():
            stage.set_variant(variant)
        elif variant:
            stage.reset()
        values = stage.params.values()
        values.update(params)
        text = params_text(tuple(stage.params.params), params, i18n.language())
        self.note_changed.emit(
            i18n.translate("MainWindow", "Demo (%1 left): %2")
            .replace("%1", str(len(self.beats)))
            .replace("%2", text)
            + (f" — {note}" if note else "")
        )
        self.waiting = True
        stage.params.set_values(values, emit=True)
