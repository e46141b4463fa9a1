"""What `jitlab watch` costs a real program: per cache hit, and per compile, in one run.

    python benchmarks/watch_scale.py [--quick] [--only hits|python|leaves|nnx|compiles]
        [--signatures N] [--repeats K] [--side-by-side]

Targets (issue 24): a watched hit adds at most 0.4 µs over the unwatched call (a bare
counting wrapper costs ~0.2 µs), so a ~20 µs step keeps ≥ 0.98× the unwatched rate; a
program compiling one function for 1,000 signatures runs within 10 % of its plain time
under `jitlab watch`.

* **hits**: ~20 µs and ~50 µs steps (a chain of small matmuls), unwatched, under a bare
  counting wrapper and watched, in short blocks that alternate (machine noise hits all
  alike). Per-hit µs are medians of blocks; "paired" ratios are the median over rounds of
  each watched block's rate against the unwatched block just before it; the spread is the
  10th–90th percentile of those paired figures.
* **python**: the same three on the cheapest jitted call (a scalar add, ~4 µs of dispatch):
  the added µs there is the watch's own Python per hit, which the steps above hide in their
  noise.
* **leaves**: the added µs of a watched hit against the number of leaves of its argument
  (1 … 10,000): the watch never looks at the arguments of a hit, so it should stay flat.
* **nnx**: a Flax NNX train step (nnx.jit, optax-free SGD) at two batch sizes, alternating
  batches as a train/eval loop does, unwatched vs watched.
* **compiles**: a program that compiles one function for N distinct signatures, run as
  `python prog.py N` and as `jitlab watch -- python prog.py N` in subprocesses, the two
  alternating; wall time of each run (interpreter start and imports included, the same for
  both), median and spread over the repeats. With ``--side-by-side`` each pair runs at the
  same time, one process per core: a slow spell of a shared machine then slows both, and
  the paired ratio keeps less of it (±15 % between runs one after the other here).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent


def spread(values: list[float]) -> str:
    """median [p10 – p90] of the figures."""
    ordered = sorted(values)
    lo = ordered[int(0.1 * (len(ordered) - 1))]
    hi = ordered[int(0.9 * (len(ordered) - 1) + 0.5)]
    return f"{statistics.median(ordered):.3f} [{lo:.3f}–{hi:.3f}]"


# -- hits ----------------------------------------------------------------------------------------
def _chain(depth: int):
    import jax.numpy as jnp

    def step(w, x):
        for _ in range(depth):
            x = jnp.tanh(x @ w)
        return x

    return step


def _blocks(fns: dict[str, object], call, steps: int, rounds: int) -> dict[str, list[float]]:
    """µs per call of each function, one block each per round, alternating."""
    per_call: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            start = time.perf_counter()
            out = None
            for _ in range(steps):
                out = call(fn)
            out.block_until_ready()  # type: ignore[attr-defined]
            per_call[name].append((time.perf_counter() - start) / steps * 1e6)
    return per_call


def _report_rows(title: str, per_call: dict[str, list[float]]) -> None:
    bare = per_call["unwatched"]
    print(f"\n{title}")
    print(f"  {'':10s} {'µs/call':>22s} {'added µs (paired)':>28s} {'rate ratio (paired)':>28s}")
    for name, values in per_call.items():
        added = [v - b for v, b in zip(values, bare, strict=True)]
        ratio = [b / v for v, b in zip(values, bare, strict=True)]
        print(f"  {name:10s} {spread(values):>22s} {spread(added):>28s} {spread(ratio):>28s}")


def bench_hits(quick: bool) -> None:
    import jax
    import jax.numpy as jnp

    from jitlab.watching.recorder import watch

    rounds = 15 if quick else 41
    for depth, label in ((3, "~20 µs"), (8, "~50 µs")):
        w, x = jnp.eye(64) * 0.5, jnp.ones((64, 64))
        # Functions of their own: JAX shares caches between jax.jit wrappers of one function.
        unwatched = jax.jit(_chain(depth))
        counter = itertools.count()

        def counting(*args, _f=unwatched, _n=counter):
            next(_n)
            return _f(*args)

        with watch(None):
            watched = jax.jit(_chain(depth))
            fns = {"unwatched": unwatched, "counting": counting, "watched": watched}
            for fn in fns.values():
                fn(w, x).block_until_ready()
            per_call = _blocks(fns, lambda fn, w=w, x=x: fn(w, x), 400, rounds)
        _report_rows(f"hits: a {label} step ({depth} matmuls of 64×64), {rounds} rounds", per_call)


def bench_python(quick: bool) -> None:
    """The watch's own Python per hit: on the cheapest jitted call (a scalar add, ~4 µs of
    dispatch) the added time is what the stand-in does, not what JAX does."""
    import jax
    import jax.numpy as jnp

    from jitlab.watching.recorder import watch

    rounds = 21 if quick else 61
    x = jnp.float32(1.0)
    unwatched = jax.jit(lambda x: x + 1)
    counter = itertools.count()

    def counting(*args, _f=unwatched, _n=counter):
        next(_n)
        return _f(*args)

    with watch(None):
        watched = jax.jit(lambda x: x + 1)
        fns = {
            "unwatched": unwatched,
            "counting": counting,
            "forwarding": _Forwarding(unwatched),
            "floor": _Floor(unwatched),
            "watched": watched,
        }
        for fn in fns.values():
            fn(x).block_until_ready()
        per_call = _blocks(fns, lambda fn, x=x: fn(x), 2000, rounds)
    _report_rows(f"python: the cheapest jitted call (a scalar add), {rounds} rounds", per_call)
    print(
        "  forwarding: a class whose __call__ only forwards (what a stand-in for JAX's jitted\n"
        "  object costs at least); floor: that, plus one count; watched: that, plus what tells\n"
        "  a hit from any other call (one attribute, one gate, the event mark read before and\n"
        "  after; hooks tell the rest, and time a call that is no hit)"
    )


class _Forwarding:
    def __init__(self, jitted: Any) -> None:
        self._jitted = jitted

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Keywords passed on only when there are some, as the watch does (a dict fewer).
        return self._jitted(*args, **kwargs) if kwargs else self._jitted(*args)


class _Floor(_Forwarding):
    """A stand-in that forwards and counts, and does nothing else: what any watched hit
    costs at least (the watch's own reads come on top)."""

    def __init__(self, jitted: Any) -> None:
        super().__init__(jitted)
        self._count = itertools.count()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        result = self._jitted(*args, **kwargs) if kwargs else self._jitted(*args)
        next(self._count)
        return result


def bench_leaves(quick: bool) -> None:
    import jax
    import jax.numpy as jnp

    from jitlab.watching.recorder import watch

    rounds = 9 if quick else 21
    print(f"\nleaves: added µs of a watched hit (paired, median [p10–p90]), {rounds} rounds")
    print(f"  {'leaves':>7s} {'unwatched µs':>22s} {'added µs':>24s}")
    for leaves in (1, 10, 100, 1_000, 10_000):
        tree = [jnp.ones(2) for _ in range(leaves)]

        def first(tree):
            return tree[0] + 1.0

        unwatched = jax.jit(first)
        with watch(None):
            watched = jax.jit(lambda tree: first(tree))
            fns = {"unwatched": unwatched, "watched": watched}
            for fn in fns.values():
                fn(tree).block_until_ready()
            steps = max(10, 4000 // leaves)
            per_call = _blocks(fns, lambda fn, t=tree: fn(t), steps, rounds)
        added = [w - b for w, b in zip(per_call["watched"], per_call["unwatched"], strict=True)]
        print(f"  {leaves:>7d} {spread(per_call['unwatched']):>22s} {spread(added):>24s}")


def bench_nnx(quick: bool) -> None:
    try:
        from flax import nnx
    except ImportError:
        print("\nnnx: flax is not installed; skipped")
        return
    import jax
    import jax.numpy as jnp

    from jitlab.watching.recorder import watch

    class Model(nnx.Module):
        def __init__(self, rngs: nnx.Rngs) -> None:
            self.a = nnx.Linear(32, 64, rngs=rngs)
            self.b = nnx.Linear(64, 1, rngs=rngs)

        def __call__(self, x: jax.Array) -> jax.Array:
            return self.b(jax.nn.relu(self.a(x)))

    def make_step():
        def step(model, x, y):
            def loss(model):
                return jnp.mean((model(x)[:, 0] - y) ** 2)

            value, grads = nnx.value_and_grad(loss)(model)
            params = nnx.state(model, nnx.Param)
            nnx.update(model, jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads))
            return value

        return step

    batches = [(jnp.ones((b, 32)), jnp.ones(b)) for b in (32, 8)]  # train and a last batch
    rounds = 11 if quick else 31
    plain_model = Model(nnx.Rngs(0))
    unwatched = nnx.jit(make_step())
    with watch(None) as recorder:
        watched_model = Model(nnx.Rngs(0))
        watched = nnx.jit(make_step())
        models = {"unwatched": (unwatched, plain_model), "watched": (watched, watched_model)}
        for fn, model in models.values():
            for x, y in batches:
                fn(model, x, y).block_until_ready()
        turn = itertools.cycle(batches)

        def call(entry):
            fn, model = entry
            x, y = next(turn)
            return fn(model, x, y)

        per_call = _blocks(models, call, 100, rounds)
        hits = sum(s.hits or 0 for s in recorder.stats.values())
    title = f"nnx: a Flax NNX train step, batches 32 and 8 alternating, {rounds} rounds"
    _report_rows(title + f" ({hits} watched hits counted)", per_call)


# -- compiles -----------------------------------------------------------------------------------
PROGRAM = textwrap.dedent(
    """\
    import sys
    import jax
    import jax.numpy as jnp

    def f(x):
        for _ in range(4):
            x = jnp.tanh(x * 1.5 + jnp.sin(x))
        return x.sum()

    step = jax.jit(f)
    for n in range(1, int(sys.argv[1]) + 1):
        step(jnp.ones(n)).block_until_ready()
    """
)


def bench_compiles(
    quick: bool, counts: list[int] | None, repeats: int | None = None, side_by_side: bool = False
) -> None:
    sizes = counts or ([1, 10, 100] if quick else [1, 10, 100, 1_000])
    jitlab = str(BIN / "jitlab")
    env = {**os.environ, "JAX_PLATFORMS": os.environ.get("JAX_PLATFORMS", "cpu")}
    print("\ncompiles: one function, N distinct signatures; wall s per run, median [p10–p90]")
    if side_by_side:
        print("  (each pair run at the same time, one process per core: a slow spell of the")
        print("  machine slows both, so the paired ratio keeps less of it)")
    print(f"  {'N':>6s} {'plain s':>22s} {'watched s':>22s} {'watched/plain (paired)':>26s}")
    with tempfile.TemporaryDirectory() as tmp:
        prog = Path(tmp) / "prog.py"
        prog.write_text(PROGRAM)
        out = Path(tmp) / "run.jsonl"
        for n in sizes:
            rounds = repeats or (3 if n >= 1_000 else 5 if n >= 100 else 7)
            plain_s, watched_s = [], []
            plain = [sys.executable, str(prog), str(n)]
            watched = [jitlab, "watch", "--out", str(out), "--", "python", str(prog), str(n)]
            for _ in range(rounds):
                out.unlink(missing_ok=True)
                if side_by_side:
                    plain_s_, watched_s_ = _at_once(plain, watched, env)
                    plain_s.append(plain_s_)
                    watched_s.append(watched_s_)
                    continue
                for runs, command in ((plain_s, plain), (watched_s, watched)):
                    start = time.perf_counter()
                    subprocess.run(command, check=True, env=env, capture_output=True)
                    runs.append(time.perf_counter() - start)
            ratio = [w / p for w, p in zip(watched_s, plain_s, strict=True)]
            print(f"  {n:>6d} {spread(plain_s):>22s} {spread(watched_s):>22s} {spread(ratio):>26s}")


def _at_once(first: list[str], second: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds of two commands started together, each until it ends."""
    start = time.perf_counter()
    running = [
        subprocess.Popen(c, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for c in (first, second)
    ]
    ended: dict[int, float] = {}
    while len(ended) < 2:
        for i, process in enumerate(running):
            if i not in ended and process.poll() is not None:
                if process.returncode:
                    raise subprocess.CalledProcessError(process.returncode, process.args)
                ended[i] = time.perf_counter() - start
        time.sleep(0.05)
    return ended[0], ended[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds; compiles up to 100")
    parser.add_argument(
        "--only", choices=["hits", "python", "leaves", "nnx", "compiles"], action="append"
    )
    parser.add_argument("--signatures", type=int, action="append", help="compiles: N to run")
    parser.add_argument("--repeats", type=int, help="compiles: plain/watched pairs per N")
    parser.add_argument(
        "--side-by-side",
        action="store_true",
        help="compiles: run each plain/watched pair at the same time (needs 2 free cores)",
    )
    args = parser.parse_args()
    import jax

    print(f"jax {jax.__version__} on {jax.default_backend()}, python {sys.version.split()[0]}")
    parts = args.only or ["hits", "python", "leaves", "nnx", "compiles"]
    if "hits" in parts:
        bench_hits(args.quick)
    if "python" in parts:
        bench_python(args.quick)
    if "leaves" in parts:
        bench_leaves(args.quick)
    if "nnx" in parts:
        bench_nnx(args.quick)
    if "compiles" in parts:
        bench_compiles(args.quick, args.signatures, args.repeats, args.side_by_side)


if __name__ == "__main__":
    main()
