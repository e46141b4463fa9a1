"""The core's recompile reasons, in the interface language.

Reasons are data (:class:`~jitlab.core.records.Change`); the core renders them in English or
Chinese (:mod:`jitlab.core.changes`). The GUI only picks the language: nothing here parses
English text. The one kind the core leaves as written is ``RECORDED`` (an older recording's
own English words): in Chinese it is introduced as such, so it never reads as a stray line
of untranslated interface.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP

from jitlab.core import changes
from jitlab.core.changes import ChangeKind
from jitlab.core.records import Change, Reason
from jitlab.gui.i18n import language, translate

_RECORDED = QT_TRANSLATE_NOOP("Reasons", "as the recording says: %1")


def change_text(change: Change) -> str:
    """One change in the interface language."""
    lang = language()
    text = changes.render(change, lang)
    if change.kind is ChangeKind.RECORDED and lang != "en":
        return translate("Reasons", _RECORDED).replace("%1", text)
    return text


def reason_text(reason: Reason | None) -> str:
    """The whole reason in the interface language."""
    if reason is None:
        return ""
    return "; ".join(change_text(change) for change in reason.items)
