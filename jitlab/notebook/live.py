"""``%%jitlab --live``: the kitchen and a chart, updated while the cell runs.

A thread of its own redraws an ``ipywidgets.HTML`` at most :data:`UPDATES_PER_S` times a
second from what the watch holds (its compile records, its hit counts) and from JAX's own
compile events (a trace that ended: the script is being written; a compile that ended: the
new script is cooking). Widgets speak over their own channel, so the view moves while the
kernel is busy in the cell — and in a compile, which releases the GIL. When the cell ends the
view is replaced, in place, by the cell's static summary (HTML and SVG, no widget): a
notebook saved afterwards, or shown where widgets are not (GitHub, nbviewer), holds the final
picture. Without ipywidgets, nothing moves and the summary is shown at the end as usual.

What the kitchen says is what was seen, with its age: JAX announces a phase when it ends, so
a long trace shows as the last thing seen "N s ago", never as a guess.
"""

from __future__ import annotations

import collections
import importlib
import threading
import time
from typing import TYPE_CHECKING, Any

from IPython.display import display

from jitlab.notebook.render import framed, live_svg
from jitlab.notebook.words import say
from jitlab.records.calls import CallKind
from jitlab.records.lines import RecordedCall
from jitlab.records.text import format_ms

if TYPE_CHECKING:
    from jitlab.watching.recorder import Recorder

UPDATES_PER_S = 5
WINDOW_S = 60.0  # the chart's span: the last minute
_STATE_COLOURS = {
    "idle": "#57606a",
    "writing": "#9a6700",
    "rewriting": "#b4232f",
    "cooking": "#0969da",
    "hit": "#1a7f37",
    "compile": "#0969da",
    "recompile": "#b4232f",
    "persistent": "#8250df",
    "error": "#b4232f",
}


_active: list[LiveView] = []  # the views of the cells running now (innermost last)


def current() -> LiveView | None:
    """The live view of the cell running now, if it has one."""
    return _active[-1] if _active else None


class LiveView:
    """The live picture of one watched cell (``recorder``: its :func:`jitlab.watch`)."""

    def __init__(self, recorder: Recorder, lang: str = "en") -> None:
        self.recorder = recorder
        self.lang = lang
        self.widget: Any = None
        self.handle: Any = None
        self.updates = 0  # redraws sent
        self.line = ""  # the kitchen's line as last drawn
        self._events: collections.deque[tuple[float, str, str]] = collections.deque(maxlen=256)
        self._samples: collections.deque[tuple[float, float]] = collections.deque(
            maxlen=int(WINDOW_S * UPDATES_PER_S) + 2
        )
        self._hits_seen = (0.0, 0)  # (t, hits) of the last sample
        self._hit_at: float | None = None  # when the hit count last grew
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._listening = False
        try:  # by name: ipywidgets has no type information
            ipywidgets = importlib.import_module("ipywidgets")
        except ImportError:  # the static summary at the end is all there is
            return
        self.widget = ipywidgets.HTML(value=self.render())
        self.handle = display(self.widget, display_id=True)

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> None:
        """After the recorder started (its clock is the chart's)."""
        if self.widget is None:
            return
        from jitlab.probe import monitor

        # Through jitlab's own registration: a program that clears JAX's listeners
        # (jax.monitoring.clear_event_listeners()) gets the view's back with the watch's.
        monitor.add_listener(self._heard)
        self._listening = True
        self._thread = threading.Thread(target=self._run, name="jitlab-live", daemon=True)
        self._thread.start()
        _active.append(self)

    def finish(self, report: Any) -> None:
        """Stop redrawing; the view becomes ``report`` (shown anew without widgets)."""
        self._stop.set()
        if self in _active:
            _active.remove(self)
        if self._thread is not None:
            self._thread.join()
        if self._listening:
            from jitlab.probe import monitor

            monitor.remove_listener(self._heard)
            self._listening = False
        if self.handle is None:
            display(report)
            return
        self.handle.update(report)
        self.widget.close()

    def _run(self) -> None:
        while not self._stop.wait(1.0 / UPDATES_PER_S):
            try:
                self.widget.value = self.render()
                self.updates += 1
            except Exception:  # a redraw that fails must not end the cell; the next may work
                continue

    def _heard(self, event: str, ms: float, fun_name: str | None) -> None:
        """A phase JAX timed ended (a :class:`jitlab.probe.monitor.DurationListener`)."""
        from jitlab.probe import monitor

        if fun_name is None or event not in (monitor.TRACE_EVENT, monitor.COMPILE_EVENT):
            return
        phase = "traced" if event == monitor.TRACE_EVENT else "compiled"
        self._events.append((self.recorder.elapsed(), phase, monitor.trace_event_name(fun_name)))

    def heard(self) -> list[tuple[float, str, str]]:
        """What JAX announced while the cell ran, oldest first (the latest 256): (seconds
        into the watch, ``traced`` or ``compiled``, the function's name)."""
        return list(self._events)

    # -- the picture ------------------------------------------------------------------------
    def _sample(self, now: float) -> tuple[int, list[RecordedCall]]:
        recorder = self.recorder
        hits = sum(s.hits or 0 for s in list(recorder.stats.values()))
        t0, before = self._hits_seen
        if now > t0:
            if hits > before:
                self._hit_at = now
            self._samples.append((now, (hits - before) / (now - t0)))
            self._hits_seen = (now, hits)
        return hits, list(recorder.calls)

    def state(self, now: float, calls: list[RecordedCall]) -> tuple[str, str, str, float | None]:
        """(state key, its words, the function, when it was seen) of the latest thing seen."""
        lang = self.lang
        names = {s.name for s in list(self.recorder.stats.values())}
        latest: tuple[float, str, str, str] | None = None  # (t, key, words, function)
        if calls:
            call = calls[-1]
            r = call.record
            key = {
                CallKind.COMPILE: "compile",
                CallKind.RECOMPILE: "recompile",
                CallKind.PERSISTENT_HIT: "persistent",
                CallKind.ERROR: "error",
            }.get(r.kind)
            if key is not None and call.t is not None:
                card = (r.card or 0) + 1
                latest = (call.t, key, say(f"kitchen.{key}", lang, card=card), r.function)
        for t, phase, name in reversed(self._events):
            if name not in names:
                continue  # JAX compiling for itself (jnp.ones' kernels): not the kitchen's
            if latest is None or t > latest[0]:
                compiled_before = any(c.record.function == name for c in calls)
                key = "cooking" if phase == "compiled" else "writing"
                if key == "writing" and compiled_before:
                    key = "rewriting"
                latest = (t, key, say(f"kitchen.{key}", lang), name)
            break
        if self._hit_at is not None and (latest is None or self._hit_at > latest[0]):
            latest = (self._hit_at, "hit", say("kitchen.hit", lang), "")
        if latest is None:
            return "idle", say("kitchen.idle", lang), "", None
        t, key, words, function = latest
        return key, words, function, t

    def render(self) -> str:
        lang = self.lang
        now = self.recorder.elapsed() if self.recorder.recording else 0.0
        hits, calls = self._sample(now)
        key, words, function, seen_at = self.state(now, calls)
        age = None if seen_at is None else now - seen_at
        if function and age is not None and age >= 1.0:
            line = say("live.state", lang, state=words, function=function, age=f"{age:.0f}")
        elif function:
            line = say("live.state_now", lang, state=words, function=function)
        else:
            line = words
        self.line = line
        compiled = [c for c in calls if c.record.kind.compiled]
        recompiles = sum(c.record.kind is CallKind.RECOMPILE for c in compiled)
        lost = sum(c.record.trace_ms + c.record.lower_ms + c.record.compile_ms for c in calls)
        counts = say(
            "live.counts",
            lang,
            calls=say("n.calls", lang, n=hits + len(calls)),
            compiles=say("n.compiles", lang, n=len(compiled)),
            recompiles=say("n.recompiles", lang, n=recompiles),
            lost=format_ms(lost),
        )
        colour = _STATE_COLOURS.get(key, "#57606a")
        from jitlab.report.html import esc

        body = (
            f'<h2 class="nb">{esc(say("live.title", lang), lang)}</h2>'
            f'<p class="live-state" style="color:{colour}" '
            f'title="{esc(say("kitchen.tip", lang), lang)}">{esc(line, lang)}</p>'
            f'<p class="note">{esc(counts, lang)}</p>'
            + live_svg(list(self._samples), compiled, now, WINDOW_S, lang)
            + f'<p class="note">{esc(say("live.chart", lang, window=f"{WINDOW_S:.0f}"), lang)}</p>'
        )
        return framed(body, lang)


def wait_for(condition: Any, timeout: float = 60.0) -> bool:
    """Poll ``condition`` until true (for notebooks that show the view: a demo, a test)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())
