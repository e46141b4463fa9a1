"""`jitlab watch`'s own words about diagnoses: identity-static said live (as recompile-limit
is), once per function and argument, and the end table followed by every diagnosis of the
recording (its id, sentence and page), in English and Chinese."""

from __future__ import annotations

from pathlib import Path

import pytest
from diagnosed_run import HOSTILE, Watched, watch

from jitlab.recordings.reader import read_recording
from jitlab.records.diagnoses import sentence


def test_identity_static_is_said_live_once(watched: Watched) -> None:
    live = [line for line in watched.stderr.splitlines() if line.startswith("jitlab: ")]
    said = [line.split(":")[1].strip() for line in live]
    assert said.count("identity-static") == 1  # two recompiles of step, one argument: once
    assert said.count("recompile-limit") == 2
    at = watched.stderr.index("jitlab: identity-static: step")
    # said while the program ran: before its last compile's log line and the end table
    assert at < watched.stderr.rindex("Compiling jit(step)")
    assert "__main__.Config" in watched.stderr[at:].splitlines()[0]


def test_the_end_table_lists_each_diagnosis(watched: Watched) -> None:
    recording = read_recording(watched.path)[0]
    ids = [d.id for d in recording.diagnoses]
    # step's Config, new each call, also keeps a new executable alive each time
    assert ids == ["recompile-limit", "identity-static", "recompile-limit", "executables-growing"]
    end = watched.stderr[watched.stderr.index("jitlab watch · ") :]  # the table and after
    listed = end[end.index("Diagnoses:") :]
    flat = " ".join(listed.split())  # the terminal may fold a long line
    for d in recording.diagnoses:
        assert " ".join(f"{d.id} · {sentence(d)} (jitlab explain {d.id})".split()) in flat
    assert HOSTILE in flat  # the name as written, not taken for console markup


@pytest.mark.parametrize("lang", ["zh"])
def test_the_end_table_lists_them_in_chinese(tmp_path: Path, lang: str) -> None:
    done = watch(tmp_path, lang)
    recording = read_recording(done.path)[0]
    end = done.stderr[done.stderr.index("诊断：") :]
    flat = " ".join(end.split())
    for d in recording.diagnoses:
        assert " ".join(f"{d.id} · {sentence(d, 'zh')}（jitlab explain {d.id}）".split()) in flat
    assert "jitlab：identity-static：" in done.stderr  # said live in Chinese too
