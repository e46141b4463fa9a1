"""Colours, names and icons shared by every view, for the light and the dark scheme."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QIcon, QPalette

from jitlab.gui.i18n import translate
from jitlab.recordings.ledger import KIND_COLORS  # one table for the app and the report
from jitlab.records.calls import CallKind
from jitlab.records.paths import resource

_KIND_NAMES = {
    CallKind.COMPILE: QT_TRANSLATE_NOOP("Kinds", "first compile"),
    CallKind.RECOMPILE: QT_TRANSLATE_NOOP("Kinds", "recompile"),
    CallKind.CACHE_HIT: QT_TRANSLATE_NOOP("Kinds", "cache hit"),
    CallKind.PERSISTENT_HIT: QT_TRANSLATE_NOOP("Kinds", "persistent-cache hit"),
    CallKind.ERROR: QT_TRANSLATE_NOOP("Kinds", "error"),
    CallKind.EAGER: QT_TRANSLATE_NOOP("Kinds", "eager (jit disabled)"),
    CallKind.TRACED: QT_TRANSLATE_NOOP("Kinds", "traced into an outer computation"),
}

KIND_ORDER = (
    CallKind.COMPILE,
    CallKind.RECOMPILE,
    CallKind.CACHE_HIT,
    CallKind.PERSISTENT_HIT,
    CallKind.ERROR,
)


def kind_name(kind: CallKind) -> str:
    """The kind in the interface language."""
    return translate("Kinds", str(_KIND_NAMES[kind]))  # the stubs type the no-op as object


def kind_color(kind: CallKind) -> QColor:
    return QColor(KIND_COLORS[kind])


def is_dark() -> bool:
    """Whether the interface is dark: the application palette says it, since
    :func:`jitlab.gui.app.match_scheme` keeps it in step with the scheme (the system's,
    asked through Qt's colour-scheme API, or ``JITLAB_SCHEME``)."""
    return QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


def ink() -> str:
    """Text and axis lines on a chart's background, in the light or the dark scheme."""
    return "#d8dde6" if is_dark() else "#2b2f36"


def fixed_font() -> QFont:
    """The system's fixed-width font: code, jaxprs, HLO and printed lines."""
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


# What a line or a run boundary says about the variant that made it, on the live chart and
# the Complete page alike. No call kind's colour: red is a recompile, green a hit, and so on.
VARIANT_COLORS = {"pitfall": "#5c6370", "fix": "#3949ab", "other": "#8d6e63"}


_ICONS: dict[str, QIcon] = {}


def icon(path: Path | str) -> QIcon:
    """An image file's icon, loaded once: a built-in kitchen icon or one a plugin brought."""
    key = str(path)
    if key not in _ICONS:
        _ICONS[key] = QIcon(key)
    return _ICONS[key]


def named_icon(name: str) -> QIcon:
    """One of jitlab's own icons by name (the pot where there is none of that name)."""
    path = resource("icons", f"{name}.svg")
    return icon(path if path.exists() else resource("icons", "pot.svg"))
