"""A recording of a real program (``jitlab watch``), per function, in the lab's own views.

Open a JSON-lines recording and pick a function — the list is sorted by time lost to
compiling, so the first one to fix comes first. The kitchen, the chart and the call log show
that function's compiles; the signature ledger lists every signature it compiled for, the
changed fields highlighted; the shape histogram suggests buckets for a dimension that keeps
changing size. A file that is still being written is followed: new lines show up as the
program runs (a file watcher, with a poll as a fallback; a half-written last line waits for
its end).

Entry points: :func:`open_recording` (its own event loop, for ``jitlab open``),
:func:`open_recording_window` and :func:`choose_recording` (inside a running app).
"""

from __future__ import annotations

import os
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
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from jitlab.core.recording import (
    FunctionSummary,
    Key,
    RecordedCall,
    Recording,
    read_recording,
    summarize,
)
from jitlab.core.records import CallKind
from jitlab.gui import geometry, i18n
from jitlab.gui.chart import ChartView
from jitlab.gui.kitchen import KitchenPanel
from jitlab.gui.ledger_view import LedgerView
from jitlab.gui.log_view import LogView
from jitlab.gui.model import RunState
from jitlab.gui.shape_histogram import ShapeHistogram, signature_from_changes
from jitlab.gui.style import KIND_COLORS, KIND_ORDER, format_ms, kind_name

GEOMETRY_KEY = "recordingGeometry"
POLL_MS = 300  # fallback poll while following (file watchers miss appends on some systems)
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


class RecordingWindow(QMainWindow):
    """One recording, per function; follows the file while ``follow`` is on."""

    updated = Signal()  # new lines were read and the views show them

    def __init__(
        self,
        path: str | Path,
        follow: bool = True,
        settings: QSettings | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("recordingWindow")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.path = Path(path)
        self.settings = settings
        self.recording = Recording()
        self.offset = 0
        self.missing = False
        self.summaries: list[FunctionSummary] = []
        self.picked: Key | None = None
        self.auto_pick = True
        self._calls: dict[Key, list[RecordedCall]] = {}
        self._indexed = 0
        self._fed = 0
        self._cards = 0
        self._last_size = -1
        self.state = RunState()
        self._build()
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(lambda _path: self.poll())
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        geometry.place(self, settings, GEOMETRY_KEY, (1400, 900))
        self.retranslate()
        self.poll()
        self.set_follow(follow)

    # -- construction ---------------------------------------------------------------------
    def _build(self) -> None:
        self.info = QLabel(self)
        self.info.setObjectName("recordingInfo")
        self.info.setWordWrap(True)
        self.info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.follow_box = QCheckBox(self)
        self.follow_box.setObjectName("followFile")
        self.follow_box.toggled.connect(self.set_follow)
        self.picker_label = QLabel(self)
        self.picker = QTreeWidget(self)
        self.picker.setObjectName("functionPicker")
        self.picker.setRootIsDecorated(False)
        self.picker.setColumnCount(5)
        self.picker.setUniformRowHeights(True)
        self.picker.currentItemChanged.connect(self._picked)
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.info)
        left_layout.addWidget(self.follow_box)
        left_layout.addWidget(self.picker_label)
        left_layout.addWidget(self.picker, 1)
        self.details = QLabel(self)
        self.details.setObjectName("functionDetails")
        self.details.setWordWrap(True)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        left_layout.addWidget(self.details, 1)
        left.setMinimumWidth(340)

        self.kitchen = RecordingKitchen(self.state, self)
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
        if self.path.exists() and str(self.path) not in self.watcher.files():
            self.watcher.addPath(str(self.path))  # re-added when the file was replaced

    def reload(self) -> None:
        """Read the file again from its first line."""
        self.recording = Recording()
        self.offset = 0
        self._last_size = -1
        self._calls = {}
        self._indexed = 0
        if self.picked is not None:
            self._start_function(self.picked)
        self.poll()

    def poll(self) -> bool:
        """Read the lines written since the last look; True when something new showed up."""
        try:
            size = os.stat(self.path).st_size
        except OSError:
            if not self.missing:
                self.missing = True
                self._update_status()
            return False
        if self.missing:
            self.missing = False
            self._update_status()
        if self.following:
            self._watch_file()
        if size < self.offset:  # the program started again and rewrote the file
            self.reload()
            return True
        if size == self._last_size:
            return False
        self._last_size = size
        start = self.recording.start
        before = (len(self.recording.calls), dict(self.recording.hits), self.recording.ended)
        try:
            self.recording, self.offset = read_recording(self.path, self.offset, self.recording)
        except OSError:
            return False
        if start is not None and self.recording.start is not start:
            self.reload()  # a new run rewrote the file while we were away
            return True
        after = (len(self.recording.calls), dict(self.recording.hits), self.recording.ended)
        if after != before or self.recording.partial_line:
            self._refresh()
            self.updated.emit()
            return True
        self._update_status()
        return False

    # -- content --------------------------------------------------------------------------
    def _index_calls(self) -> None:
        for call in self.recording.calls[self._indexed :]:
            self._calls.setdefault(call.key, []).append(call)
        self._indexed = len(self.recording.calls)

    def calls_of(self, key: Key) -> list[RecordedCall]:
        return self._calls.get(key, [])

    def _refresh(self) -> None:
        self._index_calls()
        self.summaries = summarize(self.recording)
        self._fill_picker()
        top = (self.summaries[0].function, self.summaries[0].defined_at) if self.summaries else None
        if top is not None and self.auto_pick and self.picked != top:
            self.pick(top, by_user=False)  # until the user picks, show the costliest function
        elif self.picked is not None:
            self._feed()
            self._show_function()
        self._update_info()
        self._update_status()

    def _fill_picker(self) -> None:
        tree = self.picker
        tree.blockSignals(True)
        tree.clear()
        for s in self.summaries:
            hits = "?" if s.hits is None else str(s.hits)
            item = QTreeWidgetItem(
                tree,
                # The same figures as the terminal summary of `jitlab watch` (ms to 0.1).
                [s.function, f"{s.ms_text} ms", str(s.executables), str(s.recompiles), hits],
            )
            key = (s.function, s.defined_at)
            item.setData(0, Qt.ItemDataRole.UserRole, key)
            for column in range(1, 5):
                item.setTextAlignment(
                    column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                )
            item.setToolTip(0, self._function_tip(s))
            if s.recompiles:
                item.setForeground(3, QColor(KIND_COLORS[CallKind.RECOMPILE]))
            if key == self.picked:
                tree.setCurrentItem(item)
        for column in range(5):
            tree.resizeColumnToContents(column)
        tree.blockSignals(False)

    def _function_tip(self, s: FunctionSummary) -> str:
        lines = [
            f"<b>{s.function}</b>",
            self.tr("defined at %1").replace("%1", s.defined_at or "?"),
        ]
        if s.changes:
            lines.append(self.tr("What changed between its compiles:"))
            lines += [f"• {change} ×{n}" for change, n in s.changes.most_common(8)]
        elif s.executables == 1:
            lines.append(self.tr("Compiled once: nothing to fix here."))
        return "<br>".join(_escape(line) if i else line for i, line in enumerate(lines))

    def function_order(self) -> list[str]:
        """Function names as the picker lists them (tests read this)."""
        return [self.picker.topLevelItem(i).text(0) for i in range(self.picker.topLevelItemCount())]

    def _picked(self, item: QTreeWidgetItem | None, _previous: Any = None) -> None:
        if item is not None:
            key = item.data(0, Qt.ItemDataRole.UserRole)
            self.pick((key[0], key[1]))

    def pick(self, key: Key, by_user: bool = True) -> None:
        """Show one function in every view (a user's pick stays while the file grows)."""
        if by_user:
            self.auto_pick = False
        if key == self.picked:
            return
        self.picked = key
        self._start_function(key)
        self._feed()
        self._show_function()
        for i in range(self.picker.topLevelItemCount()):
            item = self.picker.topLevelItem(i)
            if tuple(item.data(0, Qt.ItemDataRole.UserRole)) == key:
                self.picker.blockSignals(True)
                self.picker.setCurrentItem(item)
                self.picker.blockSignals(False)
        self._update_title()

    def pick_name(self, function: str) -> None:
        """Pick the first function of that name (a convenience for callers and tests)."""
        for s in self.summaries:
            if s.function == function:
                self.pick((s.function, s.defined_at))
                return
        raise KeyError(function)

    def _start_function(self, key: Key) -> None:
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

    def _show_function(self) -> None:
        key = self.picked
        if key is None:
            return
        calls = self.calls_of(key)
        summary = next((s for s in self.summaries if (s.function, s.defined_at) == key), None)
        self.kitchen.hits = summary.hits if summary else None
        self.details.setText(self._function_tip(summary) if summary else "")
        self.state.notify()
        self.ledger.set_calls(calls)
        signatures = []
        for call in calls:
            record = call.record
            if not record.kind.compiled:
                continue
            if record.signature is not None:
                signatures.append(record.signature)
            else:  # seen through compile events only: JAX's reason names the new shapes
                sig = signature_from_changes(record.reason.items if record.reason else ())
                if sig is not None:
                    signatures.append(sig)
        self.histogram.set_signatures(key[0], signatures)

    # -- text -----------------------------------------------------------------------------
    def _update_title(self) -> None:
        name = f" — {self.picked[0]}" if self.picked else ""
        self.setWindowTitle(self.tr("jitlab — recording %1").replace("%1", self.path.name) + name)

    def _update_info(self) -> None:
        start = self.recording.start
        argv = " ".join(start.argv) if start else ""
        parts = [f"<b>{_escape(self.path.name)}</b>"]
        if argv:
            parts.append(self.tr("program: %1").replace("%1", _escape(argv)))
        if start is not None and start.jax:
            parts.append(self.tr("JAX %1").replace("%1", start.jax))
        compiles = sum(s.executables for s in self.summaries)
        lost = sum(s.compile_ms for s in self.summaries)
        parts.append(
            self.tr("%1 functions, %2 compiles, %3 spent compiling")
            .replace("%1", str(len(self.summaries)))
            .replace("%2", str(compiles))
            .replace("%3", format_ms(lost))
        )
        self.info.setText("<br>".join(parts))
        self.info.setToolTip(str(self.path.resolve()))

    def status_text(self) -> str:
        """Where the file stands: still being written, finished, cut off (tests read this)."""
        if self.missing:
            return self.tr("The file %1 does not exist (yet): waiting for it.").replace(
                "%1", str(self.path)
            )
        rec = self.recording
        if rec.ended:
            state = self.tr("The program finished; the recording is complete.")
        elif self.following:
            state = self.tr("Following: new compiles appear as the program writes them.")
        else:
            state = self.tr("Not following: the recording has no end line yet.")
        extra = []
        if rec.partial_line:
            extra.append(
                self.tr(
                    "The last line is incomplete (still being written, or the program was "
                    "killed); it is skipped until it ends."
                )
            )
        if rec.bad_lines:
            # Qt's plural forms (%n): one form per count in each catalogue. English has no
            # catalogue, so its two forms are two source strings.
            n = rec.bad_lines
            extra.append(
                self.tr("%n unreadable line skipped.", "", n)
                if n == 1
                else self.tr("%n unreadable lines skipped.", "", n)
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
        if self.picked is not None:
            self._show_function()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.lang_actions[i18n.language()].setChecked(True)
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.timer.stop()
        geometry.remember(self, self.settings, GEOMETRY_KEY)
        if self in _windows:
            _windows.remove(self)
        super().closeEvent(event)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def open_recording_window(
    path: str | Path,
    follow: bool = True,
    parent: QWidget | None = None,
    settings: QSettings | None = None,
) -> RecordingWindow:
    """Open a recording in a new window of a running app (File → Open, tests)."""
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
    """Ask for a recording file and open it; None when the user cancelled.

    The dialog sits on ``parent``; the new window belongs to ``owner`` (``True``: to
    ``parent``, so it closes with the main window).
    """
    caption = QApplication.translate("RecordingWindow", "Open a jitlab recording")
    filters = QApplication.translate(
        "RecordingWindow", "Recordings (*.jsonl *.json);;All files (*)"
    )
    path, _ = QFileDialog.getOpenFileName(parent, caption, "", filters)
    if not path:
        return None
    if owner is True:
        owner = parent
    if settings is None:
        settings = getattr(owner or parent, "settings", None)
    return open_recording_window(path, True, owner or None, settings)


def open_recording(path: str, follow: bool = True, language: str | None = None) -> int:
    """``jitlab open FILE``: the recording window and its event loop; returns the exit status."""
    from jitlab.gui.app import application, close_on_signals, make_settings

    app = application()
    settings = make_settings()
    lang = language or str(settings.value("language", "") or "") or i18n.system_language()
    i18n.set_language(lang if lang in i18n.LANGUAGES else "en")
    window = open_recording_window(path, follow, None, settings)  # kept alive by _windows
    close_on_signals(window)  # Ctrl+C and SIGTERM close it like the close button
    status = int(app.exec())
    settings.sync()
    return status
