"""Steps per second of a steady training loop, watched by jitlab vs unwatched, in one run.

    python benchmarks/watch_overhead.py [--steps N] [--blocks B] [--metrics]

Target: watched / unwatched ≥ 0.97. The loop is a small MLP regression step (forward,
backward, SGD update on a pytree of parameters, about 50 µs) — the kind of loop where
per-call overhead shows the most. Short blocks of bare and watched steps alternate so that
machine noise hits both alike; the ratio is that of the median block rates, and "paired"
is the median over rounds of each watched block's rate against the bare block just before
it (robust to the machine's load changing during the run).

``--metrics`` turns the fleet view on in the watch (needs ``jitlab[fleet]``), both doors at
a pace far above a fleet's (15–60 s): ``/metrics`` scraped every second and OTLP pushed every
second, to a scraper and a receiver in a process of their own. Compare its paired ratio with
a run without it (alternate the two: the machine's load changes between runs).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

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


# The fleet's side, in a process of its own as a real Prometheus and collector are: an OTLP/HTTP
# receiver that reads each push and keeps nothing, and a scraper of /metrics every second.
# It prints the receiver's port, then at the end (stdin closed) the scrapes and pushes it saw.
_FLEET_SIDE = """
import sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.request import urlopen
pushes = [0]
class Discard(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        pushes[0] += 1
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
receiver = ThreadingHTTPServer(("127.0.0.1", 0), Discard)
threading.Thread(target=receiver.serve_forever, daemon=True).start()
print(receiver.server_port, flush=True)
done, scrapes = threading.Event(), [0]
def scrape():
    while not done.wait(1.0):
        try:
            with urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1]) as reply:
                reply.read()
            scrapes[0] += 1
        except OSError:
            pass
threading.Thread(target=scrape, daemon=True).start()
sys.stdin.read()
done.set()
print(scrapes[0], pushes[0], flush=True)
"""


@contextlib.contextmanager
def fleet_view() -> Iterator[dict]:
    """watch()'s options for both doors, with the fleet's side running in another process for
    the block; its counts of scrapes and pushes are put in the dict's ``seen`` at the end."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    side = subprocess.Popen(
        [sys.executable, "-c", _FLEET_SIDE, str(port)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert side.stdout is not None and side.stdin is not None
    os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = f"http://127.0.0.1:{side.stdout.readline().strip()}"
    os.environ["OTEL_METRIC_EXPORT_INTERVAL"] = "1000"
    options: dict = {"metrics_port": port, "otlp": True}
    try:
        yield options
    finally:
        side.stdin.close()
        options["seen"] = side.stdout.readline().split()
        side.wait()


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
        fleet = stack.enter_context(fleet_view()) if args.metrics else {}
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        recorder = stack.enter_context(watch(Path(tmp) / "bench.jsonl", **fleet))
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
        scrapes, pushes = fleet["seen"]
        print(f"fleet view on: /metrics scraped {scrapes} times, OTLP pushed {pushes} times")
    print(f"unwatched: {b:10.0f} steps/s  ({1e6 / b:.1f} µs/step)")
    print(f"watched:   {w:10.0f} steps/s  ({1e6 / w:.1f} µs/step; {stats.hits} hits counted)")
    verdict = "met" if w / b >= TARGET else "NOT met"
    print(f"ratio watched/unwatched: {w / b:.3f}   (target ≥ {TARGET:.2f}: {verdict})")
    verdict = "met" if paired >= TARGET else "NOT met"
    print(f"paired:                  {paired:.3f}   (target ≥ {TARGET:.2f}: {verdict})")


if __name__ == "__main__":
    main()
