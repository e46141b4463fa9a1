"""How long does ``jitlab report`` take on a 100,000-line recording, and how big is the page?

    python benchmarks/report_scale.py [--lines 100000] [--functions 40] [--out report.html]

Writes a recording with jitlab's own writer classes (``RecordingStart``, ``RecordedCall``,
``RecordedHits``): ``--functions`` jitted functions recompiling as their batch size jitters
(a recompile storm: every line of a recording is a compile, hits are only counted), then times
reading it (``read_recording``) and rendering the page (``render_report``), and prints the
page's size. No JAX.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

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
from jitlab.records.lines import RecordedCall, RecordedHits, RecordingStart
from jitlab.report.page import render_report


def write_recording(path: Path, lines: int, functions: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    sizes = [rng.randint(1, 256) for _ in range(functions)]  # distinct batch sizes per function
    last: dict[int, int] = {}
    with path.open("w", encoding="utf-8") as f:
        start = RecordingStart(
            ("train.py", "--steps", "1000"), "0.10.2", "0.1.0", time.time(), "host"
        )
        f.write(dumps_strict(start.to_json(pid=1)) + "\n")
        for i in range(lines - 2 - functions):
            fn = rng.randrange(functions)
            n = rng.randint(1, sizes[fn])
            before = last.get(fn)
            last[fn] = n
            leaves = (
                LeafSpec("params['w']", (128, 128), "float32", False),
                LeafSpec("batch", (n, 128), "float32", False),
            )
            signature = Signature(leaves, (("train", "True"),), "PyTreeDef((*, *))")
            if before is None:
                kind, reason = CallKind.COMPILE, Reason((Change(ChangeKind.FIRST_CALL),))
            else:
                kind = CallKind.RECOMPILE
                reason = Reason(
                    (Change(ChangeKind.SHAPE, "batch", f"f32[{before},128]", f"f32[{n},128]"),)
                )
            record = CallRecord(
                i, f"step_{fn}", kind, 30.0, 3.0, 2.0, 20.0, signature, None, reason
            )
            call = RecordedCall(record, f"train.py:{10 + fn}", "train.py:200", t=i * 0.01)
            f.write(dumps_strict(call.to_json()) + "\n")
        for fn in range(functions):
            f.write(
                dumps_strict(RecordedHits(f"step_{fn}", f"train.py:{10 + fn}", 1000).to_json())
                + "\n"
            )
        f.write('{"type": "end"}\n')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--functions", type=int, default=40)
    parser.add_argument("--out", type=Path, default=None, help="keep the page here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.jsonl"
        write_recording(path, args.lines, args.functions)
        size = path.stat().st_size
        t0 = time.perf_counter()
        recording, _ = read_recording(path)
        t1 = time.perf_counter()
        page = render_report([(str(path), recording)])
        t2 = time.perf_counter()
    data = page.encode("utf-8")
    if args.out:
        args.out.write_bytes(data)
    print(
        f"{len(recording.calls):,} compile lines ({size / 1e6:.1f} MB, {args.functions} "
        f"functions): "
        f"read {t1 - t0:.2f} s, render {t2 - t1:.2f} s, page {len(data) / 1e6:.2f} MB"
    )


if __name__ == "__main__":
    main()
