"""The core's recompile reasons, in the interface language.

Reasons are data (:class:`~jitlab.core.records.Change`); the core renders them in English or
Chinese (:mod:`jitlab.core.changes`). The GUI only picks the language: nothing here parses
English text.
"""

from __future__ import annotations

from jitlab.core import changes
from jitlab.core.records import Change, Reason
from jitlab.gui.i18n import language


def change_text(change: Change) -> str:
    """One change in the interface language."""
    return changes.render(change, language())


def reason_text(reason: Reason | None) -> str:
    """The whole reason in the interface language."""
    return changes.reason_text(reason, language())
