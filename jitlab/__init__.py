"""jitlab: see, call by call, what jax.jit really does."""

from jitlab.core.probe import Card, Ledger, Probe
from jitlab.core.records import CallKind, CallRecord, Reason, Signature, Summary
from jitlab.core.watch import CompileBudgetExceeded, budget, watch

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
