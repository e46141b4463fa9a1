"""The scripts a recording keeps (``jitlab watch --scripts``): a kitchen card's, in a window
of its own, and two of them side by side (compared here: they are plain data)."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from jitlab.gui.executor import ScriptOf, ScriptsCompared
from jitlab.gui.recording import texts
from jitlab.gui.scripts.window import ScriptDiffWindow, ScriptWindow
from jitlab.gui.views.model import CardView
from jitlab.recordings.follower import Follower, Lane
from jitlab.records.scripts import compare


class RecordedScripts:
    """The script windows of a recording window's kitchen cards.

    It holds its window weakly, and ``picked`` and ``cards`` should too: a cycle through the
    window would keep its Python object alive after Qt deleted it.
    """

    def __init__(
        self,
        owner: QWidget,
        follower: Follower,
        picked: Callable[[], Lane | None],
        cards: Callable[[], Iterable[CardView]],
    ) -> None:
        self._owner = weakref.ref(owner)
        self.follower = follower
        self.picked = picked
        self.cards = cards
        self.windows: dict[tuple[Lane, int, int], ScriptWindow] = {}
        self.diffs: list[ScriptDiffWindow] = []

    def script_of(self, card: CardView) -> ScriptOf:
        """The script recorded for a kitchen card of the picked function, or why there is
        none (a recording made without ``--scripts``, an events-only function, a failure)."""
        lane = self.picked()
        function, index = str(card.key[0]), int(card.key[1])
        if lane is None:
            return ScriptOf(function, index, card.created_by, None, texts.no_scripts())
        recording = self.follower.source_of(lane).recording
        kept = recording.scripts.get(((lane[0], lane[1]), index))
        if kept is not None and (kept.created_by is None or kept.created_by == card.created_by):
            return ScriptOf(function, index, card.created_by, kept.script, kept.why)
        calls = self.follower.calls_of(lane)
        if calls and all(call.events_only for call in calls):
            why = texts.events_only()
        elif recording.start is None or recording.start.scripts is None:
            why = texts.no_scripts()
        else:
            why = texts.no_script()
        return ScriptOf(function, index, card.created_by, None, why)

    def open(self, card: CardView) -> ScriptWindow:
        """Open (or raise) the window of a kitchen card's recorded script."""
        key = (self.picked() or ("", None, None), int(card.key[1]), int(card.created_by))
        window = self.windows.get(key)
        if window is None:
            window = ScriptWindow(card, self._owner())
            window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            window.destroyed.connect(lambda _=None, k=key: self.windows.pop(k, None))
            window.view.compare_requested.connect(lambda other, c=card: self.compare(c, other))
            self.windows[key] = window
        made = self.script_of(card)
        window.view.set_script(made, card.number)
        cards = sorted(self.cards(), key=lambda c: c.number)
        with_scripts = [c for c in cards if self.script_of(c).script is not None]
        window.view.set_others(with_scripts if made.script is not None else [], card)
        window.show()
        window.raise_()
        window.activateWindow()
        return window

    def compare(self, a: CardView, b: CardView) -> ScriptDiffWindow:
        """Two recorded scripts side by side."""
        before, after = self.script_of(a), self.script_of(b)
        diff = None
        if before.script is not None and after.script is not None:
            diff = compare(before.script, after.script)
        window = ScriptDiffWindow(a, b, self._owner())
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        window.set_compared(ScriptsCompared(before, after, diff))
        self.diffs.append(window)
        window.destroyed.connect(lambda _=None, w=window: self._forget(w))
        window.show()
        return window

    def _forget(self, window: ScriptDiffWindow) -> None:
        if window in self.diffs:
            self.diffs.remove(window)
