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
The reading, following and merging is :class:`jitlab.recordings.follower.Follower` (no Qt);
this window drives it on its timer and holds the views.
With ``jitlab watch --scripts``, clicking a card in the kitchen opens the script recorded for
that compile.

Entry points: :func:`jitlab.gui.app.open_recording` (its own event loop, for ``jitlab open``),
:func:`open_recording_window` and :func:`choose_recording` (inside a running app).

Over 500 lines: the turns of the event loop (read a piece, refresh, the slow views later) and
the words tr() keeps in this class's context. The left column is :mod:`.picker`, the texts
rendered from the follower :mod:`.texts`, the recorded scripts :mod:`.scripts`.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QFileSystemWatcher, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QSplitter,
    QTabWidget,
    QTreeWidgetItem,
    QWidget,
)

from jitlab.gui import geometry, i18n, plain
from jitlab.gui.i18n import Retranslating
from jitlab.gui.recording import texts
from jitlab.gui.recording.panels import RecordingChart, RecordingKitchen
from jitlab.gui.recording.picker import DIVERGED_BACKGROUND, FunctionColumn
from jitlab.gui.recording.scripts import RecordedScripts
from jitlab.gui.recording.sites import CallSitesView, ExecutablesView
from jitlab.gui.scripts.window import ScriptWindow
from jitlab.gui.views.ledger_view import LedgerView
from jitlab.gui.views.log_view import LogView
from jitlab.gui.views.model import CardView, RunState
from jitlab.gui.views.shape_histogram import ShapeHistogram
from jitlab.recordings.follower import DivergenceSearch, Follower, Lane, Source
from jitlab.recordings.ledger import compiled_signatures
from jitlab.recordings.processes import Divergence
from jitlab.recordings.reader import Recording
from jitlab.recordings.summary import FunctionSummary
from jitlab.records.lines import Key, RecordedCall
from jitlab.records.site_costs import listed_sites

__all__ = [
    "DIVERGED_BACKGROUND",
    "Lane",
    "RecordingWindow",
    "choose_recording",
    "open_recording_window",
]

GEOMETRY_KEY = "recordingGeometry"
KITCHEN_MIN_W = 300  # the kitchen's picture at 1024 px: the chart beside it keeps as much
POLL_MS = 300  # fallback poll while following (file watchers miss appends on some systems)
REFRESH_MS = 150.0  # while loading, refresh the views at most this often (or 4x their cost)

_windows: list[RecordingWindow] = []  # parentless windows stay alive until closed


class RecordingWindow(Retranslating, QMainWindow):
    """One recording, per function; follows the file while ``follow`` is on."""

    updated = Signal()  # new lines were read and the views show them
    lang_menu: QMenu  # i18n.add_language_menu makes them
    lang_actions: dict[str, QAction]

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
        self.follower = Follower(paths, i18n.language())  # its elisions in the window's words
        self.multi = self.follower.multi  # one job's processes, side by side
        self.settings = settings
        self.picked: Lane | None = None
        self.auto_pick = True
        self._fed = 0
        self._cards = 0
        self._refreshed_at = 0.0
        self._refresh_ms = 0.0  # what the last refresh cost: refreshes while loading are spaced
        # What the next turns of the event loop do before reading on: a refresh, or the
        # parts of the last one of a long file.
        self._steps: list[Callable[[], object]] = []
        self._in_pieces = False  # reading a long file a piece at a time, views refreshed light
        self.state = RunState()
        me = weakref.ref(self)  # held weakly: see RecordedScripts
        self.scripts = RecordedScripts(
            self,
            self.follower,
            lambda: window.picked if (window := me()) is not None else None,
            lambda: window.state.cards.values() if (window := me()) is not None else (),
        )
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
        # The functions, the files' facts and the picked function's, on the left.
        self.column = left = FunctionColumn(self.multi, self.row_tip, self)
        self.info, self.follow_box, self.banner = left.info, left.follow_box, left.banner
        self.picker, self.details, self.diagnoses = left.picker, left.details, left.diagnoses
        self.follow_box.toggled.connect(self.set_follow)
        self.picker.currentItemChanged.connect(self._picked)
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
        self.sites = CallSitesView(self)  # the whole recording's, not the picked function's
        self.sites.site_picked.connect(lambda lane: self.pick(lane if self.multi else lane[:2]))
        self.executables = ExecutablesView(self)
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("recordingTabs")
        for widget in (self.ledger, self.histogram, self.log, self.sites, self.executables):
            self.tabs.addTab(widget, "")
        self.top_split = QSplitter(Qt.Orientation.Horizontal, self)
        self.top_split.addWidget(self.kitchen)
        self.top_split.addWidget(self.chart)
        self.top_split.setSizes([560, 540])
        # On a small screen the chart (a real program's compiles over time) keeps its width:
        # the kitchen's picture shrinks first (the lab's 420 px floor is for its lessons).
        self.kitchen.canvas.setMinimumWidth(KITCHEN_MIN_W)
        self.top_split.setStretchFactor(0, 1)
        self.top_split.setStretchFactor(1, 1)
        self.top_split.setChildrenCollapsible(False)
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

    # -- following the files -------------------------------------------------------------
    @property
    def sources(self) -> list[Source]:
        return self.follower.sources

    @property
    def recording(self) -> Recording:
        """The first file's recording (the only one, unless it shows several processes)."""
        return self.follower.recording

    @property
    def offset(self) -> int:
        return self.follower.sources[0].offset

    @property
    def rows(self) -> list[tuple[Lane, FunctionSummary]]:
        """The picker's rows, in order: a lane and its summary each."""
        return self.follower.rows

    @property
    def divergences(self) -> tuple[Divergence, ...]:
        return self.follower.divergences

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
        self.follower.reset()
        if self.picked is not None:
            self._start_function(self.picked)
        self.poll()

    def poll(self) -> bool:
        """Read the lines written since the last look; True when something new showed up.

        A long file is read a piece at a time, for about a few milliseconds per turn of the
        event loop (:meth:`Follower.read`): the rest follows on the next turns
        (:attr:`loading`). Meanwhile the views are refreshed now and then, each refresh a
        turn of its own, so that no turn keeps the window from answering for long.
        """
        if self._steps:  # a refresh, or part of the last one, asked for by the last turn
            self._more.start()  # then the reading goes on (or ends: nothing more to read)
            self._steps.pop(0)()
            return True
        read = self.follower.read()
        if self.following:
            self._watch_file()
        if read.reload:  # a new run rewrote a file
            self.reload()
            return True
        if read.more:
            self._more.start()
        if not read.changed:
            self._update_status()
            return False
        # While loading, refresh at most every few times what a refresh costs, in a turn of
        # its own; the first view at once.
        now = time.perf_counter()
        spaced = (now - self._refreshed_at) * 1e3 >= max(REFRESH_MS, 4 * self._refresh_ms)
        if read.more and self._refreshed_at:
            self._in_pieces = True
            if spaced and not self._steps:
                self._steps.append(lambda: self._refresh_timed(light=True))
            self._update_status()
        elif not read.more and self._in_pieces:
            # The end of a long file: the signature ledger and the shape histogram (which
            # waited) each in a turn of their own.
            self._in_pieces = False
            self._refresh_timed(light=True)
            self._steps += [self._show_ledger, self._show_histogram, self.updated.emit]
            self._more.start()
        else:
            self._refresh_timed(light=read.more)
        return True

    def _refresh_timed(self, light: bool) -> None:
        start = time.perf_counter()
        self._refresh(light=light)
        self._refreshed_at = time.perf_counter()
        self._refresh_ms = (self._refreshed_at - start) * 1e3
        self.updated.emit()

    # -- content --------------------------------------------------------------------------
    def calls_of(self, key: Key | Lane) -> list[RecordedCall]:
        return self.follower.calls_of(key)

    def diverged(self, lane: Lane) -> Divergence | None:
        """The divergence a lane is part of, else None."""
        return self.follower.diverged(lane)

    def _refresh(self, light: bool = False) -> None:
        """Bring every view up to the lines read. ``light`` (while a long file is still
        being read): the signature ledger and shape histogram wait for the end."""
        search = self.follower.update(loading=self.loading)
        if search is not None:  # a long job's divergences: a slice per turn
            self._steps.append(lambda: self._search(search))
            self._more.start()
        self._fill_picker()
        self._update_banner()
        self._show_sites()
        top = self.rows[0][0] if self.rows else None
        if top is not None and self.auto_pick and self.picked != top:
            self.pick(top, by_user=False)  # until the user picks, show the costliest function
        elif self.picked is not None:
            self._feed()
            self._show_function(light)
        self._update_info()
        self._update_status()

    def _search(self, search: DivergenceSearch) -> None:
        """A slice of the search for a long job's divergences (the files are not read
        meanwhile: poll runs queued steps first); the next slice on the next turn."""
        if not search.step():
            self._steps.insert(0, lambda: self._search(search))
        elif search.found:  # not stale: the rows and the banner show them
            self._fill_picker()
            self._update_banner()
            self.updated.emit()

    def _fill_picker(self) -> None:
        self.picker.fill(
            self.rows, self.picked, self.follower.diverged_function, self.follower.diverged
        )

    def row_tip(self, row: int) -> str:
        """The tip a picker row shows (tests read this)."""
        lane, s = self.rows[row]
        return texts.function_tip(s, lane, self.diverged(lane))

    def _update_banner(self) -> None:
        self.banner.show_divergences(self.divergences)

    def function_order(self) -> list[str]:
        """Function names as the picker lists them (tests read this)."""
        return self.picker.names()

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
        lane = self.follower.lane(key)
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
        self.picker.select(lane)
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
        tip = texts.function_tip(summary, key, self.diverged(key)) if summary else ""
        self.details.setText(tip)
        self.diagnoses.show_diagnoses(self.follower.diagnoses_of(key))
        self.state.notify()
        if light:
            return
        self._show_ledger()
        self._show_histogram()

    def _show_ledger(self) -> None:
        if self.picked is not None:
            self.ledger.set_calls(self.calls_of(self.picked))
            self.executables.set_calls(self.calls_of(self.picked))

    def _show_sites(self) -> None:
        several = len(self.sources) > 1
        self.sites.set_sites(
            [
                (self.follower.process_of(s) if several else None, listed_sites(s.recording.calls))
                for s in self.sources
            ]
        )

    def _show_histogram(self) -> None:
        if self.picked is not None:
            signatures = compiled_signatures(self.calls_of(self.picked))
            self.histogram.set_signatures(self.picked[0], signatures)

    # -- scripts (jitlab watch --scripts) ---------------------------------------------------
    def open_script(self, card: CardView) -> ScriptWindow:
        """Open (or raise) the window of a kitchen card's recorded script."""
        return self.scripts.open(card)

    # -- text -----------------------------------------------------------------------------
    def _update_title(self) -> None:
        self.setWindowTitle(texts.title(self.follower, self.picked))

    def _update_info(self) -> None:
        self.info.setText(texts.info(self.follower, [s for _, s in self.rows]))
        self.info.setToolTip(plain.tip("\n".join(str(s.path.resolve()) for s in self.sources)))

    def status_text(self) -> str:
        """Where the file stands: still being written, finished, cut off (tests read this)."""
        n = self.follower.bad_lines
        # Qt's plural forms (%n): one form per count in each catalogue. English has no
        # catalogue, so its two forms are two source strings.
        skipped = ""
        if n:
            skipped = (
                self.tr("%n unreadable line skipped.", "", n)
                if n == 1
                else self.tr("%n unreadable lines skipped.", "", n)
            )
        return texts.status(self.follower, self.loading, self.following, skipped)

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
        self.column.retranslate()
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
                (
                    self.tr("Call sites"),
                    self.tr("The lines of the program whose calls compiled, costliest first."),
                ),
                (
                    self.tr("Live executables"),
                    self.tr("The function's executables alive after each compile, over time."),
                ),
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
        if self.rows:
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
