"""The script book: asks the executor for the cards' scripts, keeps them per card, opens
the windows.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, QTimer, Signal, Slot
from PySide6.QtWidgets import QMenu, QWidget

from jitlab.gui.executor import Executor, ScriptOf, ScriptsCompared
from jitlab.gui.scripts.window import ScriptDiffWindow, ScriptWindow
from jitlab.gui.views.model import CardView, Change, RunState
from jitlab.records.calls import CallRecord


def card_id(card: CardView) -> tuple[str, int, int]:
    """``(function, card index, created_by)``: what the executor finds the card by."""
    return (str(card.key[0]), int(card.key[1]), int(card.created_by))


class _AfterPaint(QObject):
    """Calls ``then`` once ``window`` has been painted (on the next turn of the event loop
    after its first paint), or after ``latest_ms`` if it is not painted by then."""

    def __init__(self, window: QWidget, then: Any, latest_ms: int = 100) -> None:
        super().__init__(window)
        self._then = then
        self._window = window
        window.installEventFilter(self)
        QTimer.singleShot(latest_ms, self, self._fire)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self._then is not None:
            QTimer.singleShot(0, self, self._fire)
        return False

    def _fire(self) -> None:
        then, self._then = self._then, None
        if then is not None:
            self._window.removeEventFilter(self)
            then()
            self.deleteLater()


@dataclass(frozen=True)
class _PartOf:
    """What a pending job is for: the text ``part`` of the card ``key``'s open window."""

    key: tuple[str, int, int]
    part: str


class ScriptBook(QObject):
    """Opens script windows for the kitchen's cards; scripts are made on the executor.

    Each card's script is asked for once and kept until the card holder empties (a reset,
    a variant or scenario switch); the probe keeps it with the card as well. Asking never
    changes what the probe records, so the views' counts stay as they were.
    """

    script_ready = Signal(object)  # ScriptOf, once a window got it
    compared = Signal(object)  # ScriptsCompared

    def __init__(self, state: RunState, executor: Executor, parent: QWidget) -> None:
        super().__init__(parent)
        self.state = state
        self._parent = parent
        self.cache: dict[tuple[str, int, int], ScriptOf] = {}
        self.windows: dict[tuple[str, int, int], ScriptWindow] = {}
        self.diffs: list[ScriptDiffWindow] = []
        self._pending: dict[int, Any] = {}  # token -> what to do with the result
        self.produce_ms: dict[tuple[str, int, int], float] = {}  # asked → shown, per card
        self._asked: dict[int, float] = {}
        self._opening: dict[tuple[str, int, int], float] = {}  # window opened, not asked yet
        self.executor = executor
        self._connect(executor)
        state.subscribe(self._changed)

    def _connect(self, executor: Executor) -> None:
        executor.job_done.connect(self._done)
        executor.replaced.connect(self._follow)

    @Slot(object)
    def _follow(self, executor: Executor) -> None:
        if executor is self.executor:
            return
        old = self.executor
        old.job_done.disconnect(self._done)
        old.replaced.disconnect(self._follow)
        self.executor = executor
        self._connect(executor)

    def _changed(self, change: Change) -> None:
        if change.cleared or change.new_segment:
            self.cache.clear()  # those cards are gone; their windows keep what they show

    # -- asking -------------------------------------------------------------------------
    def open(self, card: CardView) -> ScriptWindow:
        """Open (or raise) the script window of ``card``."""
        key = card_id(card)
        window = self.windows.get(key)
        if window is None:
            window = self._window(card, key)
        window.view.set_others(self._cards(), card)
        window.show()
        window.raise_()
        window.activateWindow()
        made = self.cache.get(key)
        if made is not None:
            window.view.set_script(made, card.number)
        elif (
            window.view.script is None
            and key not in self._pending.values()
            and key not in self._opening
        ):
            # Asked once the window is painted: its first layout and paint (several ms of
            # GUI thread) run before the executor starts making the script, not against it.
            self._opening[key] = time.perf_counter()
            _AfterPaint(window, lambda k=key: self._ask(k))
        return window

    def _ask(self, key: tuple[str, int, int]) -> None:
        opened = self._opening.pop(key, None)
        if opened is None:
            return
        token = self.executor.request_script(*key, view=True)
        self._pending[token] = key
        self._asked[token] = opened

    def _window(self, card: CardView, key: tuple[str, int, int]) -> ScriptWindow:
        window = ScriptWindow(card, self._parent)
        window.view.compare_requested.connect(lambda other, c=card: self.compare(c, other))
        window.view.part_wanted.connect(lambda part, k=key: self.request_part(k, part))
        self.windows[key] = window
        return window

    def request_part(self, key: tuple[str, int, int], part: str) -> int:
        """Ask for the text ``part`` the card's script was made without (a script window
        showed its tab): only that text is printed; the window then fills that pane."""
        window = self.windows.get(key)
        made = self.cache.get(key)
        script = window.view.script if window is not None else None
        if script is None and made is not None:
            script = made.script
        if script is None:
            return 0
        token = self.executor.request_part(*key, script, part)
        self._pending[token] = _PartOf(key, part)
        return token

    def request_stablehlo(self, key: tuple[str, int, int]) -> int:
        """:meth:`request_part` of the StableHLO."""
        return self.request_part(key, "stablehlo")

    def compare(self, a: CardView, b: CardView) -> ScriptDiffWindow:
        """Open a window comparing ``a``'s script with ``b``'s (made on the executor)."""
        window = ScriptDiffWindow(a, b, self._parent)
        self.diffs.append(window)
        window.show()
        token = self.executor.request_comparison(card_id(a), card_id(b))
        self._pending[token] = window
        return window

    def compare_made(
        self, a: CardView, b: CardView, made_a: ScriptOf, made_b: ScriptOf
    ) -> ScriptDiffWindow:
        """Open a window comparing two scripts already made (their cards may have left the
        holder since: a lesson compares the pitfall's card with the fix's)."""
        window = ScriptDiffWindow(a, b, self._parent)
        self.diffs.append(window)
        window.show()
        token = self.executor.request_diff_of(made_a, made_b)
        self._pending[token] = window
        return window

    def show_made(self, card: CardView, made: ScriptOf) -> ScriptWindow:
        """Open a script window showing ``made`` (already made) for ``card``."""
        key = card_id(card)
        window = self.windows.get(key)
        if window is None:
            window = self._window(card, key)
        window.view.set_others(self._cards(), card)
        window.view.set_script(made, card.number)
        window.show()
        window.raise_()
        return window

    def fetch(self, card: CardView, done: Any) -> int:
        """Ask for ``card``'s script without opening a window; ``done(ScriptOf)`` gets it."""
        key = card_id(card)
        made = self.cache.get(key)
        if made is not None and made.script is not None and not made.script.deferred:
            done(made)
            return 0
        token = self.executor.request_script(*key, stablehlo=True)  # lessons compare them
        self._pending[token] = done
        return token

    def card_of(self, record: CallRecord) -> CardView | None:
        """The card a call record compiled, as the kitchen numbers it; None when the record
        made no card (a cache hit, an error, an eager call)."""
        if record.card is None or not record.kind.compiled:
            return None
        held = self.state.cards.get((record.function, record.card))
        if held is not None and held.created_by == record.index:
            return held
        for card in self.state.cards.values():  # a card moved aside by a same-named function
            if card.key[:2] == (record.function, record.card) and card.created_by == record.index:
                return card
        sig = record.signature
        return CardView(
            (record.function, record.card),
            str(sig) if sig is not None else "?",
            record.index,
            record.trace_ms + record.lower_ms + record.compile_ms,
            sig=sig,
        )

    def open_record(self, record: CallRecord) -> ScriptWindow | None:
        """Open the script of the card ``record`` compiled (a compile row, a chart point)."""
        card = self.card_of(record)
        return self.open(card) if card is not None else None

    def _cards(self) -> list[CardView]:
        return sorted(self.state.cards.values(), key=lambda c: c.number)

    @Slot(int, object, str)
    def _done(self, token: int, result: Any, error: str) -> None:
        target = self._pending.pop(token, None)
        if target is None:
            return  # another client's job on the shared executor
        asked = self._asked.pop(token, None)
        if isinstance(target, _PartOf):
            made = result if isinstance(result, ScriptOf) else None
            if made is None:
                made = ScriptOf(*target.key, None, _failure(error))
            kept = self.cache.get(target.key)
            if made.script is not None:
                script = made.script
                if kept is not None and kept.script is not None:
                    script = kept.script.with_part(target.part, made.script)
                self.cache[target.key] = ScriptOf(*target.key, script)
            window = self.windows.get(target.key)
            if window is not None:
                window.view.set_part(made, target.part)
            return
        if callable(target) and not isinstance(target, QObject):
            made = result if isinstance(result, ScriptOf) else None
            if made is None:
                made = ScriptOf("?", -1, -1, None, _failure(error))
            elif made.script is not None:
                self.cache[(made.function, made.card, made.created_by)] = made
            target(made)
            return
        if isinstance(target, ScriptDiffWindow):
            if isinstance(result, ScriptsCompared):
                target.set_compared(result)
            else:
                a, b = target.cards
                empty = ScriptOf(*card_id(a), None, _failure(error))
                target.set_compared(ScriptsCompared(empty, ScriptOf(*card_id(b)), None))
            self.compared.emit(target.compared)
            return
        key: tuple[str, int, int] = target
        made = result if isinstance(result, ScriptOf) else ScriptOf(*key, None, _failure(error))
        if made.script is not None:
            self.cache[key] = made
        window = self.windows.get(key)
        if window is not None:
            window.view.set_script(made, window.card.number)
            if asked is not None:
                self.produce_ms[key] = (time.perf_counter() - asked) * 1e3
        self.script_ready.emit(made)

    # -- the kitchen's right-click menu -------------------------------------------------
    def card_menu(self, card: CardView, where: QPoint) -> QMenu:
        """Read this card's script, or compare it with another card."""
        menu = QMenu(self._parent)
        read = menu.addAction(self.tr("Read its script"))
        read.triggered.connect(lambda: self.open(card))
        others = [c for c in self._cards() if c.key != card.key]
        sub = menu.addMenu(self.tr("Compare with…"))
        sub.setEnabled(bool(others))
        for other in others:
            action = sub.addAction(f"#{other.number}  {other.signature[:50]}")
            action.triggered.connect(lambda _=False, o=other: self.compare(card, o))
        menu.popup(where)
        return menu


def _failure(error: str) -> str:
    lines = [line for line in error.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "the job failed"
