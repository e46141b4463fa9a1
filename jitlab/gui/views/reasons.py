"""The core's recompile reasons, in the interface language.

Reasons are data (:class:`~jitlab.records.calls.Change`); the core renders them in English or
Chinese (:mod:`jitlab.records.change_words`). The GUI only picks the language: nothing here parses
English text. The one kind the core leaves as written is ``RECORDED`` (an older recording's
own English words): in Chinese it is introduced as such, so it never reads as a stray line
of untranslated interface.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP

from jitlab.gui.i18n import language, translate
from jitlab.records import change_words
from jitlab.records.calls import CallRecord, Change, Reason
from jitlab.records.changes import ChangeKind
from jitlab.records.error_words import explain_headline

_RECORDED = QT_TRANSLATE_NOOP("Reasons", "as the recording says: %1")
# An absolute path in a reason (a definition site, JAX's own words): up to a quote, a
# bracket, a space or the ``:line`` after it.
_ABSOLUTE = re.compile(r"(?<![\w.~])(/[^\s:'\"()\[\],;]+|[A-Za-z]:\\[^\s:'\"()\[\],;]+)")


@functools.lru_cache(maxsize=4096)  # the log asks again for every row it paints
def relative_path(path: str, folder: str | None = None) -> str:
    """``path`` as the user would type it from their folder: relative to it when inside,
    ``~/…`` under the home folder, else as it is."""
    try:
        here = Path(folder or os.getcwd()).resolve()
        target = Path(path).resolve()
    except (OSError, ValueError):
        return path
    if target.is_relative_to(here):
        return str(target.relative_to(here)) or "."
    home = Path.home()
    if target.is_relative_to(home):
        return "~" + os.sep + str(target.relative_to(home))
    return path


def relative_paths(text: str, folder: str | None = None) -> str:
    """Every absolute path in ``text`` shortened by :func:`relative_path`."""
    return _ABSOLUTE.sub(lambda m: relative_path(m.group(0), folder), text)


def change_text(change: Change, full: bool = False) -> str:
    """One change in the interface language (paths relative to the user's folder); a
    pytree structure change shortened unless ``full`` (the log's "Show the full
    difference")."""
    lang = language()
    if "/" in change.path or "\\" in change.path or "/" in change.detail:
        change = dataclasses.replace(
            change, path=relative_paths(change.path), detail=relative_paths(change.detail)
        )
    text = change_words.render(change, lang, full=full)
    if change.kind is ChangeKind.RECORDED and lang != "en":
        return translate("Reasons", str(_RECORDED)).replace("%1", text)
    return text


def reason_text(reason: Reason | None, full: bool = False) -> str:
    """The whole reason in the interface language (in full: see :func:`change_text`)."""
    if reason is None:
        return ""
    return "; ".join(change_text(change, full) for change in reason.items)


def shortened(reason: Reason | None) -> bool:
    """Does the reason read shorter than the record keeps it (a pytree's sub-trees)?"""
    return reason is not None and any(
        c.kind is ChangeKind.TREE_STRUCTURE
        and change_words.render(c) != change_words.render(c, full=True)
        for c in reason.items
    )


def error_words(record: CallRecord) -> str:
    """JAX's error headline explained in the interface language where that is not English
    (JAX's own words are English: they are shown as they are, beside this); "" when there
    is nothing to explain or no words for this error."""
    lang = language()[:2]
    if lang == "en" or record.error is None:
        return ""
    notes = record.notes or {}
    anatomy = notes.get("anatomy") if isinstance(notes.get("anatomy"), dict) else None
    words = (anatomy or {}).get("headline_explained")
    if isinstance(words, dict) and words.get(lang):
        return str(words[lang])
    found = explain_headline(record.error.type, (anatomy or {}).get("category"))
    return found.get(lang) if found is not None else ""
