"""The core's recompile reasons, in the interface language.

Reasons are data (:class:`~jitlab.core.records.Change`); the core renders them in English or
Chinese (:mod:`jitlab.core.changes`). The GUI only picks the language: nothing here parses
English text.
"""

from __future__ import annotations

from typing import Any

from jitlab.core import changes
from jitlab.core.records import Change, Reason
from jitlab.gui.i18n import language


def change_text(change: Change) -> str:
    """One change in the interface language."""
    return changes.render(change, language())


def reason_text(reason: Reason | None) -> str:
    """The whole reason in the interface language."""
    return changes.reason_text(reason, language())


def reason_of(call: dict[str, Any]) -> Reason | None:
    """The typed reason of a recorded call line (both the structured and older forms)."""
    data = call.get("reason")
    return Reason.from_json(data) if data else None
