"""The sharded run: generated programs whose arrays lie on a two-device mesh of simulated
CPU devices. XLA reads the device count only before JAX starts, so this runs in a process of
its own (test_sharded.py starts it): ``python sharded.py EXAMPLES``."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2"
).strip()
os.environ["JAX_PLATFORMS"] = "cpu"  # CPU devices, on a GPU or TPU machine too

sys.path.insert(0, str(Path(__file__).parents[1]))  # the tests folder: this package's parent

import jax
import numpy as np
from hypothesis import HealthCheck, given, settings
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from differential.checking import agree
from differential.known import tolerated_but
from differential.specs import Arr, Call, Node, Param, Program, SetX64
from differential.strategies import Dims, programs

X = Param("x")
Y = Param("y")
# Named cases (test_sharded.py runs each in a process of its own): the rule, the program.
CASES = {
    # x64 switched on and the array moved to the second device: only x64 was named.
    "device-beside": (
        "device-beside",
        Program((X,), (Call((Arr((3,)),)), SetX64(True), Call((Arr((3,), sharding="dev1"),)))),
    ),
    # x moved to the second device as its shape changed, and as y's did: only the shapes
    # were named.
    "device-and-shape": (
        "device-beside",
        Program(
            (X, Y),
            (
                Call((Arr((3,)), Arr((3,)))),
                Call((Arr((2,), sharding="dev1"), Arr((2,)))),
            ),
        ),
    ),
    # x moved back from the second device as y's tuple grew: the move was left out.
    "device-and-tree": (
        "device-beside",
        Program(
            (X, Y),
            (
                Call((Arr((3,), sharding="dev1"), Node("tuple", (("a", Arr((2,))),)))),
                Call((Arr((3,)), Node("tuple", (("a", Arr((2,))), ("b", Arr((2,))))))),
            ),
        ),
    ),
}

SPECS = {"rep": P(), "rep2": P(None), "x": P("x")}


def placer() -> Any:
    devices = jax.devices()
    assert len(devices) >= 2, devices
    mesh = jax.sharding.Mesh(np.array(devices[:2]), ("x",))

    def place(data: Any, name: str) -> Any:
        if name == "dev1":
            return jax.device_put(data, devices[1])
        return jax.device_put(data, NamedSharding(mesh, SPECS[name]))

    return place


def main(examples: int) -> None:
    place = placer()

    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(programs(Dims(sharded=True, kinds=("tuple", "dict"))))
    def agrees(program: Any) -> None:
        agree(program, place=place)

    agrees()
    print(f"{examples} sharded programs agree")


def case(name: str) -> None:
    rule, program = CASES[name]
    agree(program, tolerate=tolerated_but(rule), place=placer())
    print(f"case {name} agrees")


if __name__ == "__main__":
    if sys.argv[1] == "--case":
        case(sys.argv[2])
    else:
        main(int(sys.argv[1]))
