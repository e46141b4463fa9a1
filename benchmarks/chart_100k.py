"""Does the latency chart stay smooth as it fills up to 100,000 calls?

    python benchmarks/chart_100k.py [--calls 100000] [--per-frame 1000]

Makes real probed calls (a small jitted function whose input shape changes now and then, so
compiles, recompiles and cache hits all appear), then feeds the records to the real chart
widget in frames of ``--per-frame`` calls, as the GUI does at up to 60 frames a second, and
times each frame: the chart's ``refresh()`` plus Qt painting the widget.
Prints p50 / p99 / max frame time at 10k, 50k and 100k points. A frame must fit in 16.7 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def real_records(count: int) -> list:
    import jax.numpy as jnp

    from jitlab import Probe

    probe = Probe(lambda x: jnp.tanh(x).sum(), keep_records=True)
    inputs = {n: jnp.ones(n) for n in (8, 16, 32)}
    for i in range(count):
        n = 8 if i % 5000 else (16 if (i // 5000) % 2 else 32)  # a new shape now and then
        probe(inputs[n])
    return probe.records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--per-frame", type=int, default=1000)
    args = parser.parse_args()

    start = time.perf_counter()
    records = real_records(args.calls)
    made = time.perf_counter() - start
    kinds = {k.value: sum(r.kind is k for r in records) for k in {r.kind for r in records}}
    print(f"{len(records)} real probed calls in {made:.1f} s: {kinds}")

    from jitlab.gui.app import application
    from jitlab.gui.views.chart import ChartView

    app = application()
    chart = ChartView()
    chart.resize(1200, 500)
    chart.show()
    app.processEvents()
    frames: list[tuple[int, float]] = []
    for first in range(0, len(records), args.per_frame):
        for pos, record in enumerate(records[first : first + args.per_frame], start=first):
            chart.add(record, segment=0, variant="pitfall", pos=pos)
        t0 = time.perf_counter()
        chart.refresh()
        t1 = time.perf_counter()
        chart.repaint()  # paint now, synchronously: what the user would wait for
        app.processEvents()
        t2 = time.perf_counter()
        frames.append((first + args.per_frame, (t2 - t0) * 1e3, (t1 - t0) * 1e3))
    print(
        f"chart frames of {args.per_frame} calls each; points on screen at the end: "
        f"{chart.point_count()}"
    )
    print(
        f"{'points up to':>14}{'frames':>8}{'p50 ms':>9}{'max ms':>9}{'of which refresh() p50':>24}"
    )
    low = 0
    for high in (10_000, 50_000, args.calls):
        window = [(ms, data) for n, ms, data in frames if low < n <= high]
        low = high
        if not window:
            continue
        total = [ms for ms, _ in window]
        print(
            f"{high:>14}{len(window):>8}{statistics.median(total):>9.2f}{max(total):>9.2f}"
            f"{statistics.median(d for _, d in window):>24.2f}"
        )
    print("budget: 16.7 ms per frame (60 Hz)")


if __name__ == "__main__":
    main()
