"""Controls built from a scenario's parameter specs, plus the variant switch and transport.

Nothing here knows which scenario it drives: every control comes from a ``Param`` (its type,
range, log scale, labels and help in both languages).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)
from superqt import QLabeledDoubleSlider, QLabeledSlider

from jitlab.gui.i18n import Retranslating, language

if TYPE_CHECKING:
    from jitlab.gui.views.model import Change, RunState
    from jitlab.lab.spec import Param, ParamValue, ParamValues, Variant


def log_positions(minimum: int, maximum: int) -> list[int]:
    """Slider stops for a log-scale integer: every small value, then 8 per doubling.

    Powers of two are always stops, so 8, 16, 32… can be hit exactly by dragging.
    """
    minimum = max(1, int(minimum))
    values = {v for v in range(minimum, min(maximum, 16) + 1)}
    k = 0.0
    while 2**k <= maximum:
        v = round(2**k)
        if v >= minimum:
            values.add(v)
        k += 1 / 8
    values.add(maximum)
    return sorted(v for v in values if minimum <= v <= maximum)


# A slider narrower than this is a knob with nowhere to go: its row puts the label above it
# instead (the form wraps long rows), so the column, and the window, stay as narrow as before.
SLIDER_MIN_PX = 96


class LogIntSlider(QWidget):
    """A slider that moves in powers, with its value always visible (and typeable)."""

    valueChanged = Signal(int)

    def __init__(self, minimum: int, maximum: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stops = log_positions(minimum, maximum)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setRange(0, len(self.stops) - 1)
        self.spin = QSpinBox(self)
        self.spin.setRange(int(minimum), int(maximum))
        self.spin.setKeyboardTracking(False)
        self.spin.setMinimumWidth(64)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.spin)
        self.slider.valueChanged.connect(self._from_slider)
        self.spin.valueChanged.connect(self._from_spin)

    def value(self) -> int:
        return self.spin.value()

    def setValue(self, value: int) -> None:
        self.spin.setValue(int(value))

    def set_silent(self, value: int) -> None:
        """Show a value without emitting (restoring settings, building the panel)."""
        with QSignalBlocker(self.spin), QSignalBlocker(self.slider):
            self.spin.setValue(int(value))
            self.slider.setValue(self._position(int(value)))

    def _position(self, value: int) -> int:
        value = max(value, 1)
        return min(range(len(self.stops)), key=lambda i: abs(math.log(self.stops[i] / value)))

    def _from_slider(self, position: int) -> None:
        value = self.stops[position]
        if value != self.spin.value():
            with QSignalBlocker(self.spin):
                self.spin.setValue(value)
            self.valueChanged.emit(value)

    def _from_spin(self, value: int) -> None:
        with QSignalBlocker(self.slider):
            self.slider.setValue(self._position(value))
        self.valueChanged.emit(value)


class ParamControls(Retranslating, QGroupBox):
    """One control per parameter; emits the full set of values on any change."""

    changed = Signal(dict)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.params: tuple[Param, ...] = ()
        self.widgets: dict[str, QWidget] = {}
        self.labels: dict[str, QLabel] = {}
        self.form = QFormLayout(self)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # A long label goes above its control instead of widening the column (and the window).
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        # Row 0 for good, shown only when a scenario has no parameters. (Removing it with the
        # other rows deleted the label under ``self.empty``: the next build then raised.)
        self.empty = QLabel(self)
        self.form.addRow(self.empty)
        self.form.setRowVisible(0, False)
        self.retranslate()

    def build(self, params: tuple[Param, ...], values: dict[str, Any] | None = None) -> None:
        while self.form.rowCount() > 1:
            self.form.removeRow(1)
        self.widgets, self.labels = {}, {}
        self.params = params
        self.form.setRowVisible(0, not params)
        for param in params:
            widget = self._make(param)
            label = QLabel(self)
            label.setWordWrap(True)
            label.setBuddy(widget)
            self.widgets[param.name] = widget
            self.labels[param.name] = label
            if isinstance(widget, QComboBox):  # its choices are phrases: the whole row is theirs
                self.form.addRow(label)
                self.form.addRow(widget)
            else:
                self.form.addRow(label, widget)
        self.set_values(values or {}, emit=False)
        self.retranslate()

    def show_for(self, variant: str) -> None:
        """Show only the parameters this variant reads (a lesson stays about one thing)."""
        for p in self.params:
            visible = p.applies_to(variant)
            self.widgets[p.name].setVisible(visible)
            self.labels[p.name].setVisible(visible)

    def _make(self, p: Param) -> QWidget:
        widget: QWidget
        if p.type is bool:
            widget = QCheckBox(self)
            widget.toggled.connect(self._emit)
        elif p.choices:
            widget = QComboBox(self)
            for choice in p.choices:  # the label shows, the choice is the value
                widget.addItem(p.choice_label(choice, language()), choice)
            # Long labels elide in the box (the list shows them whole): the column stays narrow.
            widget.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            widget.setMinimumContentsLength(10)
            widget.currentIndexChanged.connect(self._emit)
        elif p.type is int and p.log_scale and p.minimum is not None and p.maximum is not None:
            widget = LogIntSlider(int(p.minimum), int(p.maximum), self)
            widget.valueChanged.connect(self._emit)
        elif p.type is int:
            widget = QLabeledSlider(Qt.Orientation.Horizontal, self)
            widget.setRange(int(p.minimum or 0), int(p.maximum if p.maximum is not None else 100))
            widget.valueChanged.connect(self._emit)
        elif p.type is float:
            widget = QLabeledDoubleSlider(Qt.Orientation.Horizontal, self)
            widget.setRange(float(p.minimum or 0.0), float(p.maximum or 1.0))
            widget.valueChanged.connect(self._emit)
        else:
            widget = QLineEdit(self)
            widget.editingFinished.connect(self._emit)
        for slider in widget.findChildren(QSlider):
            slider.setMinimumWidth(SLIDER_MIN_PX)
        widget.setObjectName(f"param_{p.name}")
        return widget

    def values(self) -> dict[str, ParamValue]:
        out: dict[str, ParamValue] = {}
        for p in self.params:
            w = self.widgets[p.name]
            if isinstance(w, QCheckBox):
                out[p.name] = w.isChecked()
            elif isinstance(w, QComboBox):
                out[p.name] = w.currentData()
            elif isinstance(w, QLineEdit):
                out[p.name] = w.text()
            elif p.type is int:
                out[p.name] = int(w.value())  # type: ignore[attr-defined]
            else:
                out[p.name] = float(w.value())  # type: ignore[attr-defined]
        return out

    def set_values(self, values: ParamValues, emit: bool = True) -> None:
        """Set several values at once and emit one change (one call), not one per control."""
        for p in self.params:
            value = values.get(p.name, p.default) if not emit else values.get(p.name)
            if value is None:
                continue
            w = self.widgets[p.name]
            with QSignalBlocker(w):
                if isinstance(w, QCheckBox):
                    w.setChecked(bool(value))
                elif isinstance(w, QComboBox):
                    w.setCurrentIndex(max(0, w.findData(str(value))))
                elif isinstance(w, QLineEdit):
                    w.setText(str(value))
                elif isinstance(w, LogIntSlider):
                    w.set_silent(int(value))
                else:
                    w.setValue(value)  # type: ignore[attr-defined]
        if emit:
            self._emit()

    def set_value(self, name: str, value: Any) -> None:
        """Move one control as a user would (emits a change, which makes a call)."""
        w = self.widgets[name]
        w.setValue(value) if hasattr(w, "setValue") else self.set_values({name: value})

    def _emit(self, *_: Any) -> None:
        self.changed.emit(self.values())

    def retranslate(self) -> None:
        lang = language()
        self.setTitle(self.tr("Parameters"))
        self.empty.setText(self.tr("This scenario has no parameters."))
        for p in self.params:
            self.labels[p.name].setText(p.label.get(lang))
            widget = self.widgets[p.name]
            if isinstance(widget, QComboBox):
                for i, choice in enumerate(p.choices):
                    widget.setItemText(i, p.choice_label(choice, lang))
            tip = p.help.get(lang) + f"\n({p.describe()})"
            self.labels[p.name].setToolTip(tip)
            self.widgets[p.name].setToolTip(tip)
            for child in self.widgets[p.name].findChildren(QWidget):
                child.setToolTip(tip)


class RunControls(Retranslating, QGroupBox):
    """Variant switch, run / pause, single step, call rate and reset.

    The picker spoils nothing: a variant's own title and summary often state its outcome
    ("…: TracerBoolConversionError"), so until that variant has made a call in this run
    (:meth:`bind`) it goes by a neutral name ("the code as first written", "variant 3").
    """

    variant_changed = Signal(str)
    play_toggled = Signal(bool)
    step_clicked = Signal()
    reset_clicked = Signal()
    rate_changed = Signal(float)
    overlay_toggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.variants: list[Variant] = []
        self.revealed: set[str] = set()  # variants that made a call: their names are shown
        self._state: RunState | None = None
        self.variant_combo = QComboBox(self)
        self.variant_combo.setObjectName("variantCombo")
        self.variant_combo.activated.connect(self._variant_index)
        # A long variant title must not widen the column: the combo elides, its list shows all.
        self.variant_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.variant_combo.setMinimumContentsLength(10)
        self.variant_caption = QLabel(self)
        self.variant_caption.setBuddy(self.variant_combo)
        self.variant_label = QLabel(self)
        self.variant_label.setWordWrap(True)
        self.variant_label.setObjectName("variantSummary")
        self.variant_shortcuts: list[QAction] = []
        for i in range(9):
            action = QAction(self)
            action.setShortcut(QKeySequence(f"Ctrl+{i + 1}"))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(lambda _=False, n=i: self._variant_index(n))
            self.addAction(action)
            self.variant_shortcuts.append(action)

        self.play = QPushButton(self)
        self.play.setObjectName("playButton")
        self.play.setCheckable(True)
        self.play.setShortcut(QKeySequence(Qt.Key.Key_Space))
        self.play.toggled.connect(self._play)
        self.step = QPushButton(self)
        self.step.setObjectName("stepButton")
        self.step.setShortcut(QKeySequence("Ctrl+Return"))
        self.step.clicked.connect(self.step_clicked)
        self.reset = QPushButton(self)
        self.reset.setObjectName("resetButton")
        self.reset.setShortcut(QKeySequence("Ctrl+R"))
        self.reset.clicked.connect(self.reset_clicked)
        self.rate = QSpinBox(self)
        self.rate.setObjectName("rateSpin")
        self.rate.setRange(0, 500)
        self.rate.setValue(4)
        self.rate.valueChanged.connect(lambda v: self.rate_changed.emit(float(v)))
        self.rate_label = QLabel(self)
        self.rate_label.setBuddy(self.rate)
        self.overlay = QCheckBox(self)
        self.overlay.setObjectName("overlayCheck")
        self.overlay.toggled.connect(self.overlay_toggled)

        buttons = QHBoxLayout()
        for b in (self.play, self.step, self.reset):
            b.setMinimumWidth(56)  # narrower than the style's 80 px: the column fits 1024 px
            buttons.addWidget(b)
        rate_row = QHBoxLayout()
        rate_row.addWidget(self.rate_label)
        rate_row.addWidget(self.rate)
        rate_row.addStretch(1)
        variant_row = QHBoxLayout()
        variant_row.addWidget(self.variant_caption)
        variant_row.addWidget(self.variant_combo, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(variant_row)
        layout.addWidget(self.variant_label)
        layout.addLayout(buttons)
        layout.addLayout(rate_row)
        layout.addWidget(self.overlay)
        self.retranslate()

    def bind(self, state: RunState) -> None:
        """Follow a run model: a variant's name is revealed once it has made a call."""
        self._state = state
        state.subscribe(self._changed)

    def _changed(self, change: Change) -> None:
        ran = {s.record.variant for s in change.served if s.record.variant}
        if change.cleared or ran - self.revealed:
            self.revealed = (set() if change.cleared else self.revealed) | ran
            self.retranslate()

    def variant_name(self, variant_id: str) -> str:
        """The variant's name as the picker shows it now: neutral until it has run."""
        lang = language()
        for i, v in enumerate(self.variants):
            if v.id == variant_id:
                if v.id in self.revealed:
                    return v.title.get(lang)
                if v.id == "pitfall":
                    return self.tr("the code as first written")
                if v.id == "fix":
                    return self.tr("the fix")
                return self.tr("variant %1").replace("%1", str(i + 1))
        return variant_id

    def set_variants(self, variants: tuple[Variant, ...], current: str) -> None:
        self.variants = list(variants)
        # A new scenario: nothing of it has run yet (a bare, unbound widget hides nothing).
        self.revealed = set() if self._state is not None else {v.id for v in variants}
        with QSignalBlocker(self.variant_combo):
            self.variant_combo.clear()
            for variant in variants:
                self.variant_combo.addItem("", variant.id)
        self.select_variant(current)
        self.retranslate()

    def select_variant(self, variant_id: str) -> None:
        index = self.variant_combo.findData(variant_id)
        if index >= 0:
            with QSignalBlocker(self.variant_combo):
                self.variant_combo.setCurrentIndex(index)
        self._describe(variant_id)

    def current_variant(self) -> str:
        return str(self.variant_combo.currentData() or "pitfall")

    def choose_variant(self, variant_id: str) -> None:
        """Pick a variant as the user would (emits ``variant_changed``)."""
        index = self.variant_combo.findData(variant_id)
        if index >= 0:
            self._variant_index(index)

    def _variant_index(self, index: int) -> None:
        if not 0 <= index < len(self.variants):
            return
        variant_id = self.variants[index].id
        with QSignalBlocker(self.variant_combo):
            self.variant_combo.setCurrentIndex(index)
        self._describe(variant_id)
        self.variant_changed.emit(variant_id)

    def _describe(self, variant_id: str) -> None:
        lang = language()
        for v in self.variants:
            if v.id == variant_id:
                self.variant_label.setText(
                    v.summary.get(lang)
                    if v.id in self.revealed
                    else self.tr("Run it and watch the kitchen: what will jit do?")
                )

    def _play(self, playing: bool) -> None:
        self.play.setText(self.tr("Pause") if playing else self.tr("Run"))
        self.play_toggled.emit(playing)

    def set_playing(self, playing: bool) -> None:
        if self.play.isChecked() != playing:
            self.play.setChecked(playing)

    def rate_value(self) -> float:
        return float(self.rate.value())

    def retranslate(self) -> None:
        lang = language()
        self.setTitle(self.tr("Run"))
        self.play.setText(self.tr("Pause") if self.play.isChecked() else self.tr("Run"))
        self.play.setToolTip(self.tr("Call the function again and again at the call rate (Space)."))
        self.step.setText(self.tr("Step"))
        self.step.setToolTip(self.tr("Make exactly one call with the current values (Ctrl+Enter)."))
        self.reset.setText(self.tr("Reset"))
        self.reset.setToolTip(
            self.tr(
                "Clear jit's caches: the card holder empties and the next call compiles (Ctrl+R)."
            )
        )
        self.rate_label.setText(self.tr("Calls per second:"))
        self.rate.setSpecialValueText(self.tr("max"))
        self.rate.setToolTip(self.tr("How fast Run calls; 0 = as fast as the worker can."))
        self.overlay.setText(self.tr("Overlay pitfall and fix"))
        self.overlay.setToolTip(
            self.tr(
                "Draw the latest pitfall run and the latest fix run from call 0, one on the other."
            )
        )
        self.variant_caption.setText(self.tr("Variant:"))
        self.variant_combo.setToolTip(
            self.tr("Which version of the code runs. Switching starts a fresh run (Ctrl+1…9).")
        )
        for i, v in enumerate(self.variants):
            shown = v.id in self.revealed
            self.variant_combo.setItemText(i, f"{i + 1}. {self.variant_name(v.id)}")
            self.variant_combo.setItemData(
                i, v.summary.get(lang) if shown else None, Qt.ItemDataRole.ToolTipRole
            )
        self._describe(self.current_variant())
