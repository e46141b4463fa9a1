"""jitlab: see, call by call, what jax.jit really does."""

from __future__ import annotations

from typing import Any

__all__ = [
    "CallKind",
    "CallRecord",
    "Card",
    "CompileBudgetExceeded",
    "Ledger",
    "Probe",
    "Reason",
    "Signature",
    "Summary",
    "budget",
    "watch",
]
__version__ = "0.1.0"

_EXPORTS = {
    "Card": "jitlab.core.probe",
    "Ledger": "jitlab.core.probe",
    "Probe": "jitlab.core.probe",
    "CallKind": "jitlab.core.records",
    "CallRecord": "jitlab.core.records",
    "Reason": "jitlab.core.records",
    "Signature": "jitlab.core.records",
    "Summary": "jitlab.core.records",
    "CompileBudgetExceeded": "jitlab.core.watch",
    "budget": "jitlab.core.watch",
    "watch": "jitlab.core.watch",
}


def __getattr__(name: str) -> Any:
    # Lazy re-exports: importing `jitlab` must not import JAX, so that the desktop app can
    # show its window first and load JAX on its worker thread.
    if name in _EXPORTS:
        import importlib

        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'jitlab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
