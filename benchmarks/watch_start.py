"""Wall time of a short JAX program under ``jitlab watch`` against plain ``python``, in one run.

    python benchmarks/watch_start.py [--rounds 5] [--compare OTHER_CHECKOUT]

What a watch adds to a program's start and end: the command's checks (JAX's contract with
its known compile, in a child: it imports JAX once more), the exec into the program's own
interpreter, the recording and the end table. The program jits and calls one function.
Rounds alternate plain, watched (and ``--compare``'s checkout watched, e.g. the commit
before) so that the machine's load hits each alike; each line gives the median, the spread
and the median of each round's watched time minus that round's plain time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = str(Path(__file__).resolve().parents[1])
PROGRAM = "import jax, jax.numpy as jnp\njax.jit(lambda x: x + 1)(jnp.ones(2))\n"


def timed(argv: list[str], env: dict[str, str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--compare", default="", help="another checkout, timed alongside")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "prog.py").write_text(PROGRAM)
        ours = dict(os.environ, PYTHONPATH=HERE)  # this checkout's jitlab
        watch = [sys.executable, "-m", "jitlab.cli", "watch", "--out", "run.jsonl", "--"]
        runs = {"plain": ([sys.executable, "prog.py"], ours)}
        runs["watched"] = ([*watch, "python", "prog.py"], ours)
        if args.compare:
            other = dict(os.environ, PYTHONPATH=os.path.abspath(args.compare))
            runs["compared"] = ([*watch, "python", "prog.py"], other)
        seconds: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, (argv, env) in runs.items():
                seconds[name].append(timed(argv, env, folder))
    plain = seconds["plain"]
    for name, times in seconds.items():
        added = [t - p for t, p in zip(times, plain, strict=True)]
        print(
            f"{name:9} median {statistics.median(times):6.2f} s "
            f"(spread {min(times):.2f}–{max(times):.2f}), "
            f"over plain {statistics.median(added):+.2f} s, "
            f"×{statistics.median(times) / statistics.median(plain):.2f}"
        )
    print(f"load average {os.getloadavg()[0]:.1f}, {args.rounds} rounds")


if __name__ == "__main__":
    main()
