"""The lab window's scenario list: scenarios grouped by chapter, broken plugins greyed with
their error, and the exercises' entry last; and :class:`Catalogue`, what it lists.

:class:`Catalogue` owns what the lab can open and what was asked for: the built-ins'
manifest listing (before JAX has loaded), discovery's entries (after), and the scenario (and
variant) that the command line or a pick from the early list asked for.

The words keep the window's ``tr`` context ("MainWindow"), where their translations live.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem
from superqt.utils import signals_blocked

from jitlab.gui.i18n import translate
from jitlab.gui.plain import tip as plain_tip
from jitlab.gui.style import icon, named_icon
from jitlab.lab.manifest import Listing, stale_notice
from jitlab.lab.spec import Scenario, icon_file

QUIZ = "__quiz__"  # the list's entry for the exercises (its item's user data)
DEFAULT_SCENARIO = "dynamic-shapes"


class Catalogue:
    """What the lab can open, and what was asked for (see the module's doc)."""

    def __init__(
        self, listed: Sequence[Listing], requested: str | None, requested_variant: str | None
    ) -> None:
        self.listed = listed  # from the built-ins' manifest, at once
        self.entries: list[Any] = []  # jitlab.lab.discovery.PluginEntry, once discovery ends
        self.requested = requested
        self.requested_variant = requested_variant

    def ids(self) -> list[str]:
        """The discovered scenarios' ids (none before discovery has ended)."""
        return [e.scenario.id for e in self.entries if e.scenario is not None]

    def class_of(self, sid: str) -> type[Scenario] | None:
        return next((e.scenario for e in self.entries if e.scenario and e.scenario.id == sid), None)

    def ask(self, sid: str, variant: str | None) -> None:
        """A pick before discovery has ended: it opens when discovery does."""
        self.requested, self.requested_variant = sid, variant

    def early(self, last: str) -> tuple[Listing, str | None] | None:
        """Before discovery: the listing to show (the one asked for, else ``last`` opened,
        else the default) and the variant asked for with it."""
        listed = {listing.id: listing for listing in self.listed}
        for candidate in (self.requested, last, DEFAULT_SCENARIO):
            if candidate and candidate in listed:
                variant = self.requested_variant if candidate == self.requested else None
                return listed[candidate], variant
        return None

    def land(self, entries: list[Any], last: str) -> str | None:
        """Discovery ended with ``entries``: the id to open (the one asked for, else ``last``
        opened, else the default, else the first), or None when none loaded."""
        self.entries = entries
        ids = self.ids()
        return next((c for c in (self.requested, last, DEFAULT_SCENARIO, *ids) if c in ids), None)

    def unknown(self) -> str | None:
        """The scenario asked for, if discovery found none of that id."""
        return self.requested if self.requested and self.requested not in self.ids() else None

    def fill(self, tree: QTreeWidget, current: str | None, lang: str) -> None:
        """Rebuild ``tree``: discovery's entries, or the manifest's listing until then."""
        fill(tree, self.entries or self.listed, current, lang)


def fill(tree: QTreeWidget, entries: Sequence[Any], current: str | None, lang: str) -> None:
    """Rebuild ``tree`` from discovery's ``entries`` (``PluginEntry`` or the manifest's
    listing), ``current`` (a scenario id) selected; rebuilding is not the user picking."""
    with signals_blocked(tree):
        tree.clear()
        _fill(tree, entries, current, lang)


def _fill(tree: QTreeWidget, entries: Sequence[Any], current: str | None, lang: str) -> None:
    notice = stale_notice()  # a built-in file changed since the manifest: say it, one line
    if notice is not None:
        stale = QTreeWidgetItem(tree, [notice.get(lang)])
        stale.setIcon(0, named_icon("broken"))
        stale.setFlags(Qt.ItemFlag.ItemIsEnabled)  # read, never picked
        stale.setToolTip(0, plain_tip(notice.get(lang)))
    groups: dict[Any, QTreeWidgetItem] = {}
    for entry in entries:
        try:  # validated, yet a plugin's own code runs here: one row must not cut the list
            _add(tree, groups, entry, entry.scenario, entry.error, current, lang)
        except Exception as exc:
            _add(tree, groups, entry, None, f"{type(exc).__name__}: {exc}", current, lang)
    quiz = QTreeWidgetItem(tree, [translate("MainWindow", "Test yourself")])
    quiz.setIcon(0, named_icon("cards"))
    quiz.setData(0, Qt.ItemDataRole.UserRole, QUIZ)
    quiz.setToolTip(
        0,
        translate(
            "MainWindow",
            "Exercises and interview rounds: predict what jax.jit will do, then a real "
            "run settles it (Ctrl+T).",
        ),
    )
    font = quiz.font(0)
    font.setBold(True)
    quiz.setFont(0, font)
    tree.expandAll()


def _add(
    tree: QTreeWidget,
    groups: dict[Any, QTreeWidgetItem],
    entry: Any,
    cls: Any,
    error: str | None,
    current: str | None,
    lang: str,
) -> None:
    """One entry's row under its chapter's group (broken ones under their own). What the
    plugin declares is read first, so a plugin that raises adds no half-built row."""
    if cls is None:
        key, title = None, translate("MainWindow", "Broken plugins")
        # A plugin's error and texts are its own words: tips show them as written.
        text, tip = (
            entry.name,
            translate("MainWindow", "Failed to load: %1").replace("%1", error or ""),
        )
        image, sid = named_icon("broken"), None
    else:
        key, title = cls.chapter, cls.chapter.title.get(lang)  # discovery gives chapter order
        text, tip = cls.title.get(lang), f"{cls.id}: {cls.question.get(lang)}"
        image, sid = icon(icon_file(cls)), cls.id
    if key not in groups:
        group = QTreeWidgetItem(tree, [title])
        group.setFlags(Qt.ItemFlag.ItemIsEnabled)
        font = group.font(0)
        font.setBold(True)
        group.setFont(0, font)
        group.setToolTip(0, plain_tip(title))
        groups[key] = group
    item = QTreeWidgetItem(groups[key], [text])
    item.setIcon(0, image)
    item.setToolTip(0, plain_tip(tip))
    if sid is None:
        item.setFlags(Qt.ItemFlag.NoItemFlags)  # greyed, not selectable
    else:
        item.setData(0, Qt.ItemDataRole.UserRole, sid)
        item.setSelected(sid == current)
