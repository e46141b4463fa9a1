"""Helpers for what a scenario notes beyond JAX's records (its ``facts()``, shown in the log
beside each call, and read by a verdict): a result in a few numbers, a program's size.

Imports no JAX: they read what they are given (an array, a jaxpr) by its public attributes.
"""

from __future__ import annotations

from typing import Any

__all__ = ["count_equations", "first_values"]


def first_values(values: Any, n: int = 8) -> list[float]:
    """The first ``n`` numbers of an array (any shape), rounded: a result as the log shows it."""
    import numpy as np

    return [round(float(v), 4) for v in np.asarray(values).ravel()[:n]]


def count_equations(jaxpr: Any) -> int:
    """Equations in a jaxpr, counting each sub-graph (cond branches, scan body) once: the size
    of a traced program, as a ``PROGRAM_SIZE`` comparison reads it."""
    total = 0
    for eqn in jaxpr.eqns:
        total += 1
        for value in eqn.params.values():
            for sub in value if isinstance(value, tuple | list) else (value,):
                if hasattr(sub, "eqns"):  # a Jaxpr (a ClosedJaxpr up to JAX 0.10)
                    total += count_equations(sub)
    return total
