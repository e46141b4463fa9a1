"""Does merging a multi-process job's recordings scale: 8 processes × 100,000 lines?

    python benchmarks/merge_scale.py [--processes 8] [--lines 100000] [--functions 40]

Writes ``--processes`` synthetic but valid recordings with the writer's own classes
(``RecordingStart``, ``ProcessInfo``, ``RecordedCall``, ``RecordedHits``, through
``dumps_strict``, as ``jitlab watch`` does): per process, ``--lines`` lines, a third of them
``call`` lines (compiles and recompiles of ``--functions`` functions, shapes changing) and the
rest ``hits`` lines; process 3 compiles one shape the others never do. Then reads them all
(``read_recording``) and merges them (``jitlab.recordings.processes.merge``), which is what
``jitlab summary`` and ``jitlab open run.p*.jsonl`` do, and prints the time and the peak
memory (``tracemalloc``: Python's allocations while reading and merging; and the process's
peak RSS). Target: under 10 s, memory bounded by the recordings' size.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
import tracemalloc
from pathlib import Path

from jitlab.recordings.processes import merge, process_of
from jitlab.recordings.reader import read_recording
from jitlab.records.calls import (
    CallKind,
    CallRecord,
    Change,
    LeafSpec,
    Reason,
    Signature,
    dumps_strict,
)
from jitlab.records.changes import ChangeKind
from jitlab.records.lines import ProcessInfo, RecordedCall, RecordedHits, RecordingStart


def write_recording(
    path: Path,
    lines: int,
    functions: int = 40,
    process: int | None = None,
    processes: int | None = None,
    call_share: float = 1 / 3,
    odd_one: bool = False,
) -> int:
    """A synthetic recording of ``lines`` lines written by the real writer classes."""
    extra = {"process": process} if process is not None else {}
    compiles: dict[int, int] = {}
    hits: dict[int, int] = {}
    every = max(1, round(1 / call_share)) if call_share > 0 else 0
    reason = Reason((Change(ChangeKind.SHAPE, path="x", before="f32[8,128]", after="f32[9,128]"),))
    t = 0.0
    with path.open("w", encoding="utf-8") as f:

        def put(obj: dict) -> None:
            f.write(dumps_strict({**obj, **extra}) + "\n")

        put(
            RecordingStart(("train.py",), "0.10.2", "0.1", 1.0, "host", process, processes).to_json(
                pid=1
            )
        )
        if process is not None:
            put(ProcessInfo(process, processes, "host", 1, processes, 0.0).to_json())
        for i in range(lines - 3 if process is not None else lines - 2):
            t += 0.001
            is_call = bool(every) and i % every == 0
            fn = (i // every if is_call else i) % functions  # calls spread over all functions
            name = f"step_{fn}"
            where = f"/job/train.py:{10 + fn}"
            if is_call:
                n = compiles.get(fn, 0)
                compiles[fn] = n + 1
                rows = 8 + (n % 500) + (1000 if odd_one and fn == 0 and n == 3 else 0)
                sig = Signature((LeafSpec("x", (rows, 128), "float32", False),), (), "(x,)")
                record = CallRecord(
                    index=n + hits.get(fn, 0),
                    function=name,
                    kind=CallKind.RECOMPILE if n else CallKind.COMPILE,
                    latency_ms=12.5,
                    trace_ms=2.0,
                    lower_ms=1.5,
                    compile_ms=8.0,
                    signature=sig,
                    card=n,
                    reason=reason if n else Reason((Change(ChangeKind.FIRST_CALL),)),
                )
                put(RecordedCall(record, where, "/job/train.py:200", t=t).to_json())
            else:
                hits[fn] = hits.get(fn, 0) + 25
                put(RecordedHits(name, where, hits[fn], t).to_json())
        put({"type": "end", "t": t})
    return path.stat().st_size


def _read_and_merge(paths: list[Path]) -> tuple[float, float, list, object]:
    start = time.perf_counter()
    pairs = []
    for position, path in enumerate(paths):
        recording, _ = read_recording(path)
        pairs.append((process_of(recording, path.name, position), recording))
    read_s = time.perf_counter() - start
    merged = merge(pairs)
    return read_s, time.perf_counter() - start, pairs, merged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--functions", type=int, default=40)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="jitlab-merge-"))
    start = time.perf_counter()
    paths = []
    size = 0
    for p in range(args.processes):
        path = folder / f"run.p{p}.jsonl"
        size += write_recording(
            path, args.lines, args.functions, p, args.processes, odd_one=(p == 3)
        )
        paths.append(path)
    print(
        f"wrote {args.processes} × {args.lines:,} lines ({size / 1e6:.0f} MB) "
        f"in {time.perf_counter() - start:.1f} s"
    )
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MiB (Linux: KiB)
    cpu = time.process_time()
    read_s, total_s, pairs, merged = _read_and_merge(paths)
    cpu = time.process_time() - cpu  # on a busy machine, the CPU time says what was done
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    calls = sum(len(r.calls) for _, r in pairs)
    print(f"read:  {read_s:.2f} s ({calls:,} call lines)")
    print(
        f"merge: {total_s - read_s:.2f} s; read + merge {total_s:.2f} s (target < 10 s; "
        f"CPU {cpu:.2f} s)"
    )
    del pairs
    # Memory, measured apart: tracemalloc slows Python's allocations several times.
    tracemalloc.start()
    _read_and_merge(paths)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"peak traced memory {peak / 1e6:.0f} MB for {size / 1e6:.0f} MB of recordings; "
        f"peak RSS {rss:.0f} MiB (before reading: {rss_before:.0f} MiB)"
    )
    print(
        f"{len(merged.functions)} functions, {len(merged.divergences)} divergence(s): "
        + "; ".join(d.message for d in merged.divergences[:2])
    )


if __name__ == "__main__":
    main()
