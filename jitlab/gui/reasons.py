"""The core's recompile reasons, in the interface language.

The core writes its reasons in English plain words, built from a few fixed shapes (see
``jitlab.core.signature.diff`` and ``Probe._reason``). Each shape has a template here that
goes through Qt's catalogue; type texts such as ``f32[16,64]`` stay as they are.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QT_TRANSLATE_NOOP

from jitlab.core.records import Reason
from jitlab.gui.i18n import translate

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), template)
    for pattern, template in (
        (
            r"^first call: nothing compiled yet$",
            QT_TRANSLATE_NOOP("Reasons", "first call: nothing compiled yet"),
        ),
        (
            r"^first call in this process: executable loaded from the persistent cache$",
            QT_TRANSLATE_NOOP(
                "Reasons", "first call in this process: executable loaded from the persistent cache"
            ),
        ),
        (r"^caches were cleared$", QT_TRANSLATE_NOOP("Reasons", "caches were cleared")),
        (r"^signature unavailable$", QT_TRANSLATE_NOOP("Reasons", "signature unavailable")),
        (
            r"^same signature as a card already held",
            QT_TRANSLATE_NOOP(
                "Reasons", "same signature as a card already held: JAX's cache no longer had it"
            ),
        ),
        (r"^new function object$", QT_TRANSLATE_NOOP("Reasons", "new function object")),
        (
            r"^first call of this function object$",
            QT_TRANSLATE_NOOP("Reasons", "first call of this function object"),
        ),
        (r"^new argument (.+): (.+)$", QT_TRANSLATE_NOOP("Reasons", "new argument %1: %2")),
        (
            r"^weak type of (.+) changed: (\w+) ← (\w+) \((.*)\)$",
            QT_TRANSLATE_NOOP("Reasons", "weak type of %1 changed: %2 ← %3 (%4)"),
        ),
        (
            r"^sharding of (.+) changed: (.+) ← (.+)$",
            QT_TRANSLATE_NOOP("Reasons", "sharding of %1 changed: %2 ← %3"),
        ),
        (
            r"^argument (.+) gone \(was (.+)\)$",
            QT_TRANSLATE_NOOP("Reasons", "argument %1 gone (was %2)"),
        ),
        (
            r"^pytree structure changed: (.+) ← (.+)$",
            QT_TRANSLATE_NOOP("Reasons", "pytree structure changed: %1 ← %2"),
        ),
        (r"^static (\S+): (.+) \(new\)$", QT_TRANSLATE_NOOP("Reasons", "static %1: %2 (new)")),
        (r"^static (\S+) gone$", QT_TRANSLATE_NOOP("Reasons", "static %1 gone")),
        (r"^static (\S+): (.+) ← (.+)$", QT_TRANSLATE_NOOP("Reasons", "static %1: %2 ← %3")),
    )
)

_WORDS = {
    "weak": QT_TRANSLATE_NOOP("Reasons", "weak"),
    "strong": QT_TRANSLATE_NOOP("Reasons", "strong"),
    "single device": QT_TRANSLATE_NOOP("Reasons", "single device"),
}


def change_text(change: str) -> str:
    """One change in the interface language (unknown shapes pass through unchanged)."""
    for pattern, template in _PATTERNS:
        match = pattern.match(change)
        if match is None:
            continue
        text = translate("Reasons", template)
        for i, group in enumerate(match.groups(), start=1):
            if group in _WORDS:
                group = translate("Reasons", _WORDS[group])
            text = text.replace(f"%{i}", group)
        return text
    return change


def reason_text(reason: Reason | None) -> str:
    """The whole reason, translated change by change."""
    if reason is None:
        return ""
    return "; ".join(change_text(change) for change in reason.changes)
