"""Does the shape histogram stay quick when a function compiled for hundreds of sizes?

    python benchmarks/histogram_scale.py [--sizes 500] [--rounds 6] [--baseline b9bcf06]

A 1,000,000-line recording can hold functions that compiled for ~500 distinct batch sizes;
clicking one in the recording window calls ``ShapeHistogram.set_signatures``, which picks the
buckets (a third of the sizes by default) and draws them. This builds compiled signatures with
the real classes (``x: f32[n,128]``, ``y: i32[n]``, ``--sizes`` distinct ``n`` per function),
shows the real widget (offscreen, 1100 x 420) and times, per click: ``set_signatures`` for
another function, then Qt painting it, as a user waits for both. Also times one step of the
"Compiles allowed" box, and a function with few sizes (the usual case).

The same is run with the widget as it was at ``--baseline`` (its source read with ``git show``;
``--baseline ''`` skips it), so one run prints before, after and their ratio. The bar: no GUI
stall over 100 ms.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def signatures(count: int, seed: int) -> list:
    from jitlab.records.calls import LeafSpec, Signature

    sizes = random.Random(seed).sample(range(1, 4097), count)
    return [
        Signature(
            (LeafSpec("x", (n, 128), "float32", False), LeafSpec("y", (n,), "int32", False)),
            (),
            "((*, *), {})",
        )
        for n in sizes
    ]


def baseline_class(rev: str) -> type | None:
    """``ShapeHistogram`` as it was at ``rev``, or None when git cannot show it."""
    try:
        source = subprocess.run(
            ["git", "show", f"{rev}:jitlab/gui/views/shape_histogram.py"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"no baseline ({rev}): {error}")
        return None
    module = types.ModuleType("baseline_shape_histogram")
    exec(compile(source, f"{rev}:shape_histogram.py", "exec"), module.__dict__)
    return module.ShapeHistogram


def measure(cls: type, args: argparse.Namespace) -> dict[str, list[float]]:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    widget = cls()
    widget.resize(1100, 420)
    widget.show()
    app.processEvents()
    many = [signatures(args.sizes, seed) for seed in range(2)]
    few = signatures(6, 7)

    def timed(action: Callable[..., object], *args: object) -> float:
        start = time.perf_counter()
        action(*args)
        app.processEvents()  # the paint the user waits for
        return (time.perf_counter() - start) * 1e3

    times: dict[str, list[float]] = {"click, many sizes": [], "compiles step": [], "few": []}
    widget.set_signatures("warm", many[1])
    app.processEvents()
    for i in range(args.rounds):
        times["click, many sizes"].append(timed(widget.set_signatures, f"f{i}", many[i % 2]))
        step = widget.compiles.value() + (1 if i % 2 else -1)
        times["compiles step"].append(timed(widget.compiles.setValue, step))
        times["few"].append(timed(widget.set_signatures, f"few{i}", few))
    widget.set_signatures("check", many[0])
    times["buckets"] = list(widget.buckets)  # type: ignore[assignment]
    widget.close()
    widget.deleteLater()
    app.processEvents()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--baseline", default="b9bcf06", help="git revision; '' for none")
    args = parser.parse_args()

    from PySide6.QtWidgets import QApplication

    from jitlab.gui.views.shape_histogram import ShapeHistogram

    _app = QApplication.instance() or QApplication([])
    variants = {"now": ShapeHistogram}
    old = baseline_class(args.baseline) if args.baseline else None
    if old is not None:
        variants = {f"at {args.baseline}": old, **variants}
    results = {label: measure(cls, args) for label, cls in variants.items()}

    print(f"{args.sizes} distinct sizes per function, {args.rounds} rounds; ms, median / max")
    keys = ("click, many sizes", "compiles step", "few")
    print(f"{'':>16}" + "".join(f"{k:>24}" for k in keys))
    for label, times in results.items():
        cells = [f"{statistics.median(times[k]):9.1f} / {max(times[k]):7.1f}" for k in keys]
        print(f"{label:>16}" + "".join(f"{c:>24}" for c in cells))
    if old is not None:
        before, after = results[f"at {args.baseline}"], results["now"]
        ratios = [statistics.median(before[k]) / statistics.median(after[k]) for k in keys]
        print(f"{'ratio':>16}" + "".join(f"{f'{r:.1f}x faster':>24}" for r in ratios))
        same = before["buckets"] == after["buckets"]
        print(f"same buckets as the baseline: {same}")
    worst = max(results["now"]["click, many sizes"] + results["now"]["compiles step"])
    print(f"worst stall now: {worst:.0f} ms (bar: 100 ms)")


if __name__ == "__main__":
    main()
