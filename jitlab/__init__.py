"""jitlab: see, call by call, what jax.jit really does."""

from jitlab.core.probe import Card, Ledger, Probe
from jitlab.core.records import CallKind, CallRecord, Reason, Signature, Summary

__all__ = ["CallKind", "CallRecord", "Card", "Ledger", "Probe", "Reason", "Signature", "Summary"]
__version__ = "0.1.0"
