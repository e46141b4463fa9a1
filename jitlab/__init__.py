"""jitlab: see, call by call, what jax.jit really does.

The public API is :mod:`jitlab.core`'s, re-exported here: ``jitlab.Probe``, ``jitlab.watch``,
``jitlab.budget``, the records (``CallRecord``, ``CallKind``, ``Reason``, ``Change``, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "CallKind",
    "CallRecord",
    "Card",
    "Change",
    "ChangeKind",
    "CompileBudgetExceeded",
    "EquationLine",
    "ErrorInfo",
    "Figures",
    "Ledger",
    "OutputLine",
    "Probe",
    "Reason",
    "Recorder",
    "Script",
    "ScriptDiff",
    "Signature",
    "Summary",
    "budget",
    "render",
    "watch",
]
__version__ = "0.1.0"

if TYPE_CHECKING:
    from jitlab.core import (
        CallKind,
        CallRecord,
        Card,
        Change,
        ChangeKind,
        CompileBudgetExceeded,
        EquationLine,
        ErrorInfo,
        Figures,
        Ledger,
        OutputLine,
        Probe,
        Reason,
        Recorder,
        Script,
        ScriptDiff,
        Signature,
        Summary,
        budget,
        render,
    )
    from jitlab.core.watch import watch


def __getattr__(name: str) -> Any:
    # Lazy re-exports: importing `jitlab` must not import JAX, so that the desktop app can
    # show its window first and load JAX on its worker thread.
    if name in __all__:
        import importlib

        core = importlib.import_module("jitlab.core")
        value = (
            importlib.import_module("jitlab.core.watch").watch
            if name == "watch"
            else getattr(core, name)
        )
        globals()[name] = value
        return value
    raise AttributeError(f"module 'jitlab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
