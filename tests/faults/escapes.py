"""Terminal commands and invisible characters a crafted recording may hold in any string, and
what a face shows of them: :func:`raw_controls` finds every one that reached the output raw.

``HOSTILE`` is a template for :func:`hostile.make_hostile` (``{n}`` numbers each string): it
clears the screen, sets the window's title, writes "pwned" to the clipboard (OSC 52), erases
a line through C1's one-byte CSI, reverses the rest of the line (a right-to-left override),
writes over it (carriage return, backspace) and hides a character (zero-width space).
"""

from __future__ import annotations

import re

HOSTILE = (
    "\x1b[2J\x1b[1;1H"  # clear the screen, cursor home
    "\x1b]0;pwned M{n}\x07"  # the window's title
    "\x1b]52;c;cHduZWQ=\x07"  # OSC 52: "pwned" to the clipboard
    "\x9b2K"  # C1 CSI (one byte): erase the line
    "\u202eM{n}\u2066x\u2069"  # right-to-left override, then an isolate
    "\r\x08\u200b\x7f"  # carriage return, backspace, zero-width space, DEL
)
# What each face must show instead: the commands written out, readable.
SHOWN = ("\\x1b]52;c;cHduZWQ=\\x07", "\\x9b2K", "\\u202e")

# What a terminal output may hold raw: rich's colours (SGR) and the pty's "\r\n".
_SGR = re.compile(r"\x1b\[[0-9;]*m")
# Control (Cc), format (Cf: bidi, zero-width), line and paragraph separators (Zl, Zp).
_RAW = re.compile(
    r"[\x00-\x09\x0b-\x1f\x7f-\x9f\xad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]"
)


def raw_controls(output: str) -> list[str]:
    """Each control or invisible character in ``output`` that is not a colour or a line
    end, with what is around it (empty: nothing in it can drive the terminal)."""
    text = _SGR.sub("", output).replace("\r\n", "\n")
    return [repr(text[max(0, m.start() - 30) : m.end() + 30]) for m in _RAW.finditer(text)]
