"""Tables that fit the terminal they are printed on: ``jitlab summary``, ``jitlab diff`` and
the table ``jitlab watch`` prints at the end.

A table is built as usual, wide; :func:`fitted` keeps it when its first column (the function)
can stay readable at the console's width, else it stacks each row: the first cell on its own
lines, then one ``header  value`` line per other column. At 40 columns every function is
still named, its path folded, no count truncated to "…".

Every recorded string goes in through :func:`shown` (a line of words that holds one:
:func:`prose`; a place in a program: :class:`Location`): written as it is, never as markup or
as a command to the terminal, and bounded, so the cost of a table stays linear in what the
recording holds; a ``file:line`` is never broken.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from typing import IO, Any

from rich.cells import cell_len, chop_cells
from rich.console import Console, ConsoleOptions, Group, RenderableType
from rich.markup import escape
from rich.measure import Measurement
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from jitlab.cli._usage import language
from jitlab.records.text import FIELD_LIMIT, visible

NOT_A_TERMINAL = 120  # columns of a table written to a file or a pipe
FIRST_MIN = 16  # the narrowest first (function) column a wide table may give it
WRAPPED_MIN = 12  # the narrowest a column that wraps its text may be


def console_for(stream: IO[str] | None = None) -> Console:
    """A console on ``stream`` (stdout when None) as wide as its terminal — ``TERM=dumb``
    included, where rich alone assumes 80 columns — or 120 columns when it is not one.
    Nothing is highlighted: rich's highlighter would colour recorded names as if they were
    Python, and its patterns take time that grows with the square of a long line's length
    (a 30,000-character name held ``summary`` for 15 s)."""
    columns, rows = size_of(sys.stdout if stream is None else stream)
    # both sizes: else rich's dumb 80x25
    return Console(file=stream, width=columns, height=rows, highlight=False)


def shown(text: object, *, lines: bool = False, limit: int | None = FIELD_LIMIT) -> str:
    """A recorded string (or a line that holds one) as markup that prints it as written:
    markup escaped, each control character written out, one longer than ``limit`` elided
    with its length (:func:`jitlab.records.text.visible`); ``lines``: line breaks kept."""
    return escape(visible(str(text), language(), lines=lines, limit=limit))


# A line's break opportunities: its spaces, and after each "/" of a path (a folder's end).
_PIECES = re.compile(r"[^\s/]*/|[^\s/]+|\s+")


def _packed(text: str, width: int) -> list[str]:
    """``text`` in lines of ``width`` cells at most, broken at spaces and after a ``/``
    only: a place's ``file.py:22`` stays whole unless it alone is wider than a line (then
    folded, as rich folds a long word)."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for piece in _PIECES.findall(paragraph):
            if line.strip() and cell_len(line) + cell_len(piece.rstrip()) > width:
                lines.append(line.rstrip())
                line = ""
                if piece.isspace():
                    continue
            line += piece
            while cell_len(line.rstrip()) > width:  # one piece wider than a line
                head, *rest = chop_cells(line, width)
                lines.append(head)
                line = "".join(rest)
        lines.append(line.rstrip())
    return lines


class Prose:
    """A line of text (a diagnosis, a divergence, a file's name) that wraps at spaces and
    after a path's ``/``, never inside a ``file:line`` (rich's folding broke ``train.py:22``
    into ``train.py:2`` and ``2``)."""

    def __init__(self, text: str, style: str = "") -> None:
        self.text = text
        self.style = style

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        pieces = _PIECES.findall(self.text) or [""]
        widest = max(cell_len(line) for line in self.text.split("\n"))
        return Measurement(max(cell_len(p.strip()) for p in pieces), widest).clamp(
            max_width=options.max_width
        )

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        lines = _packed(self.text, max(options.max_width, 2))
        yield Text("\n".join(lines), style=self.style, no_wrap=True, overflow="ignore")


def prose(text: object, style: str = "", indent: int = 0) -> RenderableType:
    """A line that holds recorded strings, as :class:`Prose` (each control character
    written out, a long one elided with its length), its lines indented by ``indent``."""
    made = Prose(visible(str(text), language()), style)
    return Padding(made, (0, 0, 0, indent)) if indent else made


class Location(Prose):
    """A place in a program (``models/train.py:22``) in a table's cell, broken only after a
    ``/``; a ``file:line`` wider than the column loses its head, never its line."""

    def __init__(self, place: str, style: str = "dim") -> None:
        super().__init__(visible(place, language()), style)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        width = max(options.max_width, 2)
        folders, _, last = self.text.rpartition("/")
        lines = _packed(folders + "/", width) if folders or self.text.startswith("/") else []
        if lines and cell_len(lines[-1]) + cell_len(last) <= width:
            lines[-1] += last  # the file:line on the line of its last folder, when it fits
        else:
            fits = cell_len(last) <= width
            lines.append(last if fits else "…" + _last_cells(last, width - 1))
        yield Text("\n".join(lines), style=self.style, no_wrap=True, overflow="ignore")


def _last_cells(text: str, width: int) -> str:
    """The end of ``text`` that fits ``width`` cells."""
    taken = 0
    for i in range(len(text) - 1, -1, -1):
        taken += cell_len(text[i])
        if taken > width:
            return text[i + 1 :]
    return text


def function_cell(head: str, where: str | None) -> RenderableType:
    """A table's first cell: the function (``head``, markup already made with
    :func:`shown`) over the place it is defined (a :class:`Location`), when known."""
    if not where:
        return head
    return Group(Text.from_markup(head, overflow="fold"), Location(where))


def size_of(stream: Any) -> tuple[int, int]:
    """The terminal's columns and rows (``COLUMNS`` and ``LINES`` first, as rich and the
    shell read them); 120 columns when ``stream`` is not a terminal."""
    try:
        terminal = stream.isatty()
        fd = stream.fileno() if terminal else -1
    except (AttributeError, ValueError, OSError):
        terminal = False
    try:
        columns, rows = os.get_terminal_size(fd) if terminal else (NOT_A_TERMINAL, 25)
    except OSError:
        columns, rows = 80, 25
    given = os.environ.get("COLUMNS", ""), os.environ.get("LINES", "")
    if terminal and given[0].isdigit() and int(given[0]) > 0:
        columns = int(given[0])
    if given[1].isdigit() and int(given[1]) > 0:
        rows = int(given[1])
    return columns or 80, rows or 25


def fitted(table: Table, console: Console) -> RenderableType:
    """``table`` itself when it fits ``console`` with a readable first column (which then
    never shrinks below :data:`FIRST_MIN`); else the same cells stacked (:func:`stacked`)."""
    if narrowest(table, console) <= console.width:
        table.columns[0].min_width = FIRST_MIN
        return table
    return stacked(table)


def narrowest(table: Table, console: Console) -> int:
    """The fewest columns ``table`` needs with every column but the first whole (the ones
    that wrap at :data:`WRAPPED_MIN` at most) and the first at :data:`FIRST_MIN`."""
    columns = table.columns
    count = len(columns)
    _top, right, _bottom, left = table.padding
    edges = (count - 1 + (2 if table.show_edge else 0)) if table.box else 0
    needed = edges + count * (left + right) + FIRST_MIN
    for column in columns[1:]:
        cells = [column.header, *column.cells]
        widths = [Measurement.get(console, console.options, _renderable(c, console)) for c in cells]
        if column.no_wrap:
            needed += max(w.maximum for w in widths)
        else:
            needed += min(max(w.minimum for w in widths), WRAPPED_MIN)
    return needed


def stacked(table: Table) -> Table:
    """One column, under the first column's header: per row, its first cell (the function,
    its path folded), then each other column's header and value on a line of its own. A row
    whose first cell is empty (another process of the same function) follows the row above
    without a rule between them."""
    first, rest = table.columns[0], table.columns[1:]
    out = Table(title=table.title, show_lines=False)
    out.add_column(first.header, overflow="fold")
    firsts = list(first.cells)
    columns = [list(c.cells) for c in rest]
    for i, name in enumerate(firsts):
        pairs = Table.grid(padding=(0, 1))
        pairs.add_column(justify="right", style="dim", no_wrap=True)
        pairs.add_column(overflow="fold")
        for column, cells in zip(rest, columns, strict=True):
            value = cells[i]
            if value == "":  # nothing to say (no change named): no line
                continue
            pairs.add_row(column.header, value)
        parts: list[RenderableType] = [name, pairs] if name != "" else [pairs]
        last = i + 1 == len(firsts) or firsts[i + 1] != ""
        out.add_row(Group(*parts), end_section=last)
    return out


def _renderable(cell: Any, console: Console) -> Any:
    return console.render_str(cell) if isinstance(cell, str) else cell
