"""Several recordings in one file (issue 51 rows 8 and 9), made by real programs: two
recordings joined with ``cat``, a program with two ``jitlab.watch("run.jsonl")`` blocks, and a
recording saved with a UTF-8 byte-order mark. Each is read with its compiles *and* its hits
summed, as JAX's own log counts them, and the readers say the file holds several recordings;
a byte-order mark loses nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jitlab.recordings.reader import read_recording

pytestmark = pytest.mark.slow

JITLAB = [sys.executable, "-m", "jitlab.cli"]
TIMEOUT = 300

CALLS = """\
import sys
import numpy as np
import jax
f = jax.jit(lambda x: x * 2)
for _ in range(int(sys.argv[1])):
    f(np.ones(3, np.float32))
"""

TWO_BLOCKS = """\
import numpy as np
import jax, jitlab
with jitlab.watch("run.jsonl"):
    f = jax.jit(lambda x: x * 2)
    for _ in range(5):
        f(np.ones(3, np.float32))
with jitlab.watch("run.jsonl"):
    for _ in range(3):
        f(np.ones(3, np.float32))
    f(np.ones(4, np.float32))
"""


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JAX_LOG_COMPILES": "1", "COLUMNS": "200"}
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def jax_compiles(stderr: str) -> int:
    return stderr.count("Compiling jit(<lambda>) ")


def summary(cwd: Path, name: str) -> tuple[dict, str]:
    as_json = json.loads(run([*JITLAB, "summary", "--json", name], cwd).stdout)
    return as_json, run([*JITLAB, "summary", name], cwd).stdout


def counts(as_json: dict) -> tuple[int, int]:
    (function,) = as_json["functions"]
    (seen,) = function["processes"].values()
    return seen["compiles"], seen["hits"]


def test_two_recordings_joined_with_cat_are_summed_and_said(tmp_path):
    logged = 0
    for name, calls in (("a.jsonl", "6"), ("b.jsonl", "4")):
        (tmp_path / "prog.py").write_text(CALLS)
        done = run([*JITLAB, "watch", "--out", name, "--", "python", "prog.py", calls], tmp_path)
        logged += jax_compiles(done.stderr)
    joined = (tmp_path / "a.jsonl").read_bytes() + (tmp_path / "b.jsonl").read_bytes()
    (tmp_path / "both.jsonl").write_bytes(joined)
    as_json, text = summary(tmp_path, "both.jsonl")
    # JAX compiled once per run; every other call was a hit: 5 + 3
    assert logged == 2 and counts(as_json) == (2, 5 + 3)
    assert as_json["notices"] == {"0": ["recordings_joined"]}
    assert "holds 2 recordings one after another" in " ".join(text.split())


def test_a_second_watch_block_into_one_file_goes_on_after_the_first(tmp_path):
    (tmp_path / "prog.py").write_text(TWO_BLOCKS)
    done = run([sys.executable, "prog.py"], tmp_path)
    lines = [json.loads(x) for x in (tmp_path / "run.jsonl").read_text().splitlines()]
    assert [x["type"] for x in lines].count("start") == 2  # the first block's lines kept
    as_json, text = summary(tmp_path, "run.jsonl")
    # f compiled for f32[3] in the first block and f32[4] in the second: JAX's log says 2
    assert counts(as_json) == (jax_compiles(done.stderr), 4 + 3) == (2, 7)
    assert "holds 2 recordings" in " ".join(text.split())


def test_a_byte_order_mark_loses_neither_the_start_line_nor_a_count(tmp_path):
    (tmp_path / "prog.py").write_text(CALLS)
    run([*JITLAB, "watch", "--out", "run.jsonl", "--", "python", "prog.py", "3"], tmp_path)
    plain = (tmp_path / "run.jsonl").read_bytes()
    (tmp_path / "bom.jsonl").write_bytes(b"\xef\xbb\xbf" + plain)
    with_mark, _ = read_recording(tmp_path / "bom.jsonl")
    without, _ = read_recording(tmp_path / "run.jsonl")
    assert with_mark.bad_lines == 0 and with_mark.start == without.start is not None
    assert with_mark.start.argv == ("prog.py", "3")
    as_json, _ = summary(tmp_path, "bom.jsonl")
    plain_json, _ = summary(tmp_path, "run.jsonl")
    assert counts(as_json) == counts(plain_json) == (1, 2)
    assert as_json["skipped_lines"] == {"0": 0} and not as_json.get("notices")
