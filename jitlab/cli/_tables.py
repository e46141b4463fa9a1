"""Tables that fit the terminal they are printed on: ``jitlab summary``, ``jitlab diff`` and
the table ``jitlab watch`` prints at the end.

A table is built as usual, wide; :func:`fitted` keeps it when its first column (the function)
can stay readable at the console's width, else it stacks each row: the first cell on its own
lines, then one ``header  value`` line per other column. At 40 columns every function is
still named, its path folded, no count truncated to "…".
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any

from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.table import Table

NOT_A_TERMINAL = 120  # columns of a table written to a file or a pipe
FIRST_MIN = 16  # the narrowest first (function) column a wide table may give it
WRAPPED_MIN = 12  # the narrowest a column that wraps its text may be


def console_for(stream: IO[str] | None = None) -> Console:
    """A console on ``stream`` (stdout when None) as wide as its terminal — ``TERM=dumb``
    included, where rich alone assumes 80 columns — or 120 columns when it is not one."""
    columns, rows = size_of(sys.stdout if stream is None else stream)
    return Console(file=stream, width=columns, height=rows)  # both: else rich's dumb 80x25


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
