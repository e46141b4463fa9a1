"""The reading half of ``benchmarks/accel_check.sh``: what each step's output says, one verb
per step, and the final table. JAX-free (it reads what the steps wrote), except ``lessons``.

    python benchmarks/accel_check.py lessons               # the built-in scenario ids
    python benchmarks/accel_check.py portable              # nox's portable test paths
    python benchmarks/accel_check.py verdict SID FILE      # one lesson's --compare verdict
    python benchmarks/accel_check.py watched NAME DIR FUNCTION...  # a watched program vs JAX's log
    python benchmarks/accel_check.py pytest LOG            # a pytest run's closing line
    python benchmarks/accel_check.py table RESULTS         # the PASS/FAIL table

Each verb but ``table`` prints one line (the figure) and exits 0 when the check holds, 1 when
it does not, 2 when it could not be made (a skip: say why).
"""

from __future__ import annotations

import ast
import collections
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_COMPILED = re.compile(r"Finished XLA compilation of jit\((?P<name>[^)]*)\)")


def lessons() -> int:
    sys.path.insert(0, str(ROOT))
    from jitlab.lab.discovery import scenarios

    print(*scenarios())
    return 0


def portable() -> int:
    """The test paths nox's JAX sessions run (noxfile.PORTABLE, read without nox), less the
    files that need Flax or Equinox (NEEDS_LIBS)."""
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    lists: dict[str, list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in ("PORTABLE", "NEEDS_LIBS"):
                lists[target.id] = ast.literal_eval(node.value)
    print(*lists["PORTABLE"], *(f"--ignore={path}" for path in lists.get("NEEDS_LIBS", [])))
    return 0


def verdict(sid: str, path: str) -> int:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    if not lines:
        print(f"{sid}: no output")
        return 1
    compare = json.loads(lines[-1]).get("compare") or {}
    better = compare.get("better")
    words = compare.get("verdict", "")
    print(f"better={better}: {words}")
    ok = better == "fix"
    if compare.get("measure") == "output":
        # Runtime output is the call's on every backend: the fix prints once per call.
        fix = compare.get("fix") or {}
        ok = ok and fix.get("runtime_lines") == fix.get("calls")
    return 0 if ok else 1


def watched(name: str, folder: str, functions: list[str]) -> int:
    """A program run plainly and under ``jitlab watch``, both with JAX_LOG_COMPILES=1: per
    function, the executables the recording counts equal JAX's compiles in the same run; JAX
    compiled what it compiled without jitlab; the output is the same."""
    sys.path.insert(0, str(ROOT))
    from jitlab.recordings.reader import read_recording
    from jitlab.recordings.summary import summarize

    base = Path(folder)
    plain_log = _COMPILED.findall((base / "plain.err").read_text(encoding="utf-8"))
    watched_log = _COMPILED.findall((base / "watched.err").read_text(encoding="utf-8"))
    plain_jax, watched_jax = collections.Counter(plain_log), collections.Counter(watched_log)
    recording, _ = read_recording(base / "run.jsonl")
    counted: collections.Counter[str] = collections.Counter()
    for row in summarize(recording, include_internal=False):
        counted[row.function] += row.executables
    same_output = (base / "plain.out").read_bytes() == (base / "watched.out").read_bytes()
    shown = ", ".join(f"{f} {counted[f]}/{watched_jax[f]}" for f in functions)
    print(f"{name}: jitlab/JAX's log {shown}; output {'same' if same_output else 'DIFFERS'}")
    ok = same_output and watched_jax == plain_jax and all(counted[f] for f in functions)
    ok = ok and all(n == watched_jax[f] for f, n in counted.items())
    return 0 if ok else 1


def pytest_line(path: str) -> int:
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    closing = [line for line in text.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    line = closing[-1].strip("= ") if closing else "no closing line"
    print(line)
    return 0 if closing and not re.search(r"\d+ (failed|errors?)\b", line) else 1


def table(path: str) -> int:
    rows = [line.split("\t", 2) for line in Path(path).read_text(encoding="utf-8").splitlines()]
    width = max((len(name) for name, _, _ in rows), default=10)
    print(f"\n{'check':<{width}}  result  figure")
    print(f"{'-' * width}  ------  {'-' * 40}")
    for name, status, figure in rows:
        print(f"{name:<{width}}  {status:<6}  {figure}")
    failed = sum(status == "FAIL" for _, status, _ in rows)
    print(f"\n{len(rows)} checks: {failed} failed")
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    verb, *rest = argv
    if verb == "lessons":
        return lessons()
    if verb == "portable":
        return portable()
    if verb == "verdict":
        return verdict(*rest)
    if verb == "watched":
        return watched(rest[0], rest[1], rest[2:])
    if verb == "pytest":
        return pytest_line(*rest)
    if verb == "table":
        return table(*rest)
    print(f"unknown verb {verb!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
