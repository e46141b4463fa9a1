"""`jitlab watch`'s end table lists the changes that explain the most compiles and then says
how many more there are, as the notebook's table does: it listed four and dropped the rest
silently (issue 54's leftover d)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitlab
from jitlab.cli import _usage
from jitlab.cli.watch import print_watch_summary
from jitlab.notebook.render import recording_text
from jitlab.recordings.reader import read_recording
from jitlab.recordings.summary import CHANGES_IN_A_TABLE, summarize
from jitlab.records import messages

SIZES = (3, 5, 7, 9, 11, 13, 15)  # a new shape each call: six recompiles, six kinds of words


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("watch") / "run.jsonl"
    with jitlab.watch(path):

        @jax.jit
        def wobbly(x):
            return (x * 2).sum()

        for n in SIZES:
            wobbly(jnp.ones(n)).block_until_ready()
    return path


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_end_table_says_how_many_changes_it_left_out(
    recording: Path, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(_usage._state, "language", lang)  # as `jitlab --lang zh watch`
    (row,) = [s for s in summarize(read_recording(recording)[0]) if s.function == "wobbly"]
    kinds = len(row.change_words(lang))
    assert row.recompiles == len(SIZES) - 1 == kinds > CHANGES_IN_A_TABLE  # a real recompile each
    more = messages.say("n.more", lang, n=kinds - CHANGES_IN_A_TABLE)
    out = io.StringIO()
    print_watch_summary(str(recording), file=out)
    table = out.getvalue()
    assert more in table, table
    rows = [line for line in table.splitlines() if "│" in line]  # the table's, not a notice's
    assert sum(len(re.findall(r"×1\s+│", row)) for row in rows) == CHANGES_IN_A_TABLE, table
    assert more in recording_text(read_recording(recording)[0], "t", lang)  # the same words
