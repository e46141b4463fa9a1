"""The equations of an annotated jaxpr and the source lines that made them."""

from __future__ import annotations

import re
from dataclasses import dataclass

_WHERE = re.compile(r"#\s+(?P<file>.+?):(?P<line>\d+)(?::\d+)?\s+\((?P<fn>.*)\)\s*$")


@dataclass(frozen=True)
class EquationSpan:
    """One equation in the annotated jaxpr text: its text lines and the user's line."""

    first: int  # text line (block number) of the equation
    last: int  # its last line (params printed over several lines end with ``] args``)
    file: str
    line: int
    function: str


def equation_spans(text: str) -> list[EquationSpan]:
    """Equations of an annotated jaxpr (``pretty_print(source_info=True)``), in text order.

    An equation's first line ends with ``# file:line:column (function)``; when its params
    take several lines (``dot_general[`` … ``] e d``) the span runs to the closing bracket,
    unless another equation starts in between (a scan's body: the body's own equations).
    """
    lines = text.splitlines()
    starts = [(i, m) for i, line in enumerate(lines) if (m := _WHERE.search(line)) is not None]
    first_lines = {i for i, _ in starts}
    spans = []
    for i, m in starts:
        code = lines[i][: m.start()].rstrip()
        last = i
        if code.endswith("["):
            indent = len(code) - len(code.lstrip())
            for j in range(i + 1, len(lines)):
                if j in first_lines:
                    break
                stripped = lines[j].lstrip()
                if stripped.startswith("]") and len(lines[j]) - len(stripped) == indent:
                    last = j
                    break
        spans.append(EquationSpan(i, last, m["file"], int(m["line"]), m["fn"]))
    return spans
