"""The shape histogram: which sizes of a batch or length dimension made a function compile.

For a function that recompiles because one dimension keeps changing, it shows the sizes seen,
suggests bucket sizes (:func:`jitlab.recordings.buckets.suggest_buckets`: the least padding
for a chosen number of compiles) and writes the code that pads each call up to its bucket.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontDatabase, QFontMetricsF, QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)
from superqt.utils import CodeSyntaxHighlight

from jitlab.gui import plain
from jitlab.gui.i18n import Retranslating
from jitlab.gui.style import KIND_COLORS, ink, is_dark
from jitlab.gui.views.axes import paint
from jitlab.recordings.buckets import suggest_buckets
from jitlab.recordings.ledger import (
    Dimension,
    bucket_code,
    default_compiles,
    padding,
    varying_dimensions,
)
from jitlab.records.calls import CallKind, Signature


class ShapeHistogram(Retranslating, QWidget):
    """Bar chart of the sizes one dimension took, the suggested buckets and the code."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.function = ""
        self.dims: list[Dimension] = []
        self.buckets: list[int] = []
        self._bands: list[pg.BarGraphItem] = []
        self._bars: list[pg.BarGraphItem] = []
        self._labels: list[pg.TextItem] = []
        self._label_at: list[tuple[int, float]] = []  # (bucket, height) of each bucket's label

        self.dim_label = QLabel(self)
        self.dim_combo = QComboBox(self)
        self.dim_combo.setObjectName("histogramDimension")
        self.dim_combo.currentIndexChanged.connect(self._dim_changed)
        self.compiles_label = QLabel(self)
        self.compiles = QSpinBox(self)
        self.compiles.setObjectName("bucketCount")
        self.compiles.setRange(1, 1)
        self.compiles.valueChanged.connect(self._suggest)
        self.summary = QLabel(self)
        self.summary.setObjectName("bucketSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.plot = pg.PlotWidget(self)
        self.plot.setObjectName("shapeHistogram")
        self.plot.setMinimumHeight(160)
        item = self.plot.getPlotItem()
        item.setMenuEnabled(False)
        item.hideButtons()
        item.setMouseEnabled(x=False, y=False)
        item.showGrid(x=False, y=True, alpha=0.2)

        self.code = QPlainTextEdit(self)
        self.code.setObjectName("bucketCode")
        self.code.setReadOnly(True)
        self.code.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.code.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self._highlighter: CodeSyntaxHighlight | None = None
        self.copy = QPushButton(self)
        self.copy.setObjectName("copyBucketCode")
        self.copy.clicked.connect(self._copy)
        self.empty = QLabel(self)
        self.empty.setObjectName("histogramEmpty")
        self.empty.setTextFormat(Qt.TextFormat.PlainText)  # it names the function
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)

        controls = QHBoxLayout()
        controls.addWidget(self.dim_label)
        controls.addWidget(self.dim_combo)
        controls.addSpacing(12)
        controls.addWidget(self.compiles_label)
        controls.addWidget(self.compiles)
        controls.addStretch(1)
        self.body = QWidget(self)
        grid = QGridLayout(self.body)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addLayout(controls, 0, 0, 1, 2)
        grid.addWidget(self.plot, 1, 0)
        right = QVBoxLayout()
        right.addWidget(self.summary)
        right.addWidget(self.code, 1)
        copy_row = QHBoxLayout()
        copy_row.addStretch(1)
        copy_row.addWidget(self.copy)
        right.addLayout(copy_row)
        grid.addLayout(right, 1, 1)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty)
        layout.addWidget(self.body, 1)
        self.apply_theme()
        self.retranslate()
        self.body.setVisible(False)

    # -- content --------------------------------------------------------------------------
    def set_signatures(self, function: str, signatures: list[Signature]) -> None:
        """Show ``function``'s compiled signatures (keeps the user's choices when unchanged)."""
        dims = varying_dimensions(signatures)
        if function == self.function and dims == self.dims:
            return
        same_function = function == self.function
        previous = self.current_dimension()
        self.function, self.dims = function, dims
        self.dim_combo.blockSignals(True)
        self.dim_combo.clear()
        for dim in dims:
            self.dim_combo.addItem(self.dim_text(dim))
        keep = next((i for i, d in enumerate(dims) if previous and d.axes == previous.axes), 0)
        self.dim_combo.setCurrentIndex(keep if same_function else 0)
        self.dim_combo.blockSignals(False)
        self.dim_combo.setEnabled(len(dims) > 1)
        self.empty.setVisible(not dims)
        self.body.setVisible(bool(dims))
        self._dim_changed(reset_count=not same_function or previous is None)

    def dim_text(self, dim: Dimension) -> str:
        return dim.label(self.tr("%1 (axis %2)"))

    def current_dimension(self) -> Dimension | None:
        i = self.dim_combo.currentIndex()
        return self.dims[i] if 0 <= i < len(self.dims) else None

    def _dim_changed(self, *_: object, reset_count: bool = True) -> None:
        dim = self.current_dimension()
        if dim is None:
            self.buckets = []
            self._retext_empty()
            return
        m = len(dim.distinct)
        old = self.compiles.value()
        self.compiles.blockSignals(True)
        self.compiles.setRange(1, m)
        self.compiles.setValue(default_compiles(m) if reset_count else min(old, m))
        self.compiles.blockSignals(False)
        self._suggest()

    def _suggest(self) -> None:
        dim = self.current_dimension()
        if dim is None:
            return
        # Cache hits are counted per function, not per shape, so every size weighs the same.
        self.buckets = suggest_buckets(dim.distinct, self.compiles.value())
        self._draw(dim)
        self._describe(dim)

    def observed(self) -> dict[int, int]:
        """Size → number of compiles at that size, for the dimension shown (tests read it)."""
        dim = self.current_dimension()
        if dim is None:
            return {}
        counts: dict[int, int] = {}
        for size in dim.sizes:
            counts[size] = counts.get(size, 0) + 1
        return dict(sorted(counts.items()))

    # -- drawing --------------------------------------------------------------------------
    # A fixed set of items, reused at each draw: the bands and the bars (one item per colour,
    # drawn in one call each) and a few labels, only as many as fit. An item per band and per
    # label, made anew at each draw, cost ~0.5 s to make and paint for 500 sizes.
    def _items(self) -> None:
        if self._bars:
            return
        item = self.plot.getPlotItem()
        for _ in range(2):
            band = pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[], pen=pg.mkPen(None))
            band.setZValue(-10)
            item.addItem(band, ignoreBounds=True)
            self._bands.append(band)
        for _ in range(2):  # sizes padded up to a bucket, then the bucket sizes
            bars = pg.BarGraphItem(x0=[], x1=[], y0=[], height=[])
            item.addItem(bars)
            self._bars.append(bars)
        item.getViewBox().sigResized.connect(self._place_labels)

    def _draw(self, dim: Dimension) -> None:
        self._items()
        item = self.plot.getPlotItem()
        counts = self.observed()
        sizes = np.array(list(counts), float)
        heights = np.array(list(counts.values()), float)
        gaps = np.diff(sizes)
        span = float(sizes.max() - sizes.min()) if sizes.size > 1 else 1.0
        width = max(min(float(gaps.min()) if gaps.size else 1.0, span / 12) * 0.7, span / 150)
        top = float(heights.max()) + 0.6
        # Bands: every size inside a band is padded up to the bucket at its right edge.
        buckets = np.array(self.buckets, float)
        right = buckets + width / 2
        left = np.concatenate(([float(sizes.min()) - width], right[:-1]))
        for i, (band, name) in enumerate(zip(self._bands, ("#1f9bbf", "#e3a21a"), strict=True)):
            color = QColor(name)
            color.setAlpha(45 if is_dark() else 35)
            x0, x1 = left[i::2], right[i::2]
            y0 = np.full(x0.size, -top)  # beyond the view's padding: the whole height
            band.setOpts(x0=x0, x1=x1, y0=y0, y1=y0 + 3 * top, brush=color)
        # Bars: each cut where the next begins (when many sizes make them overlap), so that the
        # bucket sizes and the others can be drawn by one item each, a colour per item.
        x0 = sizes - width / 2
        x1 = np.minimum(sizes + width / 2, np.append(x0[1:], np.inf))
        cut = bool((x1 < sizes + width / 2).any())  # then no outline: it would spill over
        is_bucket = np.isin(sizes, buckets)
        for bars, chosen, kind in zip(
            self._bars,
            (~is_bucket, is_bucket),
            (CallKind.RECOMPILE, CallKind.CACHE_HIT),
            strict=True,
        ):
            color = QColor(KIND_COLORS[kind])
            bars.setOpts(
                x0=x0[chosen],
                x1=x1[chosen],
                y0=np.zeros(int(chosen.sum())),
                height=heights[chosen],
                brush=color,
                pen=pg.mkPen(None) if cut else color,
            )
        self._label_at = [(b, float(counts.get(b, 0)) + 0.05) for b in self.buckets]
        item.setXRange(float(sizes.min()) - 2 * width, float(sizes.max()) + 2 * width)
        item.setYRange(0, top)
        left_axis = item.getAxis("left")
        if top <= 20:
            left_axis.setTickSpacing(1, 1)
        else:  # a tick per compile would be hundreds of ticks
            left_axis.setTickSpacing()
        # pyqtgraph's axis labels are HTML: the argument's path, escaped, shows as written.
        name = plain.escape(self.dim_text(dim))
        item.setLabel("bottom", self.tr("size of %1").replace("%1", name))
        self._place_labels()

    def _place_labels(self, *_: object) -> None:
        """``▼size`` over each bucket, leaving out those that would overlap the next one."""
        if not self._label_at:
            for text in self._labels:
                text.setVisible(False)
            return
        view = self.plot.getPlotItem().getViewBox()
        low, high = view.viewRange()[0]  # the range set in _draw, with the view's padding
        pixels = view.width()
        per_pixel = (high - low) / (pixels if pixels > 50 else 600.0)
        metrics = QFontMetricsF(self._labels[0].textItem.font() if self._labels else self.font())
        shown: list[tuple[int, float]] = []
        edge = math.inf  # greedy from the right: the largest bucket always has its label
        for bucket, height in reversed(self._label_at):
            half = (metrics.horizontalAdvance(f"▼{bucket}") / 2 + 4) * per_pixel
            if bucket + half <= edge:
                shown.append((bucket, height))
                edge = bucket - half
        fg = ink()
        item = self.plot.getPlotItem()
        while len(self._labels) < len(shown):
            text = pg.TextItem("", anchor=(0.5, 1.0))
            item.addItem(text)
            self._labels.append(text)
        for text, (bucket, height) in zip(self._labels, shown, strict=False):
            label = f"▼{bucket}"
            if text.toPlainText() != label:
                text.setText(label)
            text.setColor(fg)
            text.setPos(bucket, height)
            text.setVisible(True)
        for text in self._labels[len(shown) :]:
            text.setVisible(False)

    def _describe(self, dim: Dimension) -> None:
        distinct = dim.distinct
        pad = padding(distinct, self.buckets)
        share = pad / max(1, sum(distinct))
        self.summary.setText(
            self.tr(
                "Seen: %1 sizes in %2 compiles. The bucket sizes %3 cut this to %4 (one "
                "compile per bucket), at the cost of %5% padding over the sizes seen."
            )
            .replace("%1", str(len(distinct)))
            .replace("%2", str(len(dim.sizes)))
            .replace("%3", self._bucket_list())
            .replace("%4", str(len(self.buckets)))
            .replace("%5", f"{share:.0%}".rstrip("%"))
        )
        comments = {
            "header": self.tr("%2: bucket sizes for %1, one compile each (%4 sizes seen)")
            .replace("%1", self.dim_text(dim))
            .replace("%2", self.function)
            .replace("%3", str(len(self.buckets)))
            .replace("%4", str(len(distinct))),
            "bucket": self.tr("The smallest bucket that holds n."),
            "larger": self.tr("larger than every bucket: one more compile"),
            "pad": self.tr("Pad a with zeros along axis up to size."),
            "usage": self.tr("Before each call, pad to the bucket:"),
            "nested": self.tr("pad these leaves the same way"),
            "mask": self.tr(
                "Only the first n rows are real: mask the padding out of sums and means"
            ),
            "call": self.tr("pass the padded arguments and the mask"),
        }
        self.code.setPlainText(bucket_code(self.function, dim, self.buckets, comments))

    def _bucket_list(self) -> str:
        """The bucket sizes, the middle left out when there are many (the code has them all)."""
        b = [str(x) for x in self.buckets]
        return ", ".join(b if len(b) <= 12 else [*b[:8], "…", *b[-3:]])

    def _copy(self) -> None:
        clipboard = QGuiApplication.clipboard()
        if clipboard is not None:
            clipboard.setText(self.code.toPlainText())

    # -- look and language ----------------------------------------------------------------
    def apply_theme(self) -> None:
        paint(self.plot, self.palette().color(QPalette.ColorRole.Base))
        self._highlighter = CodeSyntaxHighlight(
            self.code.document(), "python", "monokai" if is_dark() else "default"
        )
        dim = self.current_dimension() if hasattr(self, "dims") and self.dims else None
        if dim is not None:
            self._draw(dim)

    def _retext_empty(self) -> None:
        if self.function:
            self.empty.setText(
                self.tr(
                    "%1 never compiled for a new size of the same dimension: there is nothing "
                    "to bucket. (Recompiles caused by dtypes, statics or shardings show in the "
                    "signature ledger.)"
                ).replace("%1", self.function)
            )
        else:
            self.empty.setText(self.tr("Pick a function to see the sizes it compiled for."))

    def retranslate(self) -> None:
        self.dim_label.setText(self.tr("Dimension:"))
        self.dim_combo.setToolTip(
            self.tr(
                "Axes whose size changed between compiles; axes that change together share a row."
            )
        )
        self.dim_label.setToolTip(self.dim_combo.toolTip())
        self.compiles_label.setText(self.tr("Compiles allowed:"))
        self.compiles.setToolTip(
            self.tr(
                "How many shapes you accept to compile. jitlab picks the bucket sizes that need "
                "the least padding for that many."
            )
        )
        self.compiles_label.setToolTip(self.compiles.toolTip())
        self.plot.setToolTip(
            self.tr(
                "One bar per size seen, its height the number of compiles at that size. Green "
                "bars are bucket sizes; red ones are padded up to the bucket at the right edge "
                "of their band."
            )
        )
        self.plot.getPlotItem().setLabel("left", self.tr("compiles"))
        self.summary.setToolTip(
            self.tr(
                "Each size seen counts once: a recording counts cache hits per function, not "
                "per shape."
            )
        )
        self.code.setToolTip(self.tr("Code that applies the buckets: copy it into your program."))
        self.copy.setText(self.tr("Copy code"))
        self.copy.setToolTip(self.tr("Copy the bucketing code to the clipboard."))
        self.empty.setToolTip(self.tr("Only a dimension that changes size can be bucketed."))
        for i, d in enumerate(self.dims):
            self.dim_combo.setItemText(i, self.dim_text(d))
        dim = self.current_dimension()
        if dim is not None:
            self._draw(dim)
            self._describe(dim)
        else:
            self._retext_empty()

    def restyle(self) -> None:
        self.apply_theme()
