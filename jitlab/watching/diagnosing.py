"""Diagnoses stated while a program runs: ``recompile-limit`` (jax#4390),
``identity-static`` (flax#5548; :class:`IdentityStatic`) and ``slow-dispatch`` (jax#39289,
jax#39078; :class:`SlowDispatch`, counted where JAX dispatched a hit in Python).

Counting happens on the compile path only (a recorder hands each compile's record here); a
cache hit never reaches this module. A function that passes ``warn_after`` compiles is
diagnosed once: the argument that changed most often in its recompiles' reasons, and the
fix that fits that change (:mod:`jitlab.records.diagnoses` renders the words).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections import Counter

from jitlab.probe import _jax, monitor
from jitlab.records import diagnoses
from jitlab.records.changes import ChangeKind
from jitlab.records.diagnoses import (
    DISPATCH_CALLBACK,
    DISPATCH_NOT_KEPT,
    DISPATCH_UNKNOWN,
    FIX_FOR_CHANGE,
    IDENTITY_STATIC,
    RECOMPILE_LIMIT,
    SLOW_DISPATCH,
    Diagnosis,
    identity_class_of,
    warning_lines,
)
from jitlab.records.lines import Key, RecordedCall

# Changes that say nothing about an argument of the call: not what "keeps changing".
_NOT_AN_ARGUMENT = frozenset(
    {
        ChangeKind.FIRST_CALL,
        ChangeKind.FIRST_SEEN,
        ChangeKind.FIRST_PERSISTENT_LOAD,
        ChangeKind.CACHE_CLEARED,
        ChangeKind.UNKNOWN,
        ChangeKind.JAX_EXPLAINED,
        ChangeKind.RECORDED,
    }
)


def resolve_warn_after(value: object = None) -> int:
    """``warn_after=`` as given, else ``JITLAB_WARN_AFTER``, else 8 (ValueError: one line)."""
    lang = monitor.user_language()
    return diagnoses.resolve_warn_after(value, os.environ, lang, option="warn_after")


class RecompileLimit:
    """Per function of one recording: compiles so far, and what changed in its recompiles."""

    def __init__(self, after: int) -> None:
        self.after = after  # 0: never
        self._compiles: Counter[Key] = Counter()
        self._changes: dict[Key, Counter[tuple[str, str]]] = {}
        self._recompiles: Counter[Key] = Counter()
        self._said: set[Key] = set()

    def compiled(self, call: RecordedCall, t: float | None) -> Diagnosis | None:
        """Count one compile; the diagnosis when this one passes the limit (once per key)."""
        if not self.after or call.internal:
            return None
        key = call.key
        self._compiles[key] += 1
        reason = call.record.reason
        changed = [c for c in reason.items if c.kind not in _NOT_AN_ARGUMENT] if reason else []
        if changed:
            self._recompiles[key] += 1
            seen = self._changes.setdefault(key, Counter())
            for kind_path in {(str(c.kind), c.path or "") for c in changed}:
                seen[kind_path] += 1
        n = self._compiles[key]
        if n <= self.after or key in self._said:
            return None
        self._said.add(key)
        seen = self._changes.get(key) or Counter()
        change, argument, times = "", "", 0
        if seen:
            (change, argument), times = seen.most_common(1)[0]
        if change == str(ChangeKind.NEW_FUNCTION_OBJECT):
            argument = argument or call.record.function
        fix = FIX_FOR_CHANGE.get(change, "other") if argument else "unknown"
        figures = {
            "compiles": n,
            "limit": self.after,
            "argument": argument or None,
            "change": change or None,
            "changed": times,
            "recompiles": self._recompiles[key],
            "fix": fix,
        }
        return Diagnosis(RECOMPILE_LIMIT, call.record.function, call.defined_at, figures, t)


class IdentityStatic:
    """identity-static (flax#5548, optax#353, equinox#940): a recompile whose reason is a
    static value equal in content to the last one but told apart by jit (``==``/``hash`` by
    identity). Stated only where jitlab's diff held both objects and decided it (the
    change's ``identity:`` detail, :func:`jitlab.probe.diff.identity_class`); once per
    function and argument. Runs on the compile path only."""

    def __init__(self) -> None:
        self._said: set[tuple[Key, str]] = set()

    def compiled(self, call: RecordedCall, t: float | None) -> Diagnosis | None:
        reason = call.record.reason
        if reason is None or call.internal:
            return None
        for change in reason.items:
            if change.kind is not ChangeKind.STATIC_VALUE:
                continue
            cls = identity_class_of(change.detail)
            if cls is None or (call.key, change.path) in self._said:
                continue
            self._said.add((call.key, change.path))
            figures = {
                "argument": change.path,
                "class": cls,
                "value": change.after,
            }
            return Diagnosis(IDENTITY_STATIC, call.record.function, call.defined_at, figures, t)
        return None


def dispatch_cause(verdict: str, entries: int) -> str | None:
    """Why a hit ran through JAX's Python dispatch, from what JAX decided in that call
    (``verdict``, a ``_jax.FASTPATH_*`` value) and its C++ cache size for the function after
    it. None: JAX offered C++ an entry and C++ kept it (the call that installs the fast path
    for a signature: every signature has one)."""
    if verdict == _jax.FASTPATH_EFFECTS:
        return DISPATCH_CALLBACK
    if verdict == _jax.FASTPATH_OFFERED:
        return DISPATCH_NOT_KEPT if entries == 0 else None
    return DISPATCH_UNKNOWN


# Said once per process: JAX keeps no new fast-path entry until jax.clear_caches() (jax#39078).
_FAST_PATH_LOST: list[bool] = [False]


class SlowDispatch:
    """slow-dispatch (jax#39289, jax#39078, jax#31319): per function of one recording, the
    hits JAX ran through its Python dispatch, by cause (``dispatch_cause``). Counted only on
    calls that reached JAX's Python dispatch; a hit run by C++ never reaches this class."""

    def __init__(self) -> None:
        self._calls: dict[tuple[str, str | None], Counter[str]] = {}

    def dispatched(
        self, function: str, site: str | None, cause: str, t: float | None
    ) -> Diagnosis | None:
        """Count one call; the live warning when it is the first in this process whose entry
        C++ did not keep (said once per process, not written: the counts are, at the end)."""
        self._calls.setdefault((function, site), Counter())[cause] += 1
        if cause != DISPATCH_NOT_KEPT or _FAST_PATH_LOST[0]:
            return None
        _FAST_PATH_LOST[0] = True
        return Diagnosis(SLOW_DISPATCH, function, site, {"calls": 1, "cause": cause}, t)

    def diagnoses(
        self, hits: dict[tuple[str, str | None], int | None], t: float | None
    ) -> list[Diagnosis]:
        """One diagnosis per function and cause, with its count and the function's hits."""
        found = []
        for (function, site), causes in self._calls.items():
            for cause, n in causes.most_common():
                figures = {"calls": n, "cause": cause, "hits": hits.get((function, site))}
                found.append(Diagnosis(SLOW_DISPATCH, function, site, figures, t))
        return found


def say_live(diagnosis: Diagnosis) -> None:
    """The warning on the program's stderr, now, as one block (never raises)."""
    text = "\n".join(warning_lines(diagnosis, monitor.user_language())) + "\n"
    err = sys.stderr
    with contextlib.suppress(Exception):
        if err is not None and not getattr(err, "closed", False):
            err.write(text)
            err.flush()
            return
        os.write(2, text.encode("utf-8", "backslashreplace"))
