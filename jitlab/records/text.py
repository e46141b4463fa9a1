"""User-facing text in both languages, as data."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import cast


@dataclass(frozen=True)
class Text:
    """A piece of user-facing text in both languages."""

    en: str
    zh: str

    def get(self, language: str) -> str:
        return self.zh if language.startswith("zh") else self.en


def format_ms(ms: float) -> str:
    """A duration as the app, the report and the CLI print it: 0.42 ms, 37 ms, 1.25 s."""
    if ms >= 1000:
        return f"{ms / 1000:.2f} s"
    if ms >= 10:
        return f"{ms:.0f} ms"
    return f"{ms:.2f} ms"


_ZH_NUMBERS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7}
_ZH_NUMBERS.update({"八": 8, "九": 9, "十": 10})


def prediction_number(text: str) -> int | None:
    """The first count a learner's prediction names: "2 compiles", "两次", "三" (None when it
    names none). The app's summary page and a lesson notebook's verdict both read it."""
    match = re.search(r"\d+|[零一二两三四五六七八九十]", text)
    if match is None:
        return None
    token = match.group()
    return int(token) if token.isdigit() else _ZH_NUMBERS[token]


def format_bytes(value: object) -> str:
    """A byte count as people read it (``1.5 MiB``); ``?`` where JAX gave none."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return "?"
    size, unit = float(value), "B"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            break
        size /= 1024
    return f"{value} B" if unit == "B" else f"{size:.1f} {unit}"


# -- recorded text, shown ---------------------------------------------------------------
# A recording is data, and a crafted one may hold anything in a name or a reason: ESC and
# C1's CSI (\x9b) drive a terminal (clear it, set its title, write to the clipboard with
# OSC 52), a carriage return or backspace writes over what was shown, bidi overrides and
# isolates reorder a line, zero-width characters hide text. These are the code points
# Unicode calls control (Cc), format (Cf), line/paragraph separator (Zl, Zp) and surrogate
# (Cs: a lone one is a byte of a file name that was not UTF-8) — the union over Unicode 14
# to 15.1 (tests/records/test_text.py checks it against the running Python's tables).
_UNSEEN_RANGES = (
    "\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"
)
_UNSEEN = re.compile(f"[\x00-\x1f{_UNSEEN_RANGES}]")
# A text of several lines (a traceback, a script) keeps its line breaks and tabs.
_UNSEEN_IN_LINES = re.compile(f"[\x00-\x08\x0b-\x1f{_UNSEEN_RANGES}]")
# The same for a text all ASCII (most are): a class of a few bytes searches many times faster.
_ASCII_UNSEEN = re.compile("[\x00-\x1f\x7f]")
_ASCII_UNSEEN_IN_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def _unseen(text: str, lines: bool) -> re.Pattern[str]:
    if text.isascii():
        return _ASCII_UNSEEN_IN_LINES if lines else _ASCII_UNSEEN
    return _UNSEEN_IN_LINES if lines else _UNSEEN


_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}

FIELD_LIMIT = 500  # characters of one recorded field a face shows (the rest elided)
_ELIDED = Text(" … [{n} characters] … ", " … [共 {n} 个字符] … ")


def visible(
    text: str, lang: str = "en", *, limit: int | None = FIELD_LIMIT, lines: bool = False
) -> str:
    """Recorded text as every face shows it: each control or invisible format character
    written as Python writes it in a string (ESC as ``\\x1b``, a right-to-left override as
    ``\\u202e``), so it can neither drive a terminal nor reorder or hide what is shown;
    ``lines``: line breaks and tabs kept. Longer than ``limit`` characters, its head and
    tail around the count of its characters (in ``lang``): the cost of showing a field is
    bounded whatever its length."""
    if limit is not None and len(text) > limit:
        tail = limit // 3
        count = _ELIDED.get(lang).format(n=f"{len(text):,}")
        head, end = text[: limit - tail], text[len(text) - tail :]
        return (
            visible(head, lang, limit=None, lines=lines)
            + count
            + visible(end, lang, limit=None, lines=lines)
        )
    unseen = _unseen(text, lines)
    if unseen.search(text) is None:
        return text
    return unseen.sub(_visible, text)


def visible_value(text: str, lang: str = "en") -> str:
    """A recorded string as a face that shows whole texts shows it: a text of several lines
    (a script, a traceback) keeps its lines and its length, a one-line string is bounded
    (its elision said in ``lang``); either :func:`visible`."""
    lines = "\n" in text
    return visible(text, lang, limit=None if lines else FIELD_LIMIT, lines=lines)


def visible_strings(value: object, lang: str = "en") -> object:
    """A parsed JSON value with every string in it (keys too) :func:`visible_value`: a
    recording as a face that shows its strings raw reads it (a window's labels, whose bidi
    layout an override would reorder, and whose text layout costs grow with a name's
    length)."""
    if isinstance(value, str):
        return visible_value(value, lang)
    if isinstance(value, dict):
        items = cast(dict[object, object], value).items()
        return {visible_strings(k, lang): visible_strings(v, lang) for k, v in items}
    if isinstance(value, list):
        return [visible_strings(v, lang) for v in cast(list[object], value)]
    return value


# A run of characters without a quote longer than a field's bound: a string it may elide.
_LONG_RUN = re.compile(f'[^"]{{{FIELD_LIMIT + 1}}}')
_LONG_LINE = 4 * FIELD_LIMIT  # a shorter line is not searched for one (see may_hide)


def may_hide(line: str) -> bool:
    """Whether a line of JSON (one that parsed: no raw control character in its strings
    but DEL) may hold a string :func:`visible_strings` would change: an escape (``\\u001b``
    is ESC once parsed, ``\\r`` a carriage return), DEL, a C1 or format character, or, in
    a line longer than four fields' bounds, a string longer than one. Cheap on the usual
    line (two substring searches where it is ASCII): a window reads every line through it,
    so a string of up to four bounds in a short line is shown whole."""
    if "\\" in line:
        return True
    if line.isascii():
        if "\x7f" in line:
            return True
    elif _UNSEEN_IN_LINES.search(line) is not None:
        return True
    return len(line) > _LONG_LINE and _LONG_RUN.search(line) is not None


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def json_escaped(line: str) -> str:
    """A line of JSON with each character :func:`visible` writes out written as a JSON
    escape instead (``\\u009b``): the same data once parsed, nothing a terminal acts on
    (``json.dumps`` escapes C0 alone; C1, DEL and bidi overrides would go out raw)."""
    unseen = _unseen(line, lines=True)  # (a JSON line has no raw line breaks)
    if unseen.search(line) is None:
        return line
    return unseen.sub(_json_escape, line)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # beyond the BMP, JSON writes a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
