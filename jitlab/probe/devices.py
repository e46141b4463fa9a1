"""Simulated CPU devices for the sharding lessons.

XLA reads ``--xla_force_host_platform_device_count`` once, when JAX starts its backend, so
entry points call :func:`simulate_cpu_devices` before any JAX computation runs.
"""

from __future__ import annotations

import os
import sys
from typing import Any

FLAG = "--xla_force_host_platform_device_count"


def simulate_cpu_devices(count: int = 8) -> bool:
    """Ask for ``count`` CPU devices; False if the backend already started or a count is set."""
    flags = os.environ.get("XLA_FLAGS", "")
    if FLAG in flags:
        return False
    if "jax" not in sys.modules:  # JAX not imported yet, so its backend cannot have started
        os.environ["XLA_FLAGS"] = f"{flags} {FLAG}={count}".strip()
        return True
    from jitlab.probe import _jax

    if _jax.backends_are_initialized():
        return False
    os.environ["XLA_FLAGS"] = f"{flags} {FLAG}={count}".strip()
    return True


def mesh_devices(minimum: int = 2) -> list[Any]:
    """The devices a lesson that shards runs on: the default backend's when it has at least
    ``minimum`` (several GPUs), else the CPU's (simulated by :func:`simulate_cpu_devices`; on a
    one-GPU machine the default backend is the GPU and these sit beside it). Fewer than
    ``minimum`` only when neither has enough: the caller says so."""
    devices = _devices()
    if len(devices) >= minimum:
        return devices
    try:
        cpu = _devices("cpu")
    except RuntimeError:  # no CPU backend (a JAX built without one)
        return devices
    return cpu if len(cpu) >= minimum else devices


def _devices(backend: str | None = None) -> list[Any]:
    """``jax.devices(backend)`` (imported on first use; its ``Client`` argument type is left
    unannotated by JAX)."""
    import jax

    return jax.devices(backend)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]


def mesh_device_count() -> int:
    """How many devices :func:`mesh_devices` offers."""
    return len(mesh_devices())


def devices_text(devices: list[Any]) -> str:
    """``8 × cpu (simulated)`` / ``2 × gpu``: what a sharding lesson ran on (one process sees
    one real CPU device; more are the ones XLA was asked to simulate)."""
    platform = devices[0].platform if devices else "?"
    simulated = platform == "cpu" and len(devices) > 1
    return f"{len(devices)} × {platform}" + (" (simulated)" if simulated else "")
