"""The headless core: probe, records, watch and budget. Never imports Qt.

The names below are the public API (also re-exported by :mod:`jitlab`); every other module
in this package is implementation. They load lazily: importing ``jitlab.core`` (or a JAX-free
module in it, such as the records) must not import JAX.
"""

from __future__ import annotations

import importlib
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
]
# ``watch`` (the context manager) is ``jitlab.watch``: here the name is the submodule
# ``jitlab.core.watch``, which Python binds on this package once it is imported.

# name -> the module that defines it
EXPORTS = {
    "CallKind": "jitlab.core.records",
    "CallRecord": "jitlab.core.records",
    "Change": "jitlab.core.records",
    "ErrorInfo": "jitlab.core.records",
    "OutputLine": "jitlab.core.records",
    "Reason": "jitlab.core.records",
    "Signature": "jitlab.core.records",
    "Summary": "jitlab.core.records",
    "ChangeKind": "jitlab.core.changes",
    "render": "jitlab.core.changes",
    "Card": "jitlab.core.probe",
    "Ledger": "jitlab.core.probe",
    "Probe": "jitlab.core.probe",
    "EquationLine": "jitlab.core.scripts",
    "Figures": "jitlab.core.scripts",
    "Script": "jitlab.core.scripts",
    "ScriptDiff": "jitlab.core.scripts",
    "CompileBudgetExceeded": "jitlab.core.watch",
    "Recorder": "jitlab.core.watch",
    "budget": "jitlab.core.watch",
}

if TYPE_CHECKING:  # for type checkers and IDEs; at runtime the names load on first use
    from jitlab.core.changes import ChangeKind, render
    from jitlab.core.probe import Card, Ledger, Probe
    from jitlab.core.records import (
        CallKind,
        CallRecord,
        Change,
        ErrorInfo,
        OutputLine,
        Reason,
        Signature,
        Summary,
    )
    from jitlab.core.scripts import EquationLine, Figures, Script, ScriptDiff
    from jitlab.core.watch import CompileBudgetExceeded, Recorder, budget


def __getattr__(name: str) -> Any:
    module = EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'jitlab.core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
