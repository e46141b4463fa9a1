"""Recorded strings (function names, signatures, reasons, a program's output and errors)
shown as text, never as markup.

Qt guesses: a label in ``AutoText`` and every tooltip is rendered as rich text when its first
line looks like markup, so a function named ``<b>SPOOFED</b>`` would show bold, ``<lambda>``
vanish as an unknown tag, and ``<img src=/dev/zero>`` make Qt read ``/dev/zero`` until it runs
out of memory. Labels that show recorded strings are ``PlainText``; where a text must be rich
(bold parts, line breaks), each recorded part goes through :func:`escape`; a tooltip made of
plain lines goes through :func:`tip`.
"""

from __future__ import annotations

import html

from PySide6.QtGui import Qt


def escape(text: object) -> str:
    """``text`` for a rich-text label or tooltip: shown as written."""
    return html.escape(str(text), quote=False)


def tip(text: str) -> str:
    """A plain-text tooltip, as written: left as it is unless Qt would take it for markup
    (then converted to the rich text that shows it literally)."""
    if not Qt.mightBeRichText(text):
        return text
    return Qt.convertFromPlainText(text, Qt.WhiteSpaceMode.WhiteSpaceNormal)
