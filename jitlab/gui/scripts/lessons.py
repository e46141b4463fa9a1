"""The lesson's scripts: the cards a scenario's ScriptLesson names, kept to compare."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from jitlab.gui.executor import ScriptOf
from jitlab.gui.i18n import language
from jitlab.gui.scripts.book import ScriptBook
from jitlab.gui.views.model import CardView, Change, RunState
from jitlab.lab.spec import CardRef, Scenario, values_text
from jitlab.records.calls import CallRecord


def ref_matches(ref: CardRef, record: CallRecord, card: CardView | None) -> bool:
    """Did ``record`` compile the card ``ref`` names (its variant, its parameters, and its
    number in the kitchen when the ref gives one)?"""
    if record.variant != ref.variant or not record.kind.compiled or record.card is None:
        return False
    params = record.params or {}
    if any(params.get(name) != value for name, value in dict(ref.params).items()):
        return False
    return ref.number is None or (card is not None and card.number == ref.number)


class LessonScripts(QObject):
    """Keeps the scripts of the cards a scenario's :class:`~jitlab.lab.spec.ScriptLesson`
    names, so the lesson can compare them after the run has moved on.

    A card leaves the run's holder when the learner switches variant (the pitfall's loop, then
    the fix's scan), and its script can only be made while the card is held. So as soon as a
    call compiles a named card, its script is asked for on the executor and kept here (the
    newest such card wins). :meth:`open` shows the diff of the two (or the one named).
    """

    changed = Signal()  # a named card's script arrived, or the scenario changed

    def __init__(self, state: RunState, book: ScriptBook, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.book = book
        self.scenario: type[Scenario] | None = None
        self.made: dict[int, tuple[CardView, ScriptOf]] = {}  # ref index -> its card, script
        self.asking: dict[int, int] = {}  # ref index -> call index whose card is being made
        state.subscribe(self._changed)

    @property
    def refs(self) -> tuple[CardRef, ...]:
        lesson = getattr(self.scenario, "scripts", None)
        return tuple(lesson.compare) if lesson is not None else ()

    def show_scenario(self, scenario: type[Scenario] | None) -> None:
        self.scenario = scenario
        self.made.clear()
        self.asking.clear()
        self.changed.emit()

    def _changed(self, change: Change) -> None:
        if change.cleared:
            self.made.clear()
            self.asking.clear()
            self.changed.emit()
        refs = self.refs
        if not refs:
            return
        for served in change.served:
            record = served.record
            if record.card is None or not record.kind.compiled:
                continue
            card = self.book.card_of(record)
            if card is None:  # never here (a compiled call's card), but typed so
                continue
            for i, ref in enumerate(refs):
                if ref_matches(ref, record, card):
                    self._ask(i, card)

    def _ask(self, i: int, card: CardView) -> None:
        self.asking[i] = card.created_by

        def done(made: ScriptOf, i: int = i, card: CardView = card) -> None:
            if self.asking.get(i) != card.created_by:
                return  # a newer card of this ref was asked for since
            del self.asking[i]
            self.made[i] = (card, made)
            self.changed.emit()

        self.book.fetch(card, done)

    # -- what the lesson panel shows ----------------------------------------------------
    def missing(self) -> list[CardRef]:
        """The named cards with no script yet (their calls not made, or made and failed)."""
        return [
            ref
            for i, ref in enumerate(self.refs)
            if i not in self.made or self.made[i][1].script is None
        ]

    @property
    def busy(self) -> bool:
        return bool(self.asking)

    @property
    def ready(self) -> bool:
        return bool(self.refs) and not self.missing()

    def describe(self, ref: CardRef) -> str:
        """A call to make, in the interface language: the variant's title, the values."""
        lang = language()
        title = ref.variant
        for v in getattr(self.scenario, "variants", ()):
            if v.id == ref.variant:
                title = v.title.get(lang)
        values = values_text(getattr(self.scenario, "params", ()), dict(ref.params), lang)
        text = f"“{title}”" + (f" ({values})" if values else "")
        if ref.number is not None:
            text += " " + self.tr("until it makes card #%1").replace("%1", str(ref.number))
        return text

    def status(self) -> str:
        """Empty when :meth:`open` can show the lesson's scripts; else what to do first."""
        refs = self.refs
        if not refs:
            return ""
        failed = [
            made.why
            for i, (card, made) in self.made.items()
            if made.script is None and i < len(refs)
        ]
        missing = self.missing()
        if not missing:
            return ""
        if self.busy and len(self.asking) >= len(missing):
            return self.tr("Writing out the scripts on the executor…")
        text = self.tr("Make these calls first: %1.").replace(
            "%1", self.tr("; ").join(self.describe(r) for r in missing)
        )
        if failed:
            text += " " + self.tr("(No script: %1)").replace("%1", failed[0])
        return text

    def open(self) -> QWidget | None:
        """The diff of the two named cards' scripts (or the one card's script); None while
        a named card has no script yet (:meth:`status` says which calls to make)."""
        if not self.ready:
            return None
        kept = [self.made[i] for i in range(len(self.refs))]
        if len(kept) == 1:
            card, made = kept[0]
            return self.book.show_made(card, made)
        (a, made_a), (b, made_b) = kept
        return self.book.compare_made(a, b, made_a, made_b)
