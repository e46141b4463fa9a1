"""How do the readers' costs grow with the length of one recorded field?

    python benchmarks/long_fields.py [--lengths 1000,10000,30000,100000,1000000]
                                     [--field function] [--rounds 3] [--timeout 120]

One recording per length, its field (a function's name by default; ``defined_at`` or
``called_from`` with ``--field``) that many characters long, read by each reader as a user runs
it, in a child process: ``summary`` of one file, ``summary`` of a two-process job that
diverged (its divergence's line names the function), ``diff``, the table ``jitlab watch``
prints at its end (``print_watch_summary``, what watch calls), ``report``, the notebook's
text and ``jitlab open``'s window (offscreen, every function picked and painted). The
baseline is the same recording with a 10-character field, run in the same session.

Prints, per reader and length: the median wall time of ``--rounds`` runs with their spread,
its ratio to the baseline, the time per character beyond the baseline's, peak RSS, and the
output's size. Linear readers show a flat time per character (and bounded ones a ratio near
1); a quadratic one's time per character grows with the length (a 30,000-character name made
``summary`` of a job take 15.6 s). A run past ``--timeout`` is stopped and said so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from hostile_memory import _call

JITLAB = Path(sys.executable).with_name("jitlab")
WATCH_TABLE = "import sys; from jitlab.cli.watch import print_watch_summary as p; p(sys.argv[1])"
# `jitlab open`'s window, offscreen: read, every function picked, painted once.
WINDOW = """
import sys
from pathlib import Path
from PySide6.QtCore import QSettings
from jitlab.gui.app import application
from jitlab.gui.recording.window import open_recording_window
app = application()
settings = QSettings(sys.argv[2], QSettings.Format.IniFormat)
window = open_recording_window(Path(sys.argv[1]), False, settings=settings)
window.show()
while window.loading or not window.lanes():
    app.processEvents()
for lane in window.lanes():
    window.pick(lane)
    for _ in range(20):
        app.processEvents()
window.grab()
"""
NOTEBOOK = (
    "import sys; from jitlab.recordings.reader import read_recording; "
    "from jitlab.notebook.render import file_recording_text as t; "
    "print(t(read_recording(sys.argv[1])[0]))"
)


def write(path: Path, field: str, length: int, compiles: int, process: int | None) -> None:
    """A recording of one function compiled ``compiles`` times, ``field`` ``length`` long."""
    text = ("f_" * length)[:length] + ("" if field == "function" else ":1")
    start = {"type": "start", "jitlab": "0", "jax": "0.10.2", "argv": ["t.py"], "time": 1.7e9}
    if process is not None:
        start["process"] = process
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps(start) + "\n")
        for i in range(compiles):
            f.write(_call(i, called_from="t.py:9", **{field: text}))
        f.write(json.dumps({"type": "end", "t": 9.0}) + "\n")


def readers() -> dict[str, list[str]]:
    python = sys.executable
    return {
        "summary": [str(JITLAB), "summary", "one.jsonl"],
        "summary (job)": [str(JITLAB), "summary", "job.p0.jsonl", "job.p1.jsonl"],
        "diff": [str(JITLAB), "diff", "base.jsonl", "one.jsonl"],
        "watch table": [python, "-c", WATCH_TABLE, "one.jsonl"],
        "report": [str(JITLAB), "report", "one.jsonl", "-o", "r.html"],
        "notebook text": [python, "-c", NOTEBOOK, "one.jsonl"],
        "open (window)": [python, "-c", WINDOW, "one.jsonl", "window.ini"],
    }


def run_once(argv: list[str], cwd: Path, timeout: float) -> tuple[float, float, int] | None:
    """Wall seconds, peak RSS (MiB) and bytes written (stdout and the report), or None when
    it ran past ``timeout``."""
    env = {**os.environ, "COLUMNS": "120", "QT_QPA_PLATFORM": "offscreen"}
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
        deadline = started + timeout
        while True:
            done, _status, usage = os.wait4(child.pid, os.WNOHANG)
            if done:
                break
            if time.perf_counter() > deadline:
                child.kill()
                os.wait4(child.pid, 0)
                return None
            time.sleep(0.01)
        wall = time.perf_counter() - started
        size = out.tell()
    report = cwd / "r.html"
    if report.exists():
        size += report.stat().st_size
        report.unlink()
    return wall, usage.ru_maxrss / 1024, size


def measure(argv: list[str], cwd: Path, rounds: int, timeout: float) -> dict | None:
    runs = []
    for _ in range(rounds):
        found = run_once(argv, cwd, timeout)
        if found is None:
            return None
        runs.append(found)
    walls = [r[0] for r in runs]
    return {
        "wall": statistics.median(walls),
        "spread": (min(walls), max(walls)),
        "rss": max(r[1] for r in runs),
        "bytes": runs[-1][2],
    }


def prepare(folder: Path, field: str, length: int) -> None:
    write(folder / "one.jsonl", field, length, 3, None)
    write(folder / "base.jsonl", field, length, 2, None)
    write(folder / "job.p0.jsonl", field, length, 3, 0)
    write(folder / "job.p1.jsonl", field, length, 2, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="1000,10000,30000,100000,1000000")
    parser.add_argument(
        "--field", default="function", choices=("function", "defined_at", "called_from")
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0)
    options = parser.parse_args()
    lengths = [int(n) for n in options.lengths.split(",")]
    print(f"field: {options.field}; {options.rounds} rounds each; median [min–max]")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        prepare(folder, options.field, 10)
        base = {
            k: measure(a, folder, options.rounds, options.timeout) for k, a in readers().items()
        }
        for reader, found in base.items():
            assert found is not None, reader
            print(
                f"{reader:<14} baseline (10 chars) {found['wall']:6.2f} s "
                f"[{found['spread'][0]:.2f}–{found['spread'][1]:.2f}]  "
                f"{found['rss']:5.0f} MiB  {found['bytes']:>9,} B out"
            )
        for length in lengths:
            prepare(folder, options.field, length)
            for reader, argv in readers().items():
                found, before = measure(argv, folder, options.rounds, options.timeout), base[reader]
                assert before is not None
                if found is None:
                    print(f"{reader:<14} {length:>9,} chars  stopped after {options.timeout:.0f} s")
                    continue
                extra = max(found["wall"] - before["wall"], 0.0) / length * 1e6
                print(
                    f"{reader:<14} {length:>9,} chars {found['wall']:6.2f} s "
                    f"[{found['spread'][0]:.2f}–{found['spread'][1]:.2f}] "
                    f"×{found['wall'] / before['wall']:5.2f}  {extra:7.2f} µs/char beyond  "
                    f"{found['rss']:5.0f} MiB  {found['bytes']:>11,} B out"
                )


if __name__ == "__main__":
    main()
