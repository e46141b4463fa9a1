"""`jitlab watch` is transparent: the program's exit, its streams, and every hit counted."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from environment_lines import program_lines

pytestmark = pytest.mark.slow

JITLAB = str(Path(sys.executable).with_name("jitlab"))


def watch(tmp_path: Path, program: str, *extra: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(program), encoding="utf-8")
    out = extra[extra.index("--out") + 1] if "--out" in extra else str(tmp_path / "rec.jsonl")
    options = [] if "--out" in extra else ["--out", out]
    return subprocess.run(
        [JITLAB, "watch", *options, *extra, "--", "python", str(script)],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
    )


def test_sys_exit_with_a_message_prints_it_and_exits_1_like_python(tmp_path):
    done = watch(tmp_path, "import sys\nprint('working')\nsys.exit('bad config: lr < 0')\n")
    plain = subprocess.run(
        [sys.executable, str(tmp_path / "prog.py")], capture_output=True, text=True
    )
    assert done.returncode == plain.returncode == 1
    assert "bad config: lr < 0" in done.stderr
    assert done.stdout.startswith("working")


def test_an_exit_status_is_kept(tmp_path):
    assert watch(tmp_path, "import sys\nsys.exit(3)\n").returncode == 3
    assert watch(tmp_path, "import sys\nsys.exit(None)\n").returncode == 0


def test_out_naming_a_folder_or_an_unwritable_place_is_one_line_and_exit_2(tmp_path):
    folder = tmp_path / "recordings"
    folder.mkdir()
    for out in (str(folder), "/proc/jitlab-cannot-write-here/run.jsonl"):
        done = watch(tmp_path, "print('never runs')\n", "--out", out)
        assert done.returncode == 2, done.stderr
        assert len(program_lines(done.stderr)) == 1, done.stderr
        assert program_lines(done.stderr)[0].startswith("jitlab: error: watch:")
        assert "never runs" not in done.stdout
        assert "Traceback" not in done.stderr


FACTORY = """
import jax, jax.numpy as jnp

def make(scale):
    return jax.jit(lambda x: x * scale)  # one definition site, a new function each time

x = jnp.ones(4)
for i in range(3):
    f = make(float(i))
    for _ in range(370):
        f(x)
print("done")
"""


def test_factory_made_jits_are_one_function_with_every_hit_summed(tmp_path):
    done = watch(tmp_path, FACTORY)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in (tmp_path / "rec.jsonl").read_text().splitlines()]
    calls = [line for line in lines if line["type"] == "call" and line["function"] == "<lambda>"]
    assert [c["kind"] for c in calls] == ["compile", "recompile", "recompile"]
    hits = [line["hits"] for line in lines if line["type"] == "hits"]
    assert hits[-1] == 3 * 369  # every instance's hits, not the last one's
    assert "1107" in done.stderr  # the summary table says so too
