"""Chef Wang's kitchen: the run-state model drawn as stations that light up per phase.

The picture is ``resources/kitchen.svg`` (drawn for jitlab); the stations are found by element
id, so the art can change without touching this code. Status text, labels and the cards are
painted on top, in the interface language.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen, QPixmap, QResizeEvent
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QToolTip, QVBoxLayout, QWidget

from jitlab.gui import plain
from jitlab.gui.i18n import Retranslating
from jitlab.gui.style import KIND_COLORS
from jitlab.gui.views.card_text import card_label as card_label
from jitlab.gui.views.card_text import card_parts, card_tip_lines, fit_card_text
from jitlab.gui.views.card_text import shape_text as shape_text
from jitlab.gui.views.fitting import FittedText, elide_at_words
from jitlab.gui.views.model import CardView, Change, Phase, RunState
from jitlab.gui.views.reasons import reason_text
from jitlab.records.calls import CallKind, CallRecord
from jitlab.records.paths import resource
from jitlab.records.text import format_ms

AMBER = QColor("#e3a21a")
ALARM = QColor("#e0323f")
GREEN = QColor("#2f9e4f")
GOLD = QColor("#ffd54a")
MIN_TEXT_PX = 11  # no kitchen text smaller than this, whatever the window size
STATIONS = ("station-rehearsal", "station-writing", "station-holder", "station-alarm")


class KitchenCanvas(QWidget):
    """The drawn kitchen; repaints only when the model changed."""

    card_clicked = Signal(object)  # a CardView: read its script
    card_menu = Signal(object, QPoint)  # a CardView and where (global) it was right-clicked

    def __init__(self, state: RunState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("kitchenCanvas")
        self.state = state
        self.renderer = QSvgRenderer(str(resource("kitchen.svg")), self)
        self._view = self.renderer.viewBoxF()
        self._bounds = {sid: self.renderer.boundsOnElement(sid) for sid in STATIONS}
        self._slots = self.renderer.boundsOnElement("card-slots")
        self._card_rects: list[tuple[QRectF, CardView]] = []
        # What the last paint drew with, for the tests: fonts by station, card texts by number.
        self.card_font = QFont(self.font())
        self.label_fonts: dict[str, QFont] = {}
        self.card_texts: dict[int, str] = {}
        self.label_rects: dict[str, QRectF] = {}  # where each station's label was drawn
        self.status_shown = ""  # the status as drawn (cut at a word where it did not fit)
        self.status_rect = QRectF()  # …and its banner
        self._background: QPixmap | None = None  # the SVG rendered once per size
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setMinimumSize(420, 90)  # smaller while the error or the diff is the point
        self.setMouseTracking(True)

    def sizeHint(self) -> QSize:
        return QSize(760, self.heightForWidth(760))

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        # Keep the picture's proportions so it fills the width without a band of empty wall;
        # never under its minimum, which the widget keeps anyway (the recording's kitchen at
        # 1024 px: a layout told less put the counters over the picture's labels).
        return max(self.minimumHeight(), int(width * self._view.height() / self._view.width()))

    # -- what is lit ----------------------------------------------------------------------
    def lit(self) -> dict[str, QColor]:
        """Station id → highlight colour for the current state (tests read this too)."""
        s = self.state
        alarm = s.recompiling
        lit: dict[str, QColor] = {}
        if s.phase is Phase.ORDER:
            lit["station-holder"] = AMBER
        elif s.phase is Phase.REHEARSING:
            lit["station-rehearsal"] = ALARM if alarm else AMBER
        elif s.phase is Phase.WRITING:
            lit["station-writing"] = ALARM if alarm else AMBER
        elif s.phase is Phase.COOKING:
            lit["station-holder"] = GREEN
        elif s.phase is Phase.SERVED and s.last_kind is not None:
            kind = s.last_kind
            if kind is CallKind.CACHE_HIT:
                lit["station-holder"] = GREEN
            elif kind is CallKind.COMPILE:
                lit["station-writing"] = AMBER
            elif kind is CallKind.PERSISTENT_HIT:
                lit["station-holder"] = QColor(KIND_COLORS[kind])
            elif kind is CallKind.RECOMPILE:
                lit["station-rehearsal"] = ALARM
            elif kind is CallKind.ERROR:
                lit["station-rehearsal"] = QColor(KIND_COLORS[kind])
        if alarm or (s.phase is Phase.SERVED and s.last_kind is CallKind.RECOMPILE):
            lit["station-alarm"] = ALARM
        return lit

    def status(self) -> str:
        """One line that says what the kitchen is doing right now."""
        s = self.state
        if s.phase is Phase.IDLE:
            if s.abandoned_after is not None:
                return self.tr("Still running after %1 s — abandoned").replace(
                    "%1", f"{s.abandoned_after:.0f}"
                )
            return self.tr("Waiting for an order")
        if s.phase is Phase.ORDER:
            return self.tr("Order in: is there a card for it?")
        if s.phase is Phase.REHEARSING:
            if s.recompiling:
                return self.tr("No card fits: re-rehearsing (tracing again)…")
            return self.tr("Rehearsing the recipe (tracing)…")
        if s.phase is Phase.WRITING:
            if s.recompiling:
                return self.tr("Writing another script (recompiling)…")
            return self.tr("Writing the script (lowering + compiling)…")
        if s.phase is Phase.COOKING:
            return self.tr("Cooking from the new script (running)…")
        kind = s.last_kind
        card = s.cards.get(s.pulled) if s.pulled else None
        number = card.number if card else 0
        if kind is CallKind.CACHE_HIT:
            if not number:  # an executable another jax.jit of the function compiled
                return self.tr("Served from a script already written (cache hit)")
            return self.tr("Served from card #%1 (cache hit)").replace("%1", str(number))
        if kind is CallKind.COMPILE:
            return self.tr("First script written: card #%1").replace("%1", str(number))
        if kind is CallKind.RECOMPILE:
            return self.tr("Re-rehearsed! New card #%1 in the holder").replace("%1", str(number))
        if kind is CallKind.PERSISTENT_HIT:
            return self.tr("Script fetched from the archive (persistent cache)")
        return self.tr("The order failed: see the error")

    # -- painting -------------------------------------------------------------------------
    def _transform(self) -> tuple[float, float, float]:
        vb = self._view
        scale = min(self.width() / vb.width(), self.height() / vb.height())
        ox = (self.width() - vb.width() * scale) / 2
        oy = 0.0  # top-aligned: the counters sit right under the picture
        return scale, ox, oy

    def _map(self, rect: QRectF) -> QRectF:
        scale, ox, oy = self._transform()
        return QRectF(
            ox + rect.x() * scale,
            oy + rect.y() * scale,
            rect.width() * scale,
            rect.height() * scale,
        )

    def paintEvent(self, event: QEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        scale, ox, oy = self._transform()
        target = QRectF(ox, oy, self._view.width() * scale, self._view.height() * scale)
        painter.drawPixmap(target.topLeft(), self._picture(target))
        lit = self.lit()
        for sid, color in lit.items():
            rect = self._map(self._bounds[sid]).adjusted(-4, -4, 4, 4)
            glow = QColor(color)
            glow.setAlpha(70)
            painter.setBrush(glow)
            painter.setPen(QPen(color, max(2.0, 4 * scale)))
            painter.drawRoundedRect(rect, 8, 8)
        self._paint_cards(painter, scale)
        self._paint_labels(painter, scale, target, lit)
        painter.end()

    def _picture(self, target: QRectF) -> QPixmap:
        """The drawn kitchen as a pixmap: SVG rendering costs milliseconds, a blit does not."""
        ratio = self.devicePixelRatioF()
        size = QSize(max(1, round(target.width() * ratio)), max(1, round(target.height() * ratio)))
        if self._background is None or self._background.size() != size:
            pixmap = QPixmap(size)
            pixmap.fill(Qt.GlobalColor.transparent)
            with_painter = QPainter(pixmap)
            with_painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            self.renderer.render(with_painter, QRectF(0, 0, size.width(), size.height()))
            with_painter.end()
            pixmap.setDevicePixelRatio(ratio)
            self._background = pixmap
        return self._background

    def _paint_cards(self, painter: QPainter, scale: float) -> None:
        slots = self._map(self._slots)
        cards = sorted(self.state.cards.values(), key=lambda card: card.number)
        self._card_rects = []
        self.card_texts = {}
        cols, rows = 3, 3
        hidden = max(0, len(cards) - cols * rows)
        if hidden:
            hidden += 1  # the first slot becomes the "+N older" pile
            visible = cards[hidden:]
            pulled = self.state.cards.get(self.state.pulled) if self.state.pulled else None
            if pulled is not None and pulled not in visible:
                visible = [pulled, *visible[1:]]  # the card in use is always on show
        else:
            visible = cards
        w = slots.width() / cols
        h = slots.height() / rows
        font = QFont(self.font())
        font.setPixelSize(max(MIN_TEXT_PX, int(12 * scale)))
        painter.setFont(font)
        self.card_font = QFont(font)
        if hidden:
            pile = QRectF(slots.x() + 3, slots.y() + 3, w - 6, h - 6)
            painter.setBrush(QColor("#d9cbb0"))
            painter.setPen(QPen(QColor("#8a6d3b"), 1, Qt.PenStyle.DashLine))
            painter.drawRoundedRect(pile, 4, 4)
            painter.setPen(QColor("#3a2a1e"))
            more = self.tr("+%1 more").replace("%1", str(hidden))
            if painter.fontMetrics().horizontalAdvance(more) > pile.width() - 4:
                more = f"+{hidden}"
            painter.drawText(pile, Qt.AlignmentFlag.AlignCenter, more)
        parts = {card.number: card_parts(card, visible) for card in visible}
        metrics = painter.fontMetrics()
        # A card's label is cut only when nothing shorter tells it apart; two labels cut to
        # the same stub ("fl…", "fl…"), or two that differ shortened alike ("P(x)" of one
        # layout on two meshes), tell nothing: those cards show their numbers instead.
        fitted: dict[int, str] = {}
        size = QRectF(0, 0, w - 6, h - 6)
        for card in visible:
            others = [parts[c.number] for c in visible if c is not card]
            # Two lines fit when the card is two lines high, give or take their leading.
            two = size.height() >= 2 * metrics.height() - 2
            label = " ".join(parts[card.number])
            fitted[card.number] = fit_card_text(
                label, metrics, size, parts[card.number], others, two
            )
        stubs = [t for t in fitted.values() if t.endswith("…")]
        labels = {n: (text, " ".join(parts[n])) for n, text in fitted.items()}
        for n, (text, label) in labels.items():
            alike = any(t == text and whole != label for t, whole in labels.values())
            if alike or (text.endswith("…") and stubs.count(text) > 1):
                fitted[n] = f"#{n}"
        for i, card in enumerate(visible, start=1 if hidden else 0):
            r, c = divmod(i, cols)
            rect = QRectF(slots.x() + c * w + 3, slots.y() + r * h + 3, w - 6, h - 6)
            in_use = card.key == self.state.pulled
            if in_use:
                rect.translate(0, -4 * scale)
            self._card_rects.append((rect, card))
            painter.setBrush(QColor("#fff3cf") if in_use else QColor("#fffaf0"))
            painter.setPen(
                QPen(GOLD.darker(130) if in_use else QColor("#8a6d3b"), 3 if in_use else 1)
            )
            painter.drawRoundedRect(rect, 4, 4)
            painter.setPen(QColor("#3a2a1e"))
            two = rect.height() >= 2 * metrics.height() - 2  # (as above)
            text = fitted[card.number]
            self.card_texts[card.number] = text.replace("\n", " ")
            number = f"#{card.number}"
            if text == number:
                shown = number  # its label did not fit: the number, the tooltip says it all
            elif "\n" in text:
                shown = text  # the label needs both lines; its number is in the tooltip
            elif two:
                shown = f"{number}\n{text}"
            elif metrics.horizontalAdvance(f"{number} {text}") <= rect.width() - 4:
                shown = f"{number} {text}"  # a short card: one line
            else:
                shown = text  # the label tells it apart; its number is in the tooltip
            painter.drawText(
                rect.adjusted(2, 0, -2, 0),  # two lines use the card's whole height
                Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter,
                shown,
            )

    def _paint_labels(
        self, painter: QPainter, scale: float, target: QRectF, lit: dict[str, QColor]
    ) -> None:
        names = {
            "station-rehearsal": self.tr("Rehearsal · trace"),
            "station-writing": self.tr("Script · compile"),
            "station-holder": self.tr("Card holder · cache"),
            "station-alarm": self.tr("Re-rehearsal!"),
        }
        font = QFont(self.font())
        font.setBold(True)
        self.label_rects = {}
        right_of_last = target.left()
        for sid, text in names.items():
            rect = self._map(self._bounds[sid])
            width = rect.width() + 40 * scale  # the label may not spill onto its neighbours
            size = max(MIN_TEXT_PX, int(15 * scale))
            font.setPixelSize(size)
            painter.setFont(font)
            while size > MIN_TEXT_PX and painter.fontMetrics().horizontalAdvance(text) > width:
                size -= 1
                font.setPixelSize(size)
                painter.setFont(font)
            # At the smallest size a label may be wider than its station: widen, keep inside.
            width = max(width, painter.fontMetrics().horizontalAdvance(text) + 2)
            left = min(max(rect.center().x() - width / 2, target.left()), target.right() - width)
            left = max(left, right_of_last + 10)  # never over (or against) the label before it
            if left + width > target.right():  # no room left: elide to what is left
                width = max(8.0, target.right() - left)
                text = painter.fontMetrics().elidedText(
                    text, Qt.TextElideMode.ElideRight, int(width)
                )
            label = QRectF(left, target.y() + 200 * scale, width, 40 * scale)
            # What the text really covers (the rect is wider than its text): the next one
            # only needs to clear that.
            drawn = painter.fontMetrics().horizontalAdvance(text)
            self.label_rects[sid] = QRectF(
                label.center().x() - drawn / 2, label.y(), drawn, painter.fontMetrics().height()
            )
            right_of_last = label.center().x() + drawn / 2
            self.label_fonts[sid] = QFont(font)
            painter.setPen(lit[sid].darker(120) if sid in lit else QColor("#5e4327"))
            painter.drawText(label, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, text)
        # The status line across the top of the wall, right of the chef; where it does not
        # fit (a narrow kitchen, Chinese), smaller, then over the whole wall, and only then
        # cut, at a word (never inside "#10"), its whole text in the banner's tooltip.
        status = self.status()
        size = max(MIN_TEXT_PX + 1, int(17 * scale))
        font.setPixelSize(size)
        painter.setFont(font)
        room = 640 * scale - 24
        while size > MIN_TEXT_PX and painter.fontMetrics().horizontalAdvance(status) > room:
            size -= 1
            font.setPixelSize(size)
            painter.setFont(font)
        self.label_fonts["status"] = QFont(font)
        metrics = painter.fontMetrics()
        box = QRectF(target.x() + 150 * scale, target.y() + 4 * scale, 640 * scale, 26 * scale)
        if metrics.horizontalAdvance(status) + 24 > box.width():
            box = QRectF(target.x() + 4, box.y(), target.width() - 8, box.height())
        width = min(box.width(), metrics.horizontalAdvance(status) + 24)
        box = QRectF(
            box.center().x() - width / 2, box.y(), width, max(box.height(), metrics.height() + 4)
        )
        path = QPainterPath()
        path.addRoundedRect(box, 6, 6)
        color = next(iter(lit.values()), QColor("#5e4327"))
        painter.fillPath(path, color.darker(110))
        painter.setPen(QColor("#ffffff"))
        self.status_shown = elide_at_words(metrics, status, int(box.width() - 8))
        self.status_rect = box
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, self.status_shown)

    # -- tooltips -------------------------------------------------------------------------
    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            pos = event.pos()  # type: ignore[attr-defined]
            for rect, card in self._card_rects:
                if rect.contains(pos):
                    QToolTip.showText(event.globalPos(), plain.tip(self.card_tip(card)), self)  # type: ignore[attr-defined]
                    return True
            if self.status_shown != self.status() and self.status_rect.contains(pos):
                QToolTip.showText(event.globalPos(), plain.tip(self.status()), self)  # type: ignore[attr-defined]
                return True
            QToolTip.showText(event.globalPos(), self.toolTip(), self)  # type: ignore[attr-defined]
            return True
        if event.type() == QEvent.Type.LanguageChange:
            self.update()
        return super().event(event)

    def card_tip(self, card: CardView) -> str:
        n = card.hits
        text = (
            self.tr("Card #%1: compiled by call #%2 in %3, used once since", "", n)
            if n == 1
            else self.tr("Card #%1: compiled by call #%2 in %3, used %n times since", "", n)
        )
        return (
            text.replace("%1", str(card.number))
            .replace("%2", str(card.created_by))
            .replace("%3", format_ms(card.compile_ms))
            + "\n"
            + "\n".join(card_tip_lines(card))
            + "\n"
            + self.tr("Click to read its script; right-click to compare it with another card.")
        )

    def mouseReleaseEvent(self, event: QEvent) -> None:
        card = self.card_at(event.position().toPoint())  # type: ignore[attr-defined]
        if card is not None and event.button() == Qt.MouseButton.LeftButton:  # type: ignore[attr-defined]
            self.card_clicked.emit(card)
        super().mouseReleaseEvent(event)  # type: ignore[arg-type]

    def mouseMoveEvent(self, event: QEvent) -> None:
        over = self.card_at(event.position().toPoint()) is not None  # type: ignore[attr-defined]
        self.setCursor(Qt.CursorShape.PointingHandCursor if over else Qt.CursorShape.ArrowCursor)
        super().mouseMoveEvent(event)  # type: ignore[arg-type]

    def contextMenuEvent(self, event: QEvent) -> None:
        card = self.card_at(event.pos())  # type: ignore[attr-defined]
        if card is not None:
            self.card_menu.emit(card, event.globalPos())  # type: ignore[attr-defined]
        else:
            event.ignore()

    def card_at(self, point: QPoint) -> CardView | None:
        for rect, card in self._card_rects:
            if rect.contains(point):
                return card
        return None


COUNTERS = ("calls", "compiles", "hit_rate", "time_lost")
REASON_LINES = 3  # the last compile's reason's lines shown before the picture grows


class KitchenPanel(Retranslating, QWidget):
    """The kitchen picture plus its counters and the last recompile's reason in words."""

    def __init__(self, state: RunState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.failed_ms = 0.0  # trace time of this segment's failed calls
        self.last_compile: CallRecord | None = None  # this run's newest compile
        self.canvas = KitchenCanvas(state, self)
        self.values: dict[str, QLabel] = {}
        self.captions: dict[str, QLabel] = {}
        self.grid = grid = QGridLayout()
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(0)
        self.columns = len(COUNTERS)  # the counters in one row; two rows of two when narrow
        for column, key in enumerate(COUNTERS):
            caption = QLabel(self)
            caption.setObjectName("counterCaption")
            value = QLabel("0", self)
            value.setObjectName(f"counter_{key}")
            font = value.font()
            font.setPointSizeF(font.pointSizeF() * 1.5)
            font.setBold(True)
            value.setFont(font)
            grid.addWidget(caption, 0, column)
            grid.addWidget(value, 1, column)
            self.values[key] = value
            self.captions[key] = caption
        # Why the last compile happened: what fits the pane, the rest marked "…" and whole in
        # its tooltip (a recording's reasons run long: JAX's hint about a lambda made anew).
        self.reason = FittedText(self, min_lines=1)
        self.reason.setObjectName("lastReason")
        self.reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        # Tight: at 1024×640 in Chinese the panes' minimums left the chart a pixel short.
        layout.setSpacing(2)
        layout.addWidget(self.canvas)
        layout.addLayout(grid)
        layout.addWidget(self.reason, 1)
        self.retranslate()
        state.subscribe(self._changed)

    def _row_width(self, columns: int) -> int:
        """The counters' width laid out ``columns`` to a row."""
        widths = [
            max(self.captions[k].sizeHint().width(), self.values[k].sizeHint().width())
            for k in COUNTERS
        ]
        rows = [widths[i : i + columns] for i in range(0, len(widths), columns)]
        margins = self.contentsMargins().left() + self.contentsMargins().right() + 8
        spacing = self.grid.horizontalSpacing() * (columns - 1)
        return max(sum(w) for w in rows) + spacing + margins

    def minimumSizeHint(self) -> QSize:
        """As narrow as the counters in two rows allow (they go one row where it fits)."""
        hint = super().minimumSizeHint()
        narrow = max(self._row_width(2), self.canvas.minimumWidth() + 8)
        return QSize(min(hint.width(), narrow), hint.height())

    def _arrange(self) -> None:
        """The counters in one row where they fit the panel's width, else two rows of two
        (the recording window's kitchen at 1024 px leaves its chart the room)."""
        if self.width() <= 0:
            return
        columns = len(COUNTERS) if self._row_width(len(COUNTERS)) <= self.width() else 2
        if columns == self.columns:
            return
        self.columns = columns
        for i, key in enumerate(COUNTERS):
            row, column = divmod(i, columns)
            for widget, line in ((self.captions[key], 0), (self.values[key], 1)):
                self.grid.removeWidget(widget)
                self.grid.addWidget(widget, 2 * row + line, column)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._arrange()
        self._words_first()

    def _words_first(self) -> None:
        """The picture grows only into the room the last compile's reason leaves (up to
        ``REASON_LINES`` lines of it): words before a taller picture. Below that the reason
        is cut with "…" (its tooltip whole); the panel's minimum stays one line of it."""
        layout = self.layout()
        if layout is None or self.width() <= 0:
            return
        margins = layout.contentsMargins()
        width = self.width() - margins.left() - margins.right()
        words = self.reason.height_for(width, REASON_LINES)
        taken = margins.top() + margins.bottom() + 2 * layout.spacing()
        room = self.height() - taken - self.grid.sizeHint().height() - words
        self.canvas.setMaximumHeight(max(self.canvas.minimumHeight(), room))

    def _changed(self, change: Change) -> None:
        if change.cleared or change.new_segment:
            self.failed_ms = 0.0
            self.last_compile = None
        for served in change.served:
            r = served.record
            if r.kind.compiled:
                self.last_compile = r
            if r.kind is CallKind.ERROR:  # traced, never compiled: not "compiling" time
                self.failed_ms += r.trace_ms + r.lower_ms + r.compile_ms
        # Not throttled: labels are cheap and Qt paints the canvas once per frame anyway;
        # a phase change (a compile starting) must show at once.
        self.refresh()

    def retranslate(self) -> None:
        self.captions["calls"].setText(self.tr("Calls"))
        self.captions["compiles"].setText(self.tr("Compiles (recompiles)"))
        self.captions["hit_rate"].setText(self.tr("Cache hit rate"))
        tips = {
            "calls": self.tr("Calls made since the last reset or variant switch."),
            "compiles": self.tr("Calls that traced and compiled; in brackets, the recompiles."),
            "hit_rate": self.tr("Share of calls served from a card already in the holder."),
            "time_lost": self.tr(
                "Trace + lower + compile time: spent writing scripts, not cooking."
            ),
        }
        for key, tip in tips.items():
            self.captions[key].setToolTip(tip)
            self.values[key].setToolTip(tip)
        self.canvas.setToolTip(
            self.tr(
                "Chef Wang's kitchen. Rehearsal = tracing, script = compiling, card holder = "
                "jit's cache (one card per compiled signature), alarm = a recompile."
            )
        )
        self.reason.setToolTip(
            self.tr("Why the last compile happened, from jitlab's signature diff.")
        )
        self.refresh()

    def refresh(self) -> None:
        summary = self.state.segment_summary()
        self.values["calls"].setText(str(summary.calls))
        compiles = summary.compiles + summary.recompiles
        self.values["compiles"].setText(f"{compiles} ({summary.recompiles})")
        self.values["hit_rate"].setText(f"{summary.hit_rate:.0%}")
        failed_ms = min(self.failed_ms, summary.time_lost_ms)
        lost_ms = summary.time_lost_ms - failed_ms
        if failed_ms > 0 and not compiles:
            self.captions["time_lost"].setText(self.tr("Time lost tracing failed calls"))
            self.values["time_lost"].setText(format_ms(failed_ms))
        else:
            self.captions["time_lost"].setText(self.tr("Time lost to compiling"))
            self.values["time_lost"].setText(
                self.tr("%1 (+%2 failed)")
                .replace("%1", format_ms(lost_ms))
                .replace("%2", format_ms(failed_ms))
                if failed_ms > 0
                else format_ms(lost_ms)
            )
        # The newest compile's own reason, never an older one (nor a hit's or an error's).
        last = self.last_compile
        reason = reason_text(last.reason) if last is not None else ""
        error = self.state.last_error.error if self.state.last_error else None
        if reason and last is not None:
            text = self.tr("Last compile (call #%1), because: %2")
            text = text.replace("%1", str(last.index)).replace("%2", reason)
        elif last is not None:
            text = self.tr(
                "Last compile (call #%1): the first call of %2, nothing to compare it with."
            )
            text = text.replace("%1", str(last.index)).replace("%2", last.function or "?")
        elif summary.errors and error is not None:
            n = summary.calls
            text = (
                self.tr("%1 of %n call failed: %3. Nothing was compiled.", "", n)
                if n == 1
                else self.tr("%1 of %n calls failed: %3. Nothing was compiled.", "", n)
            )
            text = text.replace("%1", str(summary.errors)).replace("%3", error.type)
        else:
            text = self.tr("No compile yet: make a call to see why jit compiles.")
        self.reason.setText(text)
        self._words_first()
        self.canvas.update()
