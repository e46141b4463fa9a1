"""Simulated CPU devices for the sharding lessons.

XLA reads ``--xla_force_host_platform_device_count`` once, when JAX starts its backend, so
entry points call :func:`simulate_cpu_devices` before any JAX computation runs.
"""

from __future__ import annotations

import os
import sys

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
