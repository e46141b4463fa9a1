"""How much memory do ``jitlab summary`` and ``jitlab report`` take on large recordings?

    python benchmarks/hostile_memory.py [--args 1000000] [--lines 300000]

Two files, each read by the real CLI in a child process, its peak RSS taken from the
kernel (``os.wait4``):

* a recording whose one call line holds a signature of ``--args`` arguments (1,000,000:
  a 220 MB line), between two ordinary call lines. Before the line cap it took 1.4 GB to
  summarise and 1.7 GB to report; a line over ``MAX_LINE_BYTES`` is now skipped (counted,
  with its reason) as it is read.
* an ordinary recording of ``--lines`` lines (a third of them calls, the rest hits lines:
  ``merge_scale.write_recording``), for scale: memory there grows with the calls kept.

Prints the file sizes, peak RSS and wall time of each command, and the baseline RSS of a
command on a tiny recording (a child's peak starts from this process's RSS at fork: the
files are written here a line at a time, so that stays small).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from merge_scale import write_recording

JITLAB = Path(sys.executable).with_name("jitlab")
LEAF = {"path": "x", "shape": [8], "dtype": "float32", "weak_type": False, "sharding": None}


def _call(index: int, **more: object) -> str:
    line = {
        "type": "call",
        "index": index,
        "function": "f",
        "kind": "compile" if index == 0 else "recompile",
        "latency_ms": 5.0,
        "trace_ms": 1.0,
        "lower_ms": 1.0,
        "compile_ms": 2.0,
        "signature": {"args": [LEAF], "static": {}, "tree": "[*]"},
        "card": index,
        "defined_at": "t.py:1",
        "t": 0.1 * index,
        **more,
    }
    return json.dumps(line) + "\n"


def write_wide(path: Path, args: int) -> None:
    start = {"type": "start", "jitlab": "0", "jax": "0.10.2", "argv": ["t.py"], "time": 1.7e9}
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps(start) + "\n" + _call(0))
        # Written a leaf at a time: this process stays small, and a child's peak RSS starts
        # from its parent's (Linux counts the parent's pages at fork).
        head, _, tail = _call(1).partition(json.dumps([LEAF]))
        f.write(head + "[")
        for i in range(args):
            leaf = {**LEAF, "path": f"a[{i}]", "shape": [i % 7, 3]}
            f.write(("" if i == 0 else ", ") + json.dumps(leaf))
        f.write("]" + tail)
        f.write(_call(2) + json.dumps({"type": "end", "t": 9.0}) + "\n")


def peak(args: list[str], cwd: Path) -> tuple[float, float, str]:
    """Peak RSS (MiB) and wall seconds of one CLI run, and its last line of output."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [str(JITLAB), *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    out = child.stdout.read() if child.stdout else b""
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    lines = out.decode("utf-8", "replace").strip().splitlines()
    said = next((line for line in reversed(lines) if "skipped" in line), lines[-1] if lines else "")
    return usage.ru_maxrss / 1024, wall, f"(exit {child.returncode}) {said.strip()[:90]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--args", type=int, default=1_000_000)
    parser.add_argument("--lines", type=int, default=300_000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)
        tiny, wide, long = here / "tiny.jsonl", here / "wide.jsonl", here / "long.jsonl"
        write_wide(tiny, 1)
        write_wide(wide, options.args)
        write_recording(long, options.lines)
        for path in (tiny, wide, long):
            size = path.stat().st_size / 2**20
            for command in (["summary", path.name], ["report", path.name, "-o", "r.html"]):
                rss, wall, said = peak(command, here)
                print(
                    f"{path.name:<11} {size:8.1f} MiB  jitlab {command[0]:<8} "
                    f"peak RSS {rss:7.0f} MiB  {wall:6.1f} s  {said}"
                )


if __name__ == "__main__":
    main()
