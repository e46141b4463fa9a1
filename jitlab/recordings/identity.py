"""One way to name a function across recordings (JAX-free).

Inside one recording a function is its key: its name and where it is defined
(:attr:`~jitlab.records.lines.RecordedCall.key`). Across recordings the place may read
differently, and these rules say when two are the same function:

- the processes of one job (:func:`job_key`) may each run from their own checkout: the same
  name, file name and line (``train.py:12``), whatever the folder — what
  :func:`~jitlab.recordings.processes.merge` and the report's lanes pair by;
- two runs of a program, before and after an edit (:func:`pair`): the same name and place;
  else the same name in the same file (the edit moved the line); else the same name, when
  only one function has it in each run — what ``jitlab diff`` pairs by.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import PurePath
from typing import Protocol, TypeVar

from jitlab.records.lines import Key


class Named(Protocol):
    """Anything that names a function: a summary row, a report's function."""

    @property
    def function(self) -> str: ...

    @property
    def defined_at(self) -> str | None: ...


N = TypeVar("N", bound=Named)


@functools.lru_cache(maxsize=4096)  # a merge asks once per call line: few distinct answers
def job_key(function: str, defined_at: str | None) -> Key:
    """A function's name across the processes of one job: ``(name, "train.py:12")``."""
    if defined_at is None:
        return (function, None)
    return (function, PurePath(defined_at).name)  # "train.py:12", wherever the checkout is


def file_of(defined_at: str | None) -> str | None:
    """The file of a ``file:line`` place (the place itself when it names no line)."""
    if defined_at and ":" in defined_at:
        return str(PurePath(defined_at.rpartition(":")[0]))
    return defined_at


def pair(base: Sequence[N], new: Sequence[N]) -> list[tuple[N | None, N | None]]:
    """Each of ``new`` with the same function of ``base`` (see the module's rules), then the
    ones only in ``new`` (``(None, n)``), then the ones only in ``base`` (``(b, None)``)."""
    old = list(base)
    pairs: list[tuple[N | None, N | None]] = []
    unmatched: list[N] = []
    for ours in new:
        theirs = _take(old, ours)
        if theirs is None:
            unmatched.append(ours)
        else:
            pairs.append((theirs, ours))
    for rule in (_same_file, _same_name):
        still: list[N] = []
        for ours in unmatched:
            theirs = _take_unique(old, unmatched, ours, rule)
            if theirs is None:
                still.append(ours)
            else:
                pairs.append((theirs, ours))
        unmatched = still
    return pairs + [(None, ours) for ours in unmatched] + [(theirs, None) for theirs in old]


def _same_file(a: Named, b: Named) -> bool:
    return a.function == b.function and file_of(a.defined_at) == file_of(b.defined_at)


def _same_name(a: Named, b: Named) -> bool:
    return a.function == b.function


def _take(pool: list[N], ours: Named) -> N | None:
    """The first in ``pool`` of the same name and place as ``ours``."""
    for i, item in enumerate(pool):
        if (item.function, item.defined_at) == (ours.function, ours.defined_at):
            return pool.pop(i)
    return None


def _take_unique(
    pool: list[N], others: list[N], ours: N, rule: Callable[[Named, Named], bool]
) -> N | None:
    """The one function in ``pool`` that ``rule`` pairs with ``ours``, if no other of ours
    could claim it (two candidates either way: no guess)."""
    candidates = [s for s in pool if rule(s, ours)]
    rivals = [o for o in others if rule(candidates[0], o)] if len(candidates) == 1 else []
    if len(candidates) != 1 or len(rivals) != 1:
        return None
    pool.remove(candidates[0])
    return candidates[0]
