"""The lab window's scenario list: scenarios grouped by chapter, broken plugins greyed with
their error, and the exercises' entry last.

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
from jitlab.lab.manifest import stale_notice
from jitlab.lab.spec import icon_file

QUIZ = "__quiz__"  # the list's entry for the exercises (its item's user data)


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
        cls = entry.scenario
        key = cls.chapter if cls is not None else None  # discovery gives chapter order
        if key not in groups:
            title = (
                key.title.get(lang)
                if key is not None
                else translate("MainWindow", "Broken plugins")
            )
            group = QTreeWidgetItem(tree, [title])
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            group.setToolTip(0, plain_tip(title))
            groups[key] = group
        item = QTreeWidgetItem(groups[key])
        if cls is None:
            item.setText(0, entry.name)
            item.setIcon(0, named_icon("broken"))
            item.setFlags(Qt.ItemFlag.NoItemFlags)  # greyed, not selectable
            # A plugin's error and texts are its own words: tips show them as written.
            failed = translate("MainWindow", "Failed to load: %1").replace("%1", entry.error or "")
            item.setToolTip(0, plain_tip(failed))
        else:
            item.setText(0, cls.title.get(lang))
            item.setIcon(0, icon(icon_file(cls)))
            item.setData(0, Qt.ItemDataRole.UserRole, cls.id)
            item.setToolTip(0, plain_tip(f"{cls.id}: {cls.question.get(lang)}"))
            if cls.id == current:
                item.setSelected(True)
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
