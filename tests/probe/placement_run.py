"""Where an array lies, on two simulated CPU devices: committed to either, uncommitted, on
meshes of each kind (another layout, another device order, Explicit axes, one device), in
another memory. XLA reads the device count only before JAX starts, so this runs in a process
of its own (test_placement_text.py starts it): ``python placement_run.py``.

Prints one JSON line: per pair of placements, what JAX's own log (``jax_log_compiles``) and
a probe saw of a fresh function called with both; then checks, on sequences hypothesis draws,
that two calls' signature texts are equal exactly when JAX served them with one executable
(probed, and watched by ``jitlab.watch()``), and exits 1 with the falsifying case if not.
"""

from __future__ import annotations

import os

os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2"
).strip()
os.environ["JAX_PLATFORMS"] = "cpu"  # CPU devices, on a GPU or TPU machine too

import itertools
import json
import logging
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jax.sharding import AxisType, Mesh, NamedSharding, SingleDeviceSharding
from jax.sharding import PartitionSpec as P

import jitlab
from jitlab import Probe
from jitlab.records.change_words import reason_text

COMPILED: list[str] = []  # JAX's log: one name per backend compile


class _Log(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message.startswith("Finished XLA compilation of jit("):
            COMPILED.append(message.split("jit(", 1)[1].split(")", 1)[0])


logging.getLogger("jax").addHandler(_Log(logging.DEBUG))
logging.getLogger("jax").setLevel(logging.DEBUG)
jax.config.update("jax_log_compiles", True)

cpu0, cpu1 = jax.devices()[:2]
AUTO = (AxisType.Auto,)
mesh = Mesh(np.array([cpu0, cpu1]), ("x",), axis_types=AUTO)
backwards = Mesh(np.array([cpu1, cpu0]), ("x",), axis_types=AUTO)
explicit = Mesh(np.array([cpu0, cpu1]), ("x",), axis_types=(AxisType.Explicit,))
only0 = Mesh(np.array([cpu0]), ("x",), axis_types=AUTO)
only1 = Mesh(np.array([cpu1]), ("x",), axis_types=AUTO)


def put(where: Any) -> Callable[[], Any]:
    return lambda: jax.device_put(jnp.ones(4), where)


# Each a fresh f32[4] array (or NumPy's), made at each use as a program makes them.
VARIANTS: dict[str, Callable[[], Any]] = {
    "uncommitted": lambda: jnp.ones(4),
    "uncommitted made on cpu:1": lambda: _made_on(cpu1),
    "numpy": lambda: np.ones(4, np.float32),
    "cpu:0": put(cpu0),
    "cpu:1": put(cpu1),
    "cpu:1 as a sharding": put(SingleDeviceSharding(cpu1)),
    "mesh split": put(NamedSharding(mesh, P("x"))),
    "mesh replicated": put(NamedSharding(mesh, P())),
    "mesh replicated P(None)": put(NamedSharding(mesh, P(None))),
    "mesh split, devices backwards": put(NamedSharding(backwards, P("x"))),
    "mesh split, explicit axis": put(NamedSharding(explicit, P("x"))),
    "one-device mesh on cpu:0": put(NamedSharding(only0, P())),
    "one-device mesh on cpu:1": put(NamedSharding(only1, P())),
}
_own = cpu0.default_memory().kind
OTHER_MEMORY = next((m.kind for m in cpu0.addressable_memories() if m.kind != _own), None)
if OTHER_MEMORY is not None:  # JAX 0.6's CPU has one memory only
    VARIANTS["cpu:0, another memory"] = put(SingleDeviceSharding(cpu0, memory_kind=OTHER_MEMORY))
    VARIANTS["mesh split, another memory"] = put(
        NamedSharding(mesh, P("x"), memory_kind=OTHER_MEMORY)
    )
NAMES = sorted(VARIANTS)


def _made_on(device: Any) -> Any:
    with jax.default_device(device):
        return jnp.ones(4)  # uncommitted, though it lives on cpu:1


def fresh() -> Any:
    def placed(x: Any) -> Any:  # a new function each time: a cache of its own
        return x * 2

    return jax.jit(placed)


def pair(a: str, b: str) -> dict[str, Any]:
    """A fresh function called with ``a``, ``b``, ``a``, ``b``, probed."""
    probe = Probe(fresh())
    COMPILED.clear()
    for name in (a, b, a, b):
        probe(VARIANTS[name]())
    records = probe.records
    return {
        "a": a,
        "b": b,
        "jax": COMPILED.count("placed"),
        "cards": [str(card.signature) for card in probe.ledger.cards],
        "calls": [[str(r.signature), r.card] for r in records],
        "reason": reason_text(records[1].reason) if records[1].reason else "",
    }


PAIRS = {(a, b): pair(a, b) for a, b in itertools.combinations(NAMES, 2)}


def shared(a: str, b: str) -> bool:
    """JAX's answer: one executable for both (its log: one compile for the pair)."""
    return a == b or PAIRS[min(a, b), max(a, b)]["jax"] == 1


@settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(st.sampled_from(NAMES), min_size=1, max_size=8), st.booleans())
def read_alike_exactly_when_one_executable(calls: list[str], watched: bool) -> None:
    COMPILED.clear()
    if watched:  # the watch's face: the recording's calls, as `jitlab watch` writes them
        with jitlab.watch() as recorder:
            f = fresh()
            for name in calls:
                f(VARIANTS[name]())
        records = [c.record for c in recorder.calls if c.record.function == "placed"]
        texts = [str(r.signature) for r in records]
        assert len(set(texts)) == len(texts) == COMPILED.count("placed"), (calls, texts)
        return
    probe = Probe(fresh())
    for name in calls:
        probe(VARIANTS[name]())
    cards = [str(card.signature) for card in probe.ledger.cards]
    assert len(set(cards)) == len(cards) == COMPILED.count("placed"), (calls, cards)
    records = probe.records
    for i, j in itertools.combinations(range(len(calls)), 2):
        alike = str(records[i].signature) == str(records[j].signature)
        assert alike == shared(calls[i], calls[j]), (calls, i, j, cards)


read_alike_exactly_when_one_executable()
print(json.dumps({"jax": jax.__version__, "pairs": list(PAIRS.values())}))
