"""What the tests of issue 50's rules share: a function run watched or probed with JAX's
own account on, a fresh function object per case, and a reason's changes by path."""

from __future__ import annotations

import itertools
import re
import types
from collections.abc import Callable
from typing import Any

import jax

from jitlab.probe.probe import Probe
from jitlab.records.calls import CallRecord
from jitlab.records.changes import ChangeKind
from jitlab.watching.recorder import watch

from .conftest import JaxCompileLog, jax_account

FACES = ("watch", "probe")
_numbers = itertools.count()


def run(
    face: str, fun: Callable[..., Any], calls: list[tuple[Any, ...]], **jit: Any
) -> tuple[JaxCompileLog, list[CallRecord]]:
    """Call ``fun`` jitted with each argument tuple, watched or probed, with JAX's own
    account on: (JAX's log, the compiled records jitlab filed for it, in order)."""
    with jax_account() as log:
        if face == "watch":
            with watch() as recorder:
                jitted = jax.jit(fun, **jit)
                for args in calls:
                    jitted(*args)
            name = jitted._probe.name  # the watch's probe of it
            records = [c.record for c in recorder.calls if c.record.function == name]
        else:
            probe = Probe(fun, **jit)
            for args in calls:
                probe(*args)
            records = probe.records
    return log, [r for r in records if r.kind.compiled]


def fresh(fun: Callable[..., Any], *tags: object) -> Any:
    """A new function object of ``fun``'s code, named for this case (``tags``) and unique:
    JAX caches it apart, a watch files it apart, JAX's log counts it by its own name."""
    parts = [fun.__name__, *(re.sub(r"\W+", "_", str(t)) for t in tags), str(next(_numbers))]
    name = "_".join(parts)
    made = types.FunctionType(fun.__code__, fun.__globals__, name, fun.__defaults__)
    made.__qualname__ = name
    return made


def named(record: CallRecord) -> dict[str, ChangeKind]:
    """The paths a record's reason names, each with its kind."""
    assert record.reason is not None
    return {c.path: c.kind for c in record.reason.items}
