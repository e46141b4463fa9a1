"""Steps per second of a steady training loop, watched by jitlab vs unwatched, in one run.

    python benchmarks/watch_overhead.py [--steps N] [--blocks B] [--metrics]

Target: watched / unwatched ≥ 0.97. The loop is a small MLP regression step (forward,
backward, SGD update on a pytree of parameters, about 50 µs) — the kind of loop where
per-call overhead shows the most. Short blocks of bare and watched steps alternate so that
machine noise hits both alike; the ratio is that of the median block rates, and "paired"
is the median over rounds of each watched block's rate against the bare block just before
it (robust to the machine's load changing during the run).

``--metrics`` turns the fleet view on in the watch (needs ``jitlab[fleet]``), both doors at
a pace far above a fleet's: ``/metrics`` served and scraped every second by a thread here,
and OTLP pushed every second to a receiver here that discards what it gets. Compare its
paired ratio with a run without it.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.request import urlopen

import jax
import jax.numpy as jnp
import numpy as np

from jitlab.watching.recorder import watch

TARGET = 0.97


def train_step(params, x, y):
    def loss(params):
        h = x
        for w, b in params[:-1]:
            h = jnp.tanh(h @ w + b)
        w, b = params[-1]
        return jnp.mean(((h @ w + b)[:, 0] - y) ** 2)

    value, grads = jax.value_and_grad(loss)(params)
    return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads), value


def watched_step(params, x, y):
    # A function of its own: JAX shares its caches between jax.jit wrappers of one
    # function, so jitting train_step again would hit the bare one's executable.
    return train_step(params, x, y)


def make_data():
    rng = np.random.default_rng(0)
    sizes = [32, 64, 64, 1]
    params = [
        (jnp.asarray(rng.normal(0, 0.2, (a, b)), jnp.float32), jnp.zeros(b, jnp.float32))
        for a, b in itertools.pairwise(sizes)
    ]
    x = jnp.asarray(rng.normal(size=(32, 32)), jnp.float32)
    y = jnp.asarray(rng.normal(size=32), jnp.float32)
    return params, x, y


def run_block(step, params, x, y, steps: int) -> float:
    start = time.perf_counter()
    for _ in range(steps):
        params, value = step(params, x, y)
    value.block_until_ready()
    return steps / (time.perf_counter() - start)


class _Discard(BaseHTTPRequestHandler):
    """An OTLP/HTTP receiver that reads each push and keeps nothing."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format, *args) -> None:
        pass


@contextlib.contextmanager
def fleet_view() -> Iterator[dict]:
    """watch()'s options for both doors, with a scraper (every second) and an OTLP receiver
    (pushed every second) running for the block; counts the scrapes and pushes."""
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), _Discard)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = f"http://127.0.0.1:{receiver.server_port}"
    os.environ["OTEL_METRIC_EXPORT_INTERVAL"] = "1000"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done, scrapes = threading.Event(), [0]

    def scrape() -> None:
        while not done.wait(1.0):
            with contextlib.suppress(OSError), urlopen(f"http://127.0.0.1:{port}/metrics") as r:
                r.read()
                scrapes[0] += 1

    scraper = threading.Thread(target=scrape, daemon=True)
    scraper.start()
    try:
        yield {"metrics_port": port, "otlp": True, "scrapes": scrapes}
    finally:
        done.set()
        scraper.join()
        receiver.shutdown()
        receiver.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="steps per block")
    parser.add_argument("--blocks", type=int, default=100)
    parser.add_argument("--metrics", action="store_true", help="the fleet view on (both doors)")
    args = parser.parse_args()
    params, x, y = make_data()
    bare = jax.jit(train_step)
    bare(params, x, y)[1].block_until_ready()
    with contextlib.ExitStack() as stack:
        options = stack.enter_context(fleet_view()) if args.metrics else {}
        scrapes = options.pop("scrapes", [0])
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        recorder = stack.enter_context(watch(Path(tmp) / "bench.jsonl", **options))
        watched = jax.jit(watched_step)  # jitted inside the watch: probed, hits counted
        watched(params, x, y)[1].block_until_ready()
        bare_rates, watched_rates = [], []
        for _ in range(args.blocks):
            bare_rates.append(run_block(bare, params, x, y, args.steps))
            watched_rates.append(run_block(watched, params, x, y, args.steps))
        stats = next(iter(recorder.stats.values()))
    b, w = statistics.median(bare_rates), statistics.median(watched_rates)
    paired = statistics.median(wr / br for br, wr in zip(bare_rates, watched_rates, strict=True))
    backend = jax.default_backend()
    print(f"jax {jax.__version__} on {backend}; {args.blocks} blocks × {args.steps} steps")
    if args.metrics:
        print(f"fleet view on: /metrics scraped {scrapes[0]} times, OTLP pushed every second")
    print(f"unwatched: {b:10.0f} steps/s  ({1e6 / b:.1f} µs/step)")
    print(f"watched:   {w:10.0f} steps/s  ({1e6 / w:.1f} µs/step; {stats.hits} hits counted)")
    verdict = "met" if w / b >= TARGET else "NOT met"
    print(f"ratio watched/unwatched: {w / b:.3f}   (target ≥ {TARGET:.2f}: {verdict})")
    verdict = "met" if paired >= TARGET else "NOT met"
    print(f"paired:                  {paired:.3f}   (target ≥ {TARGET:.2f}: {verdict})")


if __name__ == "__main__":
    main()
