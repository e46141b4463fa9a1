"""How the CLI's tables break a line (:mod:`jitlab.cli._tables`): at spaces and after a path's
``/``, never inside a ``file:line`` that fits (issue 54, item 13)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from jitlab.cli._tables import Location, _packed

FOLDER = st.from_regex(r"[a-z_\-]{1,14}", fullmatch=True)
PLACE = st.builds(
    lambda folders, name, line: "/" + "/".join([*folders, f"{name}.py:{line}"]),
    st.lists(FOLDER, max_size=6),
    FOLDER,
    st.integers(1, 99_999),
)


@given(PLACE, st.integers(8, 90))
def test_a_place_breaks_only_after_a_folder(place: str, width: int) -> None:
    console = Console(width=width, color_system=None)
    with console.capture() as captured:
        console.print(Location(place))
    lines = captured.get().splitlines()
    assert all(len(line) <= width for line in lines)
    last = place.rsplit("/", 1)[1]
    if len(last) <= width:  # it fits: whole, and every folder is there
        assert lines[-1].endswith(last) and "".join(lines) == place
        if all(len(folder) < width for folder in place.split("/")[:-1]):  # (else folded)
            assert all(line.endswith("/") for line in lines[:-1]), lines
    else:  # its head elided, never its line
        assert lines[-1].startswith("…") and lines[-1].endswith(":" + last.rsplit(":", 1)[1])


@given(st.lists(st.one_of(PLACE, FOLDER), min_size=1, max_size=12), st.integers(24, 100))
def test_prose_keeps_each_file_and_line_whole(words: list[str], width: int) -> None:
    text = " ".join(words)
    lines = _packed(text, width)
    assert all(len(line) <= width for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    for place in re.findall(r"[^\s/]+\.py:\d+", text):
        if len(place) <= width:
            assert any(place in line for line in lines), (place, lines)
