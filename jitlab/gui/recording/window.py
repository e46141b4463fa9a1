"""A recording of a real program (``jitlab watch``), per function, in the lab's own views.

Open a JSON-lines recording and pick a function — the list is sorted by time lost to
compiling, so the first one to fix comes first. The kitchen, the chart and the call log show
that function's compiles; the signature ledger lists every signature it compiled for, the
changed fields highlighted; the shape histogram suggests buckets for a dimension that keeps
changing size. A file that is still being written is followed: new lines show up as the
program runs (a file watcher, with a poll as a fallback; a half-written last line waits for
its end).

Several recordings of one multi-process job (``run.p0.jsonl``, ``run.p1.jsonl``, …) open in
one window: the picker lists each function once per process (a lane each), and a banner names
where the processes diverged (:mod:`jitlab.recordings.processes`), its rows highlighted. A long file
is read a piece at a time, so the first view shows at once and the window stays responsive.
With ``jitlab watch --scripts``, clicking a card in the kitchen opens the script recorded for
that compile.

Entry points: :func:`jitlab.gui.app.open_recording` (its own event loop, for ``jitlab open``),
:func:`open_recording_window` and :func:`choose_recording` (inside a running app).
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QFileSystemWatcher, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QColor, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QFileDialog,
    QLabel,
    QMainWindow,
    QSplitter,
    QTabWidget,
    QToolTip,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from jitlab.gui import geometry, i18n, plain
from jitlab.gui.executor import ScriptOf, ScriptsCompared
from jitlab.gui.i18n import Retranslating
from jitlab.gui.scripts.window import ScriptDiffWindow, ScriptWindow
from jitlab.gui.style import KIND_COLORS, KIND_ORDER, format_ms, kind_name
from jitlab.gui.views.chart import ChartView
from jitlab.gui.views.kitchen import KitchenPanel
from jitlab.gui.views.ledger_view import LedgerView
from jitlab.gui.views.log_view import LogView
from jitlab.gui.views.model import CardView, RunState
from jitlab.gui.views.shape_histogram import ShapeHistogram
from jitlab.recordings.ledger import compiled_signatures
from jitlab.recordings.processes import Divergence, merge, merge_in_steps, process_of
from jitlab.recordings.reader import (
    MAX_LINE_BYTES,
    FunctionSummary,
    NotARegularFile,
    Recording,
    Summarizer,
    paused_collector,
    read_recording,
)
from jitlab.records.calls import CallKind
from jitlab.records.lines import Key, RecordedCall
from jitlab.records.scripts import compare

GEOMETRY_KEY = "recordingGeometry"
POLL_MS = 300  # fallback poll while following (file watchers miss appends on some systems)
READ_BYTES = 1 << 16  # read a long file this much at a time, the window answering in between
SLICE_MS = 4.0  # while loading, read pieces for about this long per turn of the event loop
REFRESH_MS = 150.0  # while loading, refresh the views at most this often (or 4x their cost)
FREEZE_EVERY = 5000  # calls read between two gc.freeze() (see RecordingWindow._count)
# Calls in all files above which a job's divergences are looked for a slice per turn
# (merge_in_steps) rather than at once: 8 x 100,000 lines held the window ~300-440 ms.
MERGE_AT_ONCE = 20_000
# A lane: one function in one process (process None: a single recording).
Lane = tuple[str, str | None, int | None]
DIVERGED_BACKGROUND = "#fff1d6"


@dataclass
class _Source:
    """One file of the window and how far it was read."""

    path: Path
    position: int  # among the files given
    recording: Recording = field(default_factory=Recording)
    offset: int = 0
    last_size: int = -1
    missing: bool = False
    refused: bool = False  # not a regular file (a FIFO, a device): never read
    # Its rows, counted as they are read (several files: merge() takes them from here).
    summarizer: Summarizer = field(default_factory=lambda: Summarizer(include_internal=False))

    def reset(self) -> None:
        self.recording = Recording()
        self.offset = 0
        self.last_size = -1
        self.refused = False
        self.summarizer = Summarizer(include_internal=False)


_windows: list[RecordingWindow] = []  # parentless windows stay alive until closed


class RecordingKitchen(KitchenPanel):
    """The kitchen panel, its counters completed with the recording's aggregated cache hits."""

    hits: int | None = None  # None: not counted (the function was jitted before the watch)

    def refresh(self) -> None:
        super().refresh()
        summary = self.state.segment_summary()
        if self.hits is None:
            self.values["calls"].setText(f"{summary.calls} + ?")
            self.values["hit_rate"].setText("?")
            tip = self.tr(
                "Cache hits of this function were not counted: it was jitted before the "
                "recording began, and a cache hit fires no JAX event."
            )
        else:
            calls = summary.calls + self.hits
            self.values["calls"].setText(str(calls))
            self.values["hit_rate"].setText(f"{self.hits / calls:.0%}" if calls else "0%")
            tip = self.tr("Calls of this function: its compiles plus its cache hits.")
        self.values["calls"].setToolTip(tip)
        self.values["hit_rate"].setToolTip(
            self.tr("Share of this function's calls served from a compiled program.")
        )


class RecordingChart(ChartView):
    """The latency chart without the variant legend (a recording has no variants)."""

    show_runs = False  # no variant runs to mark

    def retranslate(self) -> None:
        super().retranslate()
        parts = [
            f"<span style='color:{KIND_COLORS[kind]}'>●</span>&nbsp;{kind_name(kind)}"
            for kind in KIND_ORDER
            if kind is not CallKind.CACHE_HIT  # a recording keeps hits as counts, not points
        ]
        self.legend.setText("&nbsp;&nbsp;&nbsp;".join(parts))
        self.legend.setToolTip(
            self.tr(
                "One point per compile of this function, at the number of the call that made "
                "it; the calls in between were cache hits."
            )
        )


class RecordingWindow(Retranslating, QMainWindow):
    """One recording, per function; follows the file while ``follow`` is on."""

    updated = Signal()  # new lines were read and the views show them

    def __init__(
        self,
        path: str | Path | Sequence[str | Path],
        follow: bool = True,
        settings: QSettings | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("recordingWindow")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        paths = [path] if isinstance(path, str | Path) else list(path)
        self.sources = [_Source(Path(p), i) for i, p in enumerate(paths)]
        self.multi = len(self.sources) > 1  # one job's processes, side by side
        self.settings = settings
        self.summaries: list[FunctionSummary] = []
        self.rows: list[tuple[Lane, FunctionSummary]] = []  # the picker's rows, in order
        self.divergences: tuple[Divergence, ...] = ()
        self._divergences_at = -1  # calls read when they were looked for (-1: not yet)
        self._reloads = 0  # times read again from the start (a slow look at divergences stops)
        self.picked: Lane | None = None
        self.auto_pick = True
        self._calls: dict[Lane, list[RecordedCall]] = {}
        self._indexed: dict[int, int] = {}
        self._fed = 0
        self._cards = 0
        self._summarizer = Summarizer()  # the rows, updated with the new lines only
        self._refreshed_at = 0.0
        self._refresh_ms = 0.0  # what the last refresh cost: refreshes while loading are spaced
        # What the next turns of the event loop do before reading on: a refresh, or the
        # parts of the last one of a long file.
        self._steps: list[Callable[[], object]] = []
        self._in_pieces = False  # reading a long file a piece at a time, views refreshed light
        self._frozen_at = 0  # calls read at the last gc.freeze()
        self._turn = 0  # the file whose piece is read first at the next turn
        self._picker_styles: list[tuple[bool, bool, bool] | None] = []  # per picker row
        self._picker_widths: list[int] = []  # the longest text per column, as last fitted
        self.script_windows: dict[tuple[Lane, int, int], ScriptWindow] = {}
        self.diff_windows: list[ScriptDiffWindow] = []
        self.state = RunState()
        self._build()
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(lambda _path: self.poll())
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        self._more = QTimer(self)  # the next piece of a long file, once events are handled
        self._more.setSingleShot(True)
        self._more.setInterval(0)
        self._more.timeout.connect(self.poll)
        geometry.place(self, settings, GEOMETRY_KEY, (1400, 900))
        self.retranslate()
        self.poll()
        self.set_follow(follow)

    # -- construction ---------------------------------------------------------------------
    def _build(self) -> None:
        # Rich text (bold, line breaks) made here, every recorded string in it escaped.
        self.info = QLabel(self)
        self.info.setObjectName("recordingInfo")
        self.info.setTextFormat(Qt.TextFormat.RichText)
        self.info.setWordWrap(True)
        self.info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.follow_box = QCheckBox(self)
        self.follow_box.setObjectName("followFile")
        self.follow_box.toggled.connect(self.set_follow)
        self.picker_label = QLabel(self)
        self.banner = QLabel(self)  # where the processes of a job diverged
        self.banner.setObjectName("divergenceBanner")
        self.banner.setTextFormat(Qt.TextFormat.RichText)
        self.banner.setWordWrap(True)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.banner.setStyleSheet(
            "QLabel#divergenceBanner { background: #fff1d6; color: #5a3b00;"
            " border: 1px solid #e0a030; border-radius: 4px; padding: 6px; }"
        )
        self.banner.hide()
        self.picker = QTreeWidget(self)
        self.picker.setObjectName("functionPicker")
        self.picker.setRootIsDecorated(False)
        self.picker.setColumnCount(6)
        self.picker.header().moveSection(5, 1)  # the process, right after the function
        self.picker.setColumnHidden(5, not self.multi)
        self.picker.setUniformRowHeights(True)
        self.picker.currentItemChanged.connect(self._picked)
        self.picker.viewport().installEventFilter(self)
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.info)
        left_layout.addWidget(self.follow_box)
        left_layout.addWidget(self.banner)
        left_layout.addWidget(self.picker_label)
        left_layout.addWidget(self.picker, 1)
        self.details = QLabel(self)
        self.details.setObjectName("functionDetails")
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setWordWrap(True)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        left_layout.addWidget(self.details, 1)
        left.setMinimumWidth(340)

        self.kitchen = RecordingKitchen(self.state, self)
        self.kitchen.canvas.card_clicked.connect(self.open_script)
        # The chart and the log follow the run model, as in the main window: _feed only
        # files the picked function's calls into it.
        self.chart = RecordingChart(self)
        self.chart.bind(self.state)
        self.ledger = LedgerView(self)
        self.histogram = ShapeHistogram(self)
        self.log = LogView(self)
        self.log.bind(self.state)
        self.log.table.setColumnHidden(7, True)  # scenario parameters: none in a recording
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("recordingTabs")
        for widget in (self.ledger, self.histogram, self.log):
            self.tabs.addTab(widget, "")
        self.top_split = QSplitter(Qt.Orientation.Horizontal, self)
        self.top_split.addWidget(self.kitchen)
        self.top_split.addWidget(self.chart)
        self.top_split.setSizes([560, 540])
        self.right_split = QSplitter(Qt.Orientation.Vertical, self)
        self.right_split.addWidget(self.top_split)
        self.right_split.addWidget(self.tabs)
        self.right_split.setChildrenCollapsible(False)
        self.right_split.setSizes([340, 560])
        self.main_split = QSplitter(Qt.Orientation.Horizontal, self)
        self.main_split.addWidget(left)
        self.main_split.addWidget(self.right_split)
        self.main_split.setStretchFactor(1, 1)
        self.main_split.setSizes([380, 1020])
        self.setCentralWidget(self.main_split)
        self.status_label = QLabel(self)
        self.status_label.setObjectName("recordingStatus")
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)  # it names the files
        self.statusBar().addWidget(self.status_label, 1)
        self._build_menus()

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu("")
        self.act_open = QAction(self)
        self.act_open.setShortcut(QKeySequence.StandardKey.Open)
        self.act_open.triggered.connect(
            lambda: choose_recording(self, owner=self.parentWidget(), settings=self.settings)
        )
        self.act_reload = QAction(self)
        self.act_reload.setShortcut(QKeySequence.StandardKey.Refresh)
        self.act_reload.triggered.connect(self.reload)
        self.act_follow = QAction(self)
        self.act_follow.setCheckable(True)
        self.act_follow.toggled.connect(self.set_follow)
        self.act_close = QAction(self)
        self.act_close.setShortcut(QKeySequence.StandardKey.Close)
        self.act_close.triggered.connect(self.close)
        for act in (self.act_open, self.act_reload, self.act_follow):
            self.file_menu.addAction(act)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.act_close)
        i18n.add_language_menu(self, self.set_language)

    # -- following the file ---------------------------------------------------------------
    @property
    def path(self) -> Path:
        """The first file (the only one, unless the window shows several processes)."""
        return self.sources[0].path

    @property
    def recording(self) -> Recording:
        """The first file's recording (the only one, unless it shows several processes)."""
        return self.sources[0].recording

    @property
    def offset(self) -> int:
        return self.sources[0].offset

    @property
    def missing(self) -> bool:
        return any(source.missing for source in self.sources)

    @property
    def loading(self) -> bool:
        """True while a long file is still being read, a piece at a time (and its views
        brought up to date)."""
        return self._more.isActive() or bool(self._steps)

    @property
    def following(self) -> bool:
        return self.timer.isActive()

    def set_follow(self, follow: bool) -> None:
        """Keep reading new lines as the program writes them (or stop)."""
        for control in (self.follow_box, self.act_follow):
            control.blockSignals(True)
            control.setChecked(follow)
            control.blockSignals(False)
        if follow:
            self.timer.start()
            self._watch_file()
            self.poll()
        else:
            self.timer.stop()
            if self.watcher.files():
                self.watcher.removePaths(self.watcher.files())
        self._update_status()

    def _watch_file(self) -> None:
        watched = self.watcher.files()
        for source in self.sources:  # re-added when the file was replaced
            if source.path.exists() and str(source.path) not in watched:
                self.watcher.addPath(str(source.path))

    def reload(self) -> None:
        """Read the files again from their first line."""
        for source in self.sources:
            source.reset()
        self._calls = {}
        self._indexed = {}
        self._summarizer = Summarizer()
        self._divergences_at = -1
        self._reloads += 1
        if self.picked is not None:
            self._start_function(self.picked)
        self.poll()

    def poll(self) -> bool:
        """Read the lines written since the last look; True when something new showed up.

        A long file is read a piece at a time (:data:`READ_BYTES`), for about
        :data:`SLICE_MS` per turn of the event loop: the rest follows on the next turns
        (:attr:`loading`). Meanwhile the views are refreshed now and then, each refresh a
        turn of its own, so that no turn keeps the window from answering for long.
        """
        if self._steps:  # a refresh, or part of the last one, asked for by the last turn
            self._more.start()  # then the reading goes on (or ends: nothing more to read)
            self._steps.pop(0)()
            return True
        changed = more = False
        started = time.perf_counter()
        # Several files: a piece of each in turn, this turn starting after the last one read.
        turn = self._turn % len(self.sources)
        waiting = self.sources[turn:] + self.sources[:turn]
        while waiting:
            source = waiting.pop(0)
            self._turn = source.position + 1
            outcome = self._poll_source(source)
            if outcome == "reload":
                self.reload()
                return True
            changed |= outcome in ("changed", "more")
            if outcome == "more":  # a long file: the time spent counts
                waiting.append(source)
                if (time.perf_counter() - started) * 1e3 >= SLICE_MS:
                    more = True  # the rest on the next turn
                    break
        if changed:
            self._count()
        if more:
            self._more.start()
        if changed:
            # While loading, refresh at most every few times what a refresh costs, in a turn
            # of its own; the first view at once.
            now = time.perf_counter()
            spaced = (now - self._refreshed_at) * 1e3 >= max(REFRESH_MS, 4 * self._refresh_ms)
            if more and self._refreshed_at:
                self._in_pieces = True
                if spaced and not self._steps:
                    self._steps.append(lambda: self._refresh_timed(light=True))
                self._update_status()
            elif not more and self._in_pieces:
                # The end of a long file: the signature ledger and the shape histogram
                # (which waited) each in a turn of their own.
                self._in_pieces = False
                self._refresh_timed(light=True)
                self._steps += [self._show_ledger, self._show_histogram, self.updated.emit]
                self._more.start()
            else:
                self._refresh_timed(light=more)
            return True
        self._update_status()
        return False

    def _refresh_timed(self, light: bool) -> None:
        start = time.perf_counter()
        self._refresh(light=light)
        self._refreshed_at = time.perf_counter()
        self._refresh_ms = (self._refreshed_at - start) * 1e3
        self.updated.emit()

    def _count(self) -> None:
        """Index and count the lines just read (cheap, a piece at a time); every
        :data:`FREEZE_EVERY` calls, move what was read out of the garbage collector's way:
        records are kept for good, and a full collection over the objects of a
        million-line recording would hold the window ~100 ms (as in MainWindow.drain)."""
        self._index_calls()
        if not self.multi:
            self._summarizer.count(self.recording)
        else:
            for source in self.sources:
                source.summarizer.count(source.recording)
        calls = sum(len(source.recording.calls) for source in self.sources)
        if calls < self._frozen_at:  # read again from the start
            self._frozen_at = 0
        if calls - self._frozen_at >= FREEZE_EVERY:
            gc.freeze()
            self._frozen_at = calls

    def _poll_source(self, source: _Source) -> str:
        """ "" (nothing new), "changed", "more" (changed, and more to read) or "reload"."""
        try:
            size = os.stat(source.path).st_size
        except OSError:
            if not source.missing:
                source.missing = True
                self._update_status()
            return ""
        if source.missing:
            source.missing = False
            self._update_status()
        if self.following:
            self._watch_file()
        if size < source.offset:  # the program started again and rewrote the file
            return "reload"
        if size == source.last_size:
            return ""
        rec = source.recording
        start = rec.start
        before = (len(rec.calls), len(rec.hits), sum(rec.hits.values()), len(rec.scripts))
        ended = rec.ended
        try:
            rec, offset = read_recording(source.path, source.offset, rec, limit=READ_BYTES)
        except NotARegularFile:  # a FIFO would hold the window, /dev/zero never end
            if not source.refused:
                source.refused = True
                self._update_status()
            return ""
        except OSError:
            return ""
        if source.refused:
            source.refused = False
            self._update_status()
        more = offset - source.offset >= READ_BYTES
        source.recording, source.offset = rec, offset
        if not more:
            source.last_size = size
        if start is not None and rec.start is not start:
            return "reload"  # a new run rewrote the file while we were away
        after = (len(rec.calls), len(rec.hits), sum(rec.hits.values()), len(rec.scripts))
        if after != before or rec.ended != ended or rec.partial_line:
            return "more" if more else "changed"
        return "more" if more else ""

    # -- content --------------------------------------------------------------------------
    def process_of(self, source: _Source) -> int | None:
        """The process a file is of (None when the window shows one recording)."""
        if not self.multi:
            return None
        return process_of(source.recording, source.path.name, source.position)

    def _index_calls(self) -> None:
        for source in self.sources:
            process = self.process_of(source)
            calls = source.recording.calls
            start = self._indexed.get(source.position, 0)
            for call in calls[start:]:
                self._calls.setdefault((*call.key, process), []).append(call)
            self._indexed[source.position] = len(calls)

    def calls_of(self, key: Key | Lane) -> list[RecordedCall]:
        return self._calls.get(self._lane(key), [])

    def _lane(self, key: Key | Lane) -> Lane:
        """A lane from a (function, defined at) key: its first process's lane."""
        if len(key) == 3:
            return key  # type: ignore[return-value]
        for lane, _ in self.rows:
            if lane[:2] == tuple(key):
                return lane
        return (key[0], key[1], None)

    def _source_of(self, lane: Lane) -> _Source:
        for source in self.sources:
            if self.process_of(source) == lane[2]:
                return source
        return self.sources[0]

    def _refresh(self, light: bool = False) -> None:
        """Bring every view up to the lines read. ``light`` (while a long file is still
        being read): the signature ledger and shape histogram wait for the end."""
        self._index_calls()
        if self.multi:
            self._merge()
        else:
            self.divergences = ()
            rows = self._summarizer.update(self.recording)
            self.rows = [((s.function, s.defined_at, None), s) for s in rows]
        self.summaries = [s for _, s in self.rows]
        self._fill_picker()
        self._update_banner()
        top = self.rows[0][0] if self.rows else None
        if top is not None and self.auto_pick and self.picked != top:
            self.pick(top, by_user=False)  # until the user picks, show the costliest function
        elif self.picked is not None:
            self._feed()
            self._show_function(light)
        self._update_info()
        self._update_status()

    def _merge(self) -> None:
        """Per function, one row per process (the costliest function first); divergences,
        once the files are read (while they load, the processes are at different points of
        their recordings: what they compiled differs anyway)."""
        pairs = [(self.process_of(source), source.recording) for source in self.sources]
        if len({index for index, _ in pairs}) < len(pairs):
            # Two files say they are the same process: keep them apart.
            pairs = [(source.position, source.recording) for source in self.sources]
        rows = [source.summarizer.update(source.recording) for source in self.sources]
        read = sum(len(source.recording.calls) for source in self.sources)
        wanted = not self.loading and self._divergences_at != read
        later = wanted and read > MERGE_AT_ONCE
        merged = merge(pairs, summaries=rows, divergences=wanted and not later)  # type: ignore[arg-type]
        if later:  # the ones shown so far stay until the new ones are found
            self._look_for_divergences(pairs, rows, read)
        elif wanted:
            self.divergences, self._divergences_at = merged.divergences, read
        elif self.loading:
            self.divergences = ()
        self.rows = [
            ((s.function, s.defined_at, process), s)
            for across in merged.functions
            for process, s in sorted(across.per_process.items())
            if s is not None
        ]

    def _look_for_divergences(
        self, pairs: list[tuple[int, Any]], rows: list[list[FunctionSummary]], read: int
    ) -> None:
        """Look for a long job's divergences a slice per turn (as its files were read); the
        files are not read meanwhile (poll runs queued steps first)."""
        steps = merge_in_steps(pairs, summaries=rows)
        reloads = self._reloads

        def step() -> None:
            if self._reloads != reloads:  # read again from the start: these are stale
                return
            deadline = time.perf_counter() + SLICE_MS / 1e3
            with paused_collector():
                try:
                    next(steps)  # at least one slice a turn
                    while time.perf_counter() < deadline:
                        next(steps)
                except StopIteration as done:
                    self.divergences, self._divergences_at = done.value.divergences, read
                    self._fill_picker()
                    self._update_banner()
                    self.updated.emit()
                    return
            self._steps.insert(0, step)

        self._steps.append(step)
        self._more.start()

    def diverged(self, lane: Lane) -> Divergence | None:
        """The divergence a lane is part of (its function, in a process that compiled
        something the others did not, or more), else None."""
        name = os.path.basename(lane[1]) if lane[1] else None
        for d in self.divergences:
            where = os.path.basename(d.defined_at) if d.defined_at else None
            if (d.function, where) == (lane[0], name) and lane[2] in d.processes:
                return d
        return None

    def _diverged_function(self, lane: Lane) -> bool:
        name = os.path.basename(lane[1]) if lane[1] else None
        return any(
            (d.function, os.path.basename(d.defined_at) if d.defined_at else None)
            == (lane[0], name)
            for d in self.divergences
        )

    def _fill_picker(self) -> None:
        """The picker's rows, its items kept and rewritten: while a long file loads, every
        refresh changes every row (rebuilding them, their tips and the column widths each
        time held the window ~5 ms). A row's tip is made when asked for (eventFilter)."""
        tree = self.picker
        tree.blockSignals(True)
        if tree.topLevelItemCount() != len(self.rows):
            tree.clear()
            items = [QTreeWidgetItem() for _ in self.rows]
            for item in items:
                for column in range(1, 5):
                    item.setTextAlignment(column, _RIGHT)
            tree.addTopLevelItems(items)
            self._picker_styles = [None] * len(items)
        widths = [0] * 6
        current = None
        for row, (lane, s) in enumerate(self.rows):
            item = tree.topLevelItem(row)
            process = "" if lane[2] is None else f"p{lane[2]}"
            diverged = self._diverged_function(lane)
            marked = diverged and self.diverged(lane) is not None
            texts = (
                # The same figures as the terminal summary of `jitlab watch` (ms to 0.1).
                s.function,
                f"{s.ms_text} ms",
                str(s.executables),
                str(s.recompiles),
                "?" if s.hits is None else str(s.hits),
                f"⚠ {process}" if marked else process,
            )
            for column, text in enumerate(texts):
                item.setText(column, text)
                widths[column] = max(widths[column], len(text))
            item.setData(0, Qt.ItemDataRole.UserRole, lane)
            style = (bool(s.recompiles), diverged, marked)
            if style != self._picker_styles[row]:
                _style_row(item, *style)
                self._picker_styles[row] = style
            if lane == self.picked:
                current = item
        if current is not None and tree.currentItem() is not current:
            tree.setCurrentItem(current)
        elif current is None and tree.currentItem() is not None:
            tree.setCurrentItem(None)
        if widths != self._picker_widths:  # longer or shorter texts: widths to fit them
            self._picker_widths = widths
            for column in range(6):
                tree.resizeColumnToContents(column)
        tree.blockSignals(False)

    def eventFilter(self, watched: Any, event: QEvent) -> bool:
        """A picker row's tip, made when the pointer rests on its function."""
        if event.type() == QEvent.Type.ToolTip and watched is self.picker.viewport():
            position = event.pos()  # type: ignore[attr-defined]
            item = self.picker.itemAt(position)
            if item is not None and self.picker.columnAt(position.x()) == 0:
                row = self.picker.indexOfTopLevelItem(item)
                if 0 <= row < len(self.rows):
                    lane, s = self.rows[row]
                    tip = self._function_tip(s, lane)
                    QToolTip.showText(event.globalPos(), tip, self.picker)  # type: ignore[attr-defined]
                    return True
        # Not super().eventFilter (QObject's returns False): while the window is destroyed
        # its children still send events here, and the half-deleted window would raise.
        return False

    def row_tip(self, row: int) -> str:
        """The tip a picker row shows (tests read this)."""
        lane, s = self.rows[row]
        return self._function_tip(s, lane)

    def _update_banner(self) -> None:
        if not self.divergences:
            self.banner.hide()
            return
        n = len(self.divergences)
        head = (
            self.tr("The processes diverged in %1 place:")
            if n == 1
            else self.tr("The processes diverged in %1 places:")
        ).replace("%1", str(n))
        lines = [f"<b>⚠ {_escape(head)}</b>"]
        lines += [f"• {_escape(d.message)}" for d in self.divergences[:4]]
        if n > 4:
            lines.append(_escape(self.tr("… and %1 more").replace("%1", str(n - 4))))
        self.banner.setText("<br>".join(lines))
        self.banner.setToolTip(
            self.tr(
                "In SPMD code every process should compile the same programs; a collective "
                "may wait on a process that is still compiling. Highlighted rows: the "
                "functions concerned; ⚠: the process that compiled what the others did not."
            )
        )
        self.banner.show()

    def _function_tip(self, s: FunctionSummary, lane: Lane | None = None) -> str:
        lines = [
            f"<b>{_escape(s.function)}</b>",  # escaped here, the others below
            self.tr("defined at %1").replace("%1", s.defined_at or "?"),
        ]
        if lane is not None and lane[2] is not None:
            lines.append(self.tr("in process %1").replace("%1", str(lane[2])))
        if s.changes:
            lines.append(self.tr("What changed between its compiles:"))
            lines += [f"• {change} ×{n}" for change, n in s.changes.most_common(8)]
        elif s.executables == 1:
            lines.append(self.tr("Compiled once: nothing to fix here."))
        if lane is not None and (d := self.diverged(lane)) is not None:
            lines.append("⚠ " + d.message)
        return "<br>".join(_escape(line) if i else line for i, line in enumerate(lines))

    def function_order(self) -> list[str]:
        """Function names as the picker lists them (tests read this)."""
        return [self.picker.topLevelItem(i).text(0) for i in range(self.picker.topLevelItemCount())]

    def lanes(self) -> list[Lane]:
        """(function, defined at, process) as the picker lists them (tests read this)."""
        return [lane for lane, _ in self.rows]

    def _picked(self, item: QTreeWidgetItem | None, _previous: Any = None) -> None:
        if item is not None:
            lane = item.data(0, Qt.ItemDataRole.UserRole)
            self.pick((lane[0], lane[1], lane[2]))

    def pick(self, key: Key | Lane, by_user: bool = True) -> None:
        """Show one function (of one process) in every view (a user's pick stays while the
        file grows). A (function, defined at) key picks its first process."""
        if by_user:
            self.auto_pick = False
        lane = self._lane(key)
        if lane == self.picked:
            return
        self.picked = lane
        self._start_function(lane)
        self._feed()
        if self.loading:  # the signature ledger and shape histogram each in a turn of its own
            self._show_function(light=True)
            self._steps += [
                s for s in (self._show_ledger, self._show_histogram) if s not in self._steps
            ]
        else:
            self._show_function()
        for i in range(self.picker.topLevelItemCount()):
            item = self.picker.topLevelItem(i)
            if tuple(item.data(0, Qt.ItemDataRole.UserRole)) == lane:
                self.picker.blockSignals(True)
                self.picker.setCurrentItem(item)
                self.picker.blockSignals(False)
        self._update_title()

    def pick_name(self, function: str, process: int | None = None) -> None:
        """Pick the first function of that name (in that process, when given)."""
        for lane, _ in self.rows:
            if lane[0] == function and (process is None or lane[2] == process):
                self.pick(lane)
                return
        raise KeyError(function)

    def _start_function(self, key: Lane) -> None:
        self.state.clear(key[0], "pitfall")  # the views forget the last function (cleared)
        self._fed = 0
        self._cards = 0

    def _feed(self) -> None:
        """File the picked function's new lines in the run model (its views follow it)."""
        if self.picked is None:
            return
        calls = self.calls_of(self.picked)
        for call in calls[self._fed :]:
            record = call.record
            if call.events_only:
                # Seen through compile events only: no call count, no card. Number them here.
                record = record._replace(index=self._cards, card=self._cards)
            if record.kind.compiled:
                self._cards += 1
            self.state.call_finished(record)
        self._fed = len(calls)

    def _show_function(self, light: bool = False) -> None:
        key = self.picked
        if key is None:
            return
        summary = next((s for lane, s in self.rows if lane == key), None)
        self.kitchen.hits = summary.hits if summary else None
        self.details.setText(self._function_tip(summary, key) if summary else "")
        self.state.notify()
        if light:
            return
        self._show_ledger()
        self._show_histogram()

    def _show_ledger(self) -> None:
        if self.picked is not None:
            self.ledger.set_calls(self.calls_of(self.picked))

    def _show_histogram(self) -> None:
        if self.picked is not None:
            signatures = compiled_signatures(self.calls_of(self.picked))
            self.histogram.set_signatures(self.picked[0], signatures)

    # -- scripts (jitlab watch --scripts) ---------------------------------------------------
    def script_of(self, card: CardView) -> ScriptOf:
        """The script recorded for a kitchen card of the picked function, or why there is
        none (a recording made without ``--scripts``, an events-only function, a failure)."""
        lane = self.picked
        function, index = str(card.key[0]), int(card.key[1])
        if lane is None:
            return ScriptOf(function, index, card.created_by, None, self._no_scripts())
        recording = self._source_of(lane).recording
        kept = recording.scripts.get(((lane[0], lane[1]), index))
        if kept is not None and (kept.created_by is None or kept.created_by == card.created_by):
            return ScriptOf(function, index, card.created_by, kept.script, kept.why)
        calls = self.calls_of(lane)
        if calls and all(call.events_only for call in calls):
            why = self.tr(
                "This function was jitted before the watch began: jitlab saw only JAX's "
                "compile events, so it has no script."
            )
        elif recording.start is None or recording.start.scripts is None:
            why = self._no_scripts()
        else:
            why = self.tr("No script was recorded for this compile.")
        return ScriptOf(function, index, card.created_by, None, why)

    def _no_scripts(self) -> str:
        return self.tr(
            "This recording keeps no scripts. Record the program with `jitlab watch "
            "--scripts` (figures) or `jitlab watch --script-texts` (jaxpr, StableHLO and HLO "
            "too) to read them here."
        )

    def open_script(self, card: CardView) -> ScriptWindow:
        """Open (or raise) the window of a kitchen card's recorded script."""
        key = (self.picked or ("", None, None), int(card.key[1]), int(card.created_by))
        window = self.script_windows.get(key)
        if window is None:
            window = ScriptWindow(card, self)
            window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            window.destroyed.connect(lambda _=None, k=key: self.script_windows.pop(k, None))
            window.view.compare_requested.connect(
                lambda other, c=card: self.compare_scripts(c, other)
            )
            self.script_windows[key] = window
        made = self.script_of(card)
        window.view.set_script(made, card.number)
        cards = sorted(self.state.cards.values(), key=lambda c: c.number)
        with_scripts = [c for c in cards if self.script_of(c).script is not None]
        window.view.set_others(with_scripts if made.script is not None else [], card)
        window.show()
        window.raise_()
        window.activateWindow()
        return window

    def compare_scripts(self, a: CardView, b: CardView) -> ScriptDiffWindow:
        """Two recorded scripts side by side (made here: they are plain data)."""
        before, after = self.script_of(a), self.script_of(b)
        diff = None
        if before.script is not None and after.script is not None:
            diff = compare(before.script, after.script)
        window = ScriptDiffWindow(a, b, self)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        window.set_compared(ScriptsCompared(before, after, diff))
        self.diff_windows.append(window)
        window.destroyed.connect(lambda _=None, w=window: self._forget_diff(w))
        window.show()
        return window

    def _forget_diff(self, window: ScriptDiffWindow) -> None:
        if window in self.diff_windows:
            self.diff_windows.remove(window)

    # -- text -----------------------------------------------------------------------------
    def _files_name(self) -> str:
        if not self.multi:
            return self.path.name
        return (
            self.tr("%1 processes (%2 …)")
            .replace("%1", str(len(self.sources)))
            .replace("%2", self.path.name)
        )

    def _update_title(self) -> None:
        name = ""
        if self.picked:
            name = f" — {self.picked[0]}"
            if self.picked[2] is not None:
                name += f" (p{self.picked[2]})"
        title = self.tr("jitlab — recording %1").replace("%1", self._files_name())
        self.setWindowTitle(title + name)

    def _update_info(self) -> None:
        start = self.recording.start
        argv = " ".join(start.argv) if start else ""
        parts = [f"<b>{_escape(self._files_name())}</b>"]
        if argv:
            parts.append(self.tr("program: %1").replace("%1", _escape(argv)))
        if start is not None and start.jax:
            parts.append(self.tr("JAX %1").replace("%1", _escape(start.jax)))
        compiles = sum(s.executables for s in self.summaries)
        lost = sum(s.compile_ms for s in self.summaries)
        parts.append(
            self.tr("%1 functions, %2 compiles, %3 spent compiling")
            .replace("%1", str(len(self.summaries)))
            .replace("%2", str(compiles))
            .replace("%3", format_ms(lost))
        )
        if self.multi:
            hosts = {
                s.recording.start.host
                for s in self.sources
                if s.recording.start is not None and s.recording.start.host
            }
            parts.append(
                self.tr("one lane per process and function; hosts: %1").replace(
                    "%1", str(len(hosts) or "?")
                )
            )
        self.info.setText("<br>".join(parts))
        self.info.setToolTip(plain.tip("\n".join(str(s.path.resolve()) for s in self.sources)))

    def status_text(self) -> str:
        """Where the file stands: still being written, finished, cut off (tests read this)."""
        missing = [s for s in self.sources if s.missing]
        if missing:
            return self.tr("The file %1 does not exist (yet): waiting for it.").replace(
                "%1", ", ".join(str(s.path) for s in missing)
            )
        refused = [s for s in self.sources if s.refused]
        if refused:
            return self.tr(
                "%1 is not a recording file (a named pipe, a device or a socket): only "
                "regular files are read."
            ).replace("%1", ", ".join(str(s.path) for s in refused))
        ended = all(s.recording.ended for s in self.sources)
        if self.loading:
            read = sum(s.offset for s in self.sources)
            with_sizes = []
            for s in self.sources:
                try:
                    with_sizes.append(os.stat(s.path).st_size)
                except OSError:
                    with_sizes.append(s.offset)
            total = max(sum(with_sizes), 1)
            state = self.tr("Reading the file: %1% so far…").replace(
                "%1", str(int(100 * read / total))
            )
        elif ended:
            state = self.tr("The program finished; the recording is complete.")
        elif self.following:
            state = self.tr("Following: new compiles appear as the program writes them.")
        else:  # an abrupt end is said, as `jitlab summary` says it, never passed off as complete
            cut = ", ".join(str(s.path) for s in self.sources if not s.recording.ended)
            state = self.tr(
                "%1 has no end line: the program was killed or ended with os._exit (or it is "
                "still running); its counts are those written before."
            ).replace("%1", cut)
        extra = []
        if any(s.recording.partial_line for s in self.sources):
            extra.append(
                self.tr(
                    "The last line is incomplete (still being written, or the program was "
                    "killed); it is skipped until it ends."
                )
            )
        n = sum(s.recording.bad_lines for s in self.sources)
        if n:
            # Qt's plural forms (%n): one form per count in each catalogue. English has no
            # catalogue, so its two forms are two source strings.
            extra.append(
                self.tr("%n unreadable line skipped.", "", n)
                if n == 1
                else self.tr("%n unreadable lines skipped.", "", n)
            )
        long_lines = sum(s.recording.long_lines for s in self.sources)
        if long_lines:
            extra.append(
                self.tr("Lines longer than %1 MiB, not read: %2.")
                .replace("%1", str(MAX_LINE_BYTES >> 20))
                .replace("%2", str(long_lines))
            )
        return " ".join([state, *extra])

    def _update_status(self) -> None:
        if hasattr(self, "status_label"):
            self.status_label.setText(self.status_text())

    def set_language(self, lang: str) -> None:
        owner = self.parentWidget()
        if owner is not None and hasattr(owner, "set_language"):
            owner.set_language(lang)  # the main window keeps its menu and settings in step
        else:
            i18n.set_language(lang)
            if self.settings is not None:
                self.settings.setValue("language", i18n.language())
        self.lang_actions[i18n.language()].setChecked(True)

    def retranslate(self) -> None:
        self.picker.setHeaderLabels(
            [
                self.tr("function"),
                self.tr("time lost"),
                self.tr("compiles"),
                self.tr("recompiles"),
                self.tr("cache hits"),
            ]
        )
        self.picker.headerItem().setText(5, self.tr("process"))
        header = self.picker.headerItem()
        tips = (
            self.tr("The jitted function and, on hover, where it is defined."),
            self.tr("Trace + lower + compile time spent on this function."),
            self.tr("Programs compiled for it (first compile, recompiles, persistent loads)."),
            self.tr("Compiles after the first: each one is time lost."),
            self.tr("Calls served from a compiled program; ? when they could not be counted."),
        )
        for column, tip in enumerate(tips):
            header.setToolTip(column, tip)
        header.setToolTip(
            5, self.tr("The process of the job that wrote the recording; ⚠: it diverged.")
        )
        self.picker.setToolTip(
            self.tr("Functions sorted by time lost to compiling: fix the first one first.")
        )
        self.picker_label.setText(self.tr("Functions, most time lost first:"))
        self.picker_label.setToolTip(self.picker.toolTip())
        self.details.setToolTip(self.tr("The picked function: where it is defined, what changed."))
        self.follow_box.setText(self.tr("Follow the file as the program writes it"))
        self.follow_box.setToolTip(
            self.tr("Read new lines as they are written, for a program that is still running.")
        )
        for i, (text, tip) in enumerate(
            (
                (
                    self.tr("Signature ledger"),
                    self.tr("Every signature the function compiled for; changes highlighted."),
                ),
                (
                    self.tr("Shape histogram"),
                    self.tr("The sizes a changing dimension took, and buckets that cap them."),
                ),
                (self.tr("Compile log"), self.tr("One row per compile of the function.")),
            )
        ):
            self.tabs.setTabText(i, text)
            self.tabs.setTabToolTip(i, tip)
        self.file_menu.setTitle(self.tr("&File"))
        self.act_open.setText(self.tr("Open recording…"))
        self.act_open.setToolTip(self.tr("Open a recording made by jitlab watch."))
        self.act_reload.setText(self.tr("Read again from the start"))
        self.act_follow.setText(self.tr("Follow the file"))
        self.act_close.setText(self.tr("Close"))
        self.lang_menu.setTitle(self.tr("&Language"))
        self._update_title()
        self._update_info()
        self._update_status()
        if self.summaries:
            self._fill_picker()
        self._update_banner()
        if self.picked is not None:
            self._show_function()
        if hasattr(self, "lang_actions"):  # a switch made elsewhere (the main window's menu)
            self.lang_actions[i18n.language()].setChecked(True)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.timer.stop()
        geometry.remember(self, self.settings, GEOMETRY_KEY)
        if self in _windows:
            _windows.remove(self)
        super().closeEvent(event)


_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_ROLES = (Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ForegroundRole)


def _style_row(item: QTreeWidgetItem, recompiles: bool, diverged: bool, marked: bool) -> None:
    """A picker row's colours and fonts: recompiles in their colour; a function the
    processes diverged on highlighted, in bold where this process is the odd one."""
    for column in range(6):  # back to the defaults first: the item showed another row
        for role in _ROLES:
            item.setData(column, role, None)
    if recompiles:
        item.setForeground(3, QColor(KIND_COLORS[CallKind.RECOMPILE]))
    if diverged:
        warn = QColor(DIVERGED_BACKGROUND)
        for column in range(6):
            item.setBackground(column, warn)
            item.setForeground(column, QColor("#3a2600"))
    font = item.font(5)
    font.setBold(marked)
    item.setFont(5, font)
    item.setFont(0, font)


_escape = plain.escape  # a recorded string in rich text, shown as written


def open_recording_window(
    path: str | Path | Sequence[str | Path],
    follow: bool = True,
    parent: QWidget | None = None,
    settings: QSettings | None = None,
) -> RecordingWindow:
    """Open a recording (or several: one job's processes) in a new window of a running app
    (File → Open, tests)."""
    window = RecordingWindow(path, follow, settings, parent)
    if parent is None:
        _windows.append(window)
    window.show()
    return window


def choose_recording(
    parent: QWidget | None = None,
    owner: QWidget | bool | None = True,
    settings: QSettings | None = None,
) -> RecordingWindow | None:
    """Ask for a recording file (or several processes' files) and open it; None when the
    user cancelled.

    The dialog sits on ``parent``; the new window belongs to ``owner`` (``True``: to
    ``parent``, so it closes with the main window).
    """
    caption = QApplication.translate("RecordingWindow", "Open a jitlab recording")
    filters = QApplication.translate(
        "RecordingWindow", "Recordings (*.jsonl *.json);;All files (*)"
    )
    paths, _ = QFileDialog.getOpenFileNames(parent, caption, "", filters)
    if not paths:
        return None
    if owner is True:
        owner = parent
    if settings is None:
        settings = getattr(owner or parent, "settings", None)
    return open_recording_window(paths, True, owner or None, settings)
