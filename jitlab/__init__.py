"""jitlab: see, call by call, what jax.jit really does."""

from __future__ import annotations

from typing import Any

__all__ = ["CallKind", "CallRecord", "Card", "Ledger", "Probe", "Reason", "Signature", "Summary"]
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
}


def __getattr__(name: str) -> Any:
    # Lazy, so that `jitlab` (the desktop app) can show its window before JAX is imported.
    if name in _EXPORTS:
        import importlib

        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'jitlab' has no attribute {name!r}")
