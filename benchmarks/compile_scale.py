"""The compile path at scale: a program that jits and calls N distinct functions, under plain
python and under `jitlab watch`, in one run (issue 40).

    python benchmarks/compile_scale.py [--quick] [--sizes 1000,2500,5000,10000] [--rounds R]

Each size runs `python prog.py N` and `jitlab watch -- python prog.py N` in subprocesses, one
after the other (the order alternating between sizes). The program imports a generated
module of N functions (each its own definition site, as in a real code base), starts JAX's
backend, then jits and calls each function once: N compiles. It prints the seconds of that
loop, its CPU seconds (all its threads: on a shared machine the steadier figure), how much its
resident memory grew (VmRSS after − before) and how much of malloc's heap stayed in use
(glibc's mallinfo2: RSS less the freed pages malloc keeps for reuse), so
interpreter start and imports, the same for both, stay out of the figures. Plain python
grows too: JAX keeps each function's executable in its own caches (bounded by JAX); what the
watch adds is its records, a few KB per function (tests/faults/test_watch_compile_scale.py).

Targets (issue 40): at 10,000 functions, watched ≤ 2 × plain + 10 s and ≤ plain + 100 MB, and
linear: the CPU ms per function (`ms/fn`, plain → watched) stays flat as N grows, as plain's does.
`--quick` runs 250 … 2,000 (about a minute on a free core); `--rounds R` runs R pairs per
size, a row each, and prints the spread of their CPU ratios and memory.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

BIN = Path(sys.executable).parent

PROGRAM = textwrap.dedent(
    """
    import ctypes, gc, importlib, json, sys, time
    import jax

    n = int(sys.argv[1])
    funcs = importlib.import_module(f"funcs_{n}")

    def rss_mb():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    class MallInfo2(ctypes.Structure):
        names = "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"
        _fields_ = [(k, ctypes.c_size_t) for k in names.split()]

    def heap_mb():  # what malloc holds in use (glibc): RSS less the freed pages it keeps
        try:
            info = ctypes.CDLL(None).mallinfo2
        except (OSError, AttributeError):
            return float("nan")
        info.restype = MallInfo2
        got = info()
        return (got.uordblks + got.hblkhd) / 2**20

    jax.jit(lambda x: x)(1.0)  # the backend up before the clock starts
    gc.collect()
    before, heap = rss_mb(), heap_mb()
    began, cpu = time.perf_counter(), time.process_time()
    for i in range(n):
        jax.jit(getattr(funcs, f"f{i}"))(1.0)
    wall, cpu = time.perf_counter() - began, time.process_time() - cpu
    gc.collect()
    print(json.dumps({"s": wall, "cpu": cpu, "mb": rss_mb() - before, "heap": heap_mb() - heap}))
    """
)


def functions(n: int) -> str:
    return "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(n))


def measure(folder: Path, n: int, watched: bool) -> dict[str, float]:
    command = [sys.executable, "prog.py", str(n)]
    if watched:
        out = str(folder / f"rec_{n}.jsonl")
        command = [str(BIN / "jitlab"), "watch", "--out", out, "--", *command]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="250, 500, 1000, 2000 functions")
    parser.add_argument("--sizes", help="comma-separated numbers of functions")
    parser.add_argument(
        "--rounds", type=int, default=1, help="pairs per size (a row each, then their spread)"
    )
    args = parser.parse_args()
    sizes = [250, 500, 1000, 2000] if args.quick else [1000, 2500, 5000, 10000]
    if args.sizes:
        sizes = [int(s) for s in args.sizes.split(",")]
    print(
        f"{'functions':>9} {'plain s':>8} {'watched s':>9} {'ratio':>6} {'≤2×+10':>7} "
        f"{'cpu plain':>9} {'cpu watched':>11} {'cpu ratio':>9} {'ms/fn':>11} "
        f"{'plain MB':>8} {'watched MB':>10} {'+MB':>6} {'≤+100':>5} {'+KB/fn':>6} "
        f"{'heap plain':>10} {'heap watched':>12} {'+KB/fn':>6}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "prog.py").write_text(PROGRAM)
        for k, n in enumerate(sizes):
            (folder / f"funcs_{n}.py").write_text(functions(n))
            ratios, extra = [], []
            for r in range(args.rounds):
                order = (False, True) if (k + r) % 2 == 0 else (True, False)
                got = {watched: measure(folder, n, watched) for watched in order}
                ratios.append(got[True]["cpu"] / got[False]["cpu"])
                extra.append(got[True]["mb"] - got[False]["mb"])
                _row(n, got[False], got[True])
            if args.rounds > 1:
                print(
                    f"{'':>9} {args.rounds} rounds: cpu ratio ×{statistics.median(ratios):.2f} "
                    f"[{min(ratios):.2f}–{max(ratios):.2f}], +MB {statistics.median(extra):.1f} "
                    f"[{min(extra):.1f}–{max(extra):.1f}]",
                    flush=True,
                )


def _row(n: int, plain: dict[str, float], watched: dict[str, float]) -> None:
    time_ok = watched["s"] <= 2 * plain["s"] + 10
    memory_ok = watched["mb"] <= plain["mb"] + 100
    kb = 1024 / n
    print(
        f"{n:>9} {plain['s']:>8.2f} {watched['s']:>9.2f} "
        f"{watched['s'] / plain['s']:>6.2f} {'yes' if time_ok else 'NO':>7} "
        f"{plain['cpu']:>9.2f} {watched['cpu']:>11.2f} "
        f"{watched['cpu'] / plain['cpu']:>9.2f} "
        f"{1e3 * plain['cpu'] / n:>5.1f}→{1e3 * watched['cpu'] / n:<5.1f} "
        f"{plain['mb']:>8.1f} {watched['mb']:>10.1f} "
        f"{watched['mb'] - plain['mb']:>6.1f} {'yes' if memory_ok else 'NO':>5} "
        f"{(watched['mb'] - plain['mb']) * kb:>6.1f} "
        f"{plain['heap']:>10.1f} {watched['heap']:>12.1f} "
        f"{(watched['heap'] - plain['heap']) * kb:>6.1f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
