"""Draw the Grafana dashboard's panels (grafana-dashboard.json) from a real scrape, where no
Grafana is at hand: the README's picture is made by this script.

    python examples/fleet/render_dashboard.py [--seconds 60] [--out fleet-dashboard.png]
                                              [--scrapes scrapes.json]

It runs ``jitlab watch --metrics-port PORT -- python serving.py`` (the program beside this
file), scrapes ``/metrics`` every half second as Prometheus would, parses each scrape with
prometheus_client's own parser, and computes each panel as its PromQL does (``rate`` over a
window, ``increase`` over the range), then draws them with pyqtgraph off screen.
``--scrapes FILE`` keeps the scrapes (or draws again from a file kept before). Needs
``jitlab[fleet]``.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from urllib.request import urlopen

from prometheus_client.parser import text_string_to_metric_families

HERE = Path(__file__).resolve().parent
WINDOW_S = 10.0  # the rate window ($__rate_interval), scaled to a one-minute run
COLOURS = ("#73BF69", "#FADE2A", "#5794F2", "#FF9830", "#F2495C", "#B877D9", "#8AB8FF")
PHASES = ("warm-up", "served", "no padding", "fixed")  # serving.py's quarters
Scrape = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def scrape(port: int) -> Scrape | None:
    try:
        with urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
            text = reply.read().decode("utf-8")
    except OSError:
        return None
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def watch_and_scrape(seconds: float, every: float = 0.5) -> list[tuple[float, Scrape]]:
    """Run the serving program under jitlab watch and scrape it until it ends."""
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-m", "jitlab.cli", "watch", "--out"]
        command += [str(Path(folder) / "serving.jsonl"), "--metrics-port", str(port)]
        command += ["--", "python", str(HERE / "serving.py"), "--seconds", str(seconds)]
        program = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        scrapes: list[tuple[float, Scrape]] = []
        started = None
        while program.poll() is None:
            found = scrape(port)
            if found is not None:
                started = started if started is not None else time.monotonic()
                scrapes.append((time.monotonic() - started, found))
            time.sleep(every)
        _, err = program.communicate()
        if program.returncode != 0 or not scrapes:
            raise SystemExit(f"the watched program failed:\n{err.decode()[-2000:]}")
    return scrapes


def series(scrape: Scrape, name: str, by: str, **where: str) -> dict[str, float]:
    """``sum by (by) (name{where})`` of one scrape."""
    out: dict[str, float] = defaultdict(float)
    for (sample, labels), value in scrape.items():
        held = dict(labels)
        if sample == name and all(held.get(k) == v for k, v in where.items()):
            out[held.get(by, "")] += value
    return out


def rates(scrapes, name, by, scale=1.0, **where):
    """``sum by (by) (rate(name{where}[WINDOW_S]))`` at each scrape (times ``scale``)."""
    times = [t for t, _ in scrapes]
    keys = sorted({k for _, s in scrapes for k in series(s, name, by, **where)})
    lines = {k: [] for k in keys}
    for i, (t, s) in enumerate(scrapes):
        j = next(j for j in range(i + 1) if t - scrapes[j][0] <= WINDOW_S)
        t0, s0 = scrapes[j]
        now, before = series(s, name, by, **where), series(s0, name, by, **where)
        for k in keys:
            dt = t - t0
            lines[k].append((now.get(k, 0) - before.get(k, 0)) / dt * scale if dt else 0.0)
    return times, lines


def increase(scrapes, name, by, **where) -> dict[str, float]:
    """``sum by (by) (increase(name{where}[$__range]))`` over the whole run."""
    last = series(scrapes[-1][1], name, by, **where)
    first = series(scrapes[0][1], name, by, **where)
    return {k: v - first.get(k, 0) for k, v in last.items() if v - first.get(k, 0) > 0}


def small(image):
    """The picture in its 128 most used colours, undithered: a few times fewer bytes, the same
    to the eye (a dashboard is flat colours and lines)."""
    import numpy as np
    from PySide6 import QtCore, QtGui

    image = image.convertToFormat(QtGui.QImage.Format.Format_RGB32)
    pixels = np.frombuffer(image.constBits(), np.uint32, image.width() * image.height())
    colours, counts = np.unique(pixels, return_counts=True)
    table = [int(c) for c in colours[np.argsort(counts)[::-1][:128]]]
    flags = QtCore.Qt.ImageConversionFlag.ThresholdDither
    return image.convertToFormat(QtGui.QImage.Format.Format_Indexed8, table, flags)


def draw(scrapes, out: Path, size=(1280, 720)) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import pyqtgraph as pg
    from PySide6 import QtCore, QtGui, QtWidgets

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    pg.setConfigOptions(antialias=True, background="#181b1f", foreground="#ccccdc")
    window = QtWidgets.QWidget()
    window.setStyleSheet("background:#111217; color:#ccccdc;")
    window.resize(*size)
    grid = QtWidgets.QGridLayout(window)
    grid.setContentsMargins(8, 8, 8, 8)
    grid.setSpacing(8)

    def plot(title: str, row: int, col: int, rowspan=1, colspan=1, unit=""):
        widget = pg.PlotWidget(title=f"<span style='font-size:11pt'>{title}</span>")
        widget.showGrid(x=True, y=True, alpha=0.15)
        widget.setLabel("bottom", "s")
        if unit:
            widget.setLabel("left", unit)
        grid.addWidget(widget, row, col, rowspan, colspan)
        return widget

    def legend(widget):
        item = widget.addLegend(offset=(-10, 10), labelTextSize="8pt")
        item.setBrush(pg.mkBrush(24, 27, 31, 200))
        return item

    # 1. Recompiles per minute by function
    times, lines = rates(scrapes, "jitlab_compiles_total", "function", 60.0, kind="recompile")
    widget = plot("Recompiles per minute by function", 0, 0, unit="per minute")
    legend(widget)
    for colour, (function, values) in zip(COLOURS, lines.items(), strict=False):
        widget.plot(times, values, pen=pg.mkPen(colour, width=2), name=function)
    # serving.py's four phases, a quarter of the run each
    for n, phase in enumerate(PHASES):
        if n:
            widget.addItem(pg.InfiniteLine(times[-1] * n / 4, pen=pg.mkPen("#555a64", dash=[4, 4])))
        text = pg.TextItem(phase, color="#8e8e9e", anchor=(0.5, 1))
        text.setPos(times[-1] * (2 * n + 1) / 8, 0)
        widget.addItem(text)

    # 2. Compile time share, stacked by function
    times, lines = rates(scrapes, "jitlab_compile_duration_seconds_sum", "function")
    widget = plot("Compile time share (of wall time)", 0, 1, unit="share")
    legend(widget)
    below = [0.0] * len(times)
    for colour, (function, values) in zip(COLOURS, lines.items(), strict=False):
        above = [b + v for b, v in zip(below, values, strict=True)]
        lower = widget.plot(times, below, pen=None)
        upper = widget.plot(times, above, pen=pg.mkPen(colour, width=1), name=function)
        fill = QtGui.QColor(colour)
        fill.setAlpha(110)
        widget.addItem(pg.FillBetweenItem(lower, upper, brush=pg.mkBrush(fill)))
        below = above

    def bars(title: str, counts: dict[str, float], row: int, col: int, colour: str) -> None:
        widget = plot(title, row, col)
        widget.setLabel("bottom", "in range")
        top = sorted(counts.items(), key=lambda kv: kv[1])[-8:]
        if top:
            ys = list(range(len(top)))
            widths = [v for _, v in top]
            widget.addItem(pg.BarGraphItem(x0=0, y=ys, height=0.6, width=widths, brush=colour))
            axis = widget.getAxis("left")
            axis.setTicks([[(y, name) for y, (name, _) in zip(ys, top, strict=True)]])
            axis.setWidth(170)
            for y, (_, value) in zip(ys, top, strict=True):
                text = pg.TextItem(f"{value:.0f}", color="#ccccdc", anchor=(0, 0.5))
                text.setPos(value, y)
                widget.addItem(text)
            widget.setXRange(0, max(widths) * 1.15)

    # 3. Top reasons, 4. Diagnoses
    reasons = increase(scrapes, "jitlab_compiles_total", "reason", kind="recompile")
    bars("Top reasons (recompiles)", reasons, 1, 0, COLOURS[2])
    diagnoses = defaultdict(float)
    last, first = scrapes[-1][1], scrapes[0][1]
    for (name, labels), value in last.items():
        if name == "jitlab_diagnoses_total":
            held = dict(labels)
            diagnoses[f"{held['id']} · {held['function']}"] += value - first.get((name, labels), 0)
    bars("Diagnoses", {k: v for k, v in diagnoses.items() if v}, 1, 1, COLOURS[3])

    # 5. Live executables by function (a gauge: its value at each scrape)
    live = [series(s, "jitlab_executables_live", "function") for _, s in scrapes]
    widget = plot("Live executables by function", 0, 2)
    legend(widget)
    for colour, function in zip(COLOURS, sorted({f for held in live for f in held}), strict=False):
        values = [held.get(function, 0) for held in live]
        widget.plot(times, values, pen=pg.mkPen(colour, width=2), name=function)
    # 6. Cache hit ratio: hits among the calls of the last window
    _, hits = rates(scrapes, "jitlab_cache_hits_total", "")
    _, made = rates(scrapes, "jitlab_compiles_total", "")
    pairs = zip(hits.get("", [0.0] * len(times)), made.get("", [0.0] * len(times)), strict=True)
    ratio = [h / (h + m) if h + m else 0.0 for h, m in pairs]
    widget = plot("Cache hit ratio", 1, 2)
    widget.plot(times[: len(ratio)], ratio, pen=pg.mkPen(COLOURS[0], width=2))
    widget.setYRange(0, 1.05)
    label = pg.TextItem(f"now {ratio[-1]:.1%}" if ratio else "-", color=COLOURS[0], anchor=(0, 1))
    label.setFont(QtGui.QFont("DejaVu Sans", 16))
    label.setPos(times[-1] * 0.15, 0.1)
    widget.addItem(label)

    window.show()
    app.processEvents()
    QtCore.QThread.msleep(200)
    app.processEvents()
    image = small(window.grab().toImage())
    out.parent.mkdir(parents=True, exist_ok=True)
    image.save(str(out), "PNG")
    window.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the program serves")
    parser.add_argument("--out", type=Path, default=Path("fleet-dashboard.png"))
    parser.add_argument("--scrapes", type=Path, help="keep the scrapes here (or draw from it)")
    args = parser.parse_args()
    if args.scrapes is not None and args.scrapes.exists():
        kept = json.loads(args.scrapes.read_text(encoding="utf-8"))
        scrapes = [(t, {(n, tuple(map(tuple, ls))): v for n, ls, v in s}) for t, s in kept]
    else:
        scrapes = watch_and_scrape(args.seconds)
        if args.scrapes is not None:
            kept = [(t, [(n, ls, v) for (n, ls), v in s.items()]) for t, s in scrapes]
            args.scrapes.write_text(json.dumps(kept), encoding="utf-8")
    draw(scrapes, args.out)
    print(f"{args.out}: {len(scrapes)} scrapes over {scrapes[-1][0]:.0f} s")


if __name__ == "__main__":
    main()
