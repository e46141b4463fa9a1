"""Does ``jitlab open`` of a 1,000,000-line recording show at once and stay responsive?

    python benchmarks/open_scale.py [--lines 1000000] [--call-share 0.1]

Writes one synthetic but valid recording with the writer's own classes (see
``merge_scale.py``): ``--lines`` lines, ``--call-share`` of them ``call`` lines (compiles and
recompiles of 40 functions), the rest ``hits`` lines. Opens it in the real recording window
(offscreen) as ``jitlab open FILE --no-follow`` does, and measures:

* first view: from creating the window to the first function shown (target < 2 s);
* responsiveness while the rest loads: a 10 ms ``QTimer`` ticks throughout, and each tick's
  lateness is a stall of the event loop; p99 and max (a user notices ~100 ms);
* the whole load, until every line is read.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).parent))

import itertools

from merge_scale import write_recording


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--call-share", type=float, default=0.1)
    parser.add_argument(
        "--processes", type=int, default=1, help="a job's files, --lines each (process 3 odd)"
    )
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="jitlab-open-"))
    start = time.perf_counter()
    if args.processes == 1:
        paths = [folder / "run.jsonl"]
        size = write_recording(paths[0], args.lines, 40, call_share=args.call_share)
    else:
        paths = [folder / f"run.p{i}.jsonl" for i in range(args.processes)]
        size = sum(
            write_recording(
                path, args.lines, 40, i, args.processes, args.call_share, odd_one=i == 3
            )
            for i, path in enumerate(paths)
        )
    print(
        f"wrote {len(paths)} × {args.lines:,} lines ({size / 1e6:.0f} MB) "
        f"in {time.perf_counter() - start:.1f} s"
    )

    from PySide6.QtCore import QElapsedTimer, QTimer
    from PySide6.QtWidgets import QApplication

    from jitlab.gui.recording.window import RecordingWindow

    app = QApplication.instance() or QApplication([])
    ticks: list[float] = []
    clock = QElapsedTimer()
    tick = QTimer()
    tick.setInterval(10)

    def ticked() -> None:
        ticks.append(clock.nsecsElapsed() / 1e6)

    tick.timeout.connect(ticked)
    clock.start()
    start = time.perf_counter()
    window = RecordingWindow(paths if len(paths) > 1 else paths[0], follow=False)
    window.resize(1366, 768)
    window.show()
    app.processEvents()
    first = time.perf_counter() - start
    shown = window.picked is not None
    tick.start()
    while window.loading:
        app.processEvents()
    app.processEvents()
    total = time.perf_counter() - start
    tick.stop()
    gaps = [b - a - 10.0 for a, b in itertools.pairwise(ticks)]
    gaps = sorted(max(0.0, g) for g in gaps) or [0.0]
    p99 = gaps[min(len(gaps) - 1, int(len(gaps) * 0.99))]
    calls = sum(len(source.recording.calls) for source in window.sources)
    print(
        f"first view: {first:.2f} s (a function shown: {shown}; target < 2 s), "
        f"{window.status_text()[:60]!r}"
    )
    bad = sum(source.recording.bad_lines for source in window.sources)
    print(f"whole file read in {total:.1f} s: {calls:,} call lines, {bad} bad")
    print(
        f"event-loop stalls while loading ({len(gaps)} ticks of 10 ms): "
        f"median {statistics.median(gaps):.0f} ms, p99 {p99:.0f} ms, max {gaps[-1]:.0f} ms"
    )
    print(
        f"functions listed: {len(window.function_order())}, divergences: {len(window.divergences)}"
    )
    window.close()


if __name__ == "__main__":
    main()
