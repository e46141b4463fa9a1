"""jitlab: see, call by call, what jax.jit really does.

The public API, re-exported here from the packages that define it: ``jitlab.Probe``,
``jitlab.watch``, ``jitlab.budget``, the records (``CallRecord``, ``CallKind``, ``Reason``,
``Change``, ...). Scenario plugins import their spec from :mod:`jitlab.lab.scenario`.

The packages are the layers (each imports only those below it; ``pyproject.toml`` states it
as import contracts): the command line ``cli``, then the faces ``gui`` and ``notebook``, then
``quiz``, then ``watching`` and ``lab``, then ``probe`` (the only package that touches JAX's
internals), then ``records`` (JAX-free data). ``recordings`` and ``report`` read files and
never import JAX. This root sits above them all and nothing inside imports it; the version
lives in the leaf :mod:`jitlab._version`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jitlab._version import __version__ as __version__  # re-exported

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
    "reason_text",
    "render",
    "watch",
]

# name -> the module that defines it
EXPORTS = {
    "CallKind": "jitlab.records.calls",
    "CallRecord": "jitlab.records.calls",
    "Change": "jitlab.records.calls",
    "ErrorInfo": "jitlab.records.calls",
    "OutputLine": "jitlab.records.calls",
    "Reason": "jitlab.records.calls",
    "Signature": "jitlab.records.calls",
    "Summary": "jitlab.records.calls",
    "ChangeKind": "jitlab.records.changes",
    "reason_text": "jitlab.records.change_words",
    "render": "jitlab.records.change_words",
    "Card": "jitlab.probe.probe",
    "Ledger": "jitlab.probe.probe",
    "Probe": "jitlab.probe.probe",
    "EquationLine": "jitlab.records.scripts",
    "Figures": "jitlab.records.scripts",
    "Script": "jitlab.records.scripts",
    "ScriptDiff": "jitlab.records.scripts",
    "CompileBudgetExceeded": "jitlab.watching.budget",
    "Recorder": "jitlab.watching.recorder",
    "budget": "jitlab.watching.budget",
    "watch": "jitlab.watching.recorder",
}

if TYPE_CHECKING:  # for type checkers and IDEs; at runtime the names load on first use
    from jitlab.probe.probe import Card, Ledger, Probe
    from jitlab.records.calls import (
        CallKind,
        CallRecord,
        Change,
        ErrorInfo,
        OutputLine,
        Reason,
        Signature,
        Summary,
    )
    from jitlab.records.change_words import reason_text, render
    from jitlab.records.changes import ChangeKind
    from jitlab.records.scripts import EquationLine, Figures, Script, ScriptDiff
    from jitlab.watching.budget import CompileBudgetExceeded, budget
    from jitlab.watching.recorder import Recorder, watch


def __getattr__(name: str) -> Any:
    # Lazy re-exports: importing `jitlab` must not import JAX, so that the desktop app can
    # show its window first and load JAX on its worker thread.
    module = EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'jitlab' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def load_ipython_extension(ip: Any) -> None:
    """``%load_ext jitlab``: the ``%%jitlab`` and ``%jitlab_watch`` magics and rich display
    of jitlab's objects in a notebook (:mod:`jitlab.notebook`; JAX is not imported)."""
    # Imported when IPython asks for it (the face is not loaded with the package). A plain
    # import, so the contracts see it: the root sits above every layer and nothing inside
    # imports the root (pyproject.toml's "nothing inside jitlab imports its root").
    from jitlab.notebook import load_ipython_extension as load

    load(ip)


def unload_ipython_extension(ip: Any) -> None:
    """``%unload_ext jitlab``: every watch the magics started ends, ``jax.jit`` is JAX's own
    again, and the magics go (:func:`jitlab.notebook.unload_ipython_extension`)."""
    from jitlab.notebook import unload_ipython_extension as unload

    unload(ip)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
