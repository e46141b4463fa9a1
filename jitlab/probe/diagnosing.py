"""Diagnoses stated while a program runs: ``recompile-limit`` (jax#4390),
``identity-static`` (flax#5548; :class:`IdentityStatic`) and ``executables-growing``
(jax#16778, flax#5548; :class:`ExecutablesGrowing`).

Counting happens on the compile path only (a watch's recorder, and a `Probe` of its
own, hand each compile's record here); a cache hit never reaches this module. It sits in the
probe layer so that a Probe and the watch both reach it (the layers let watching import
probe, not the other way round). A function that passes ``warn_after`` compiles is
diagnosed once: the argument that changed most often in its recompiles' reasons, and the
fix that fits that change (:mod:`jitlab.records.diagnoses` renders the words).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections import Counter
from typing import Protocol

from jitlab.probe import monitor
from jitlab.records import diagnoses
from jitlab.records.changes import ChangeKind
from jitlab.records.diagnoses import (
    EXECUTABLES_GROWING,
    FIX_FOR_CHANGE,
    IDENTITY_STATIC,
    RECOMPILE_LIMIT,
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


_said_bad_environment = False


def warn_after_from_environment() -> int:
    """``JITLAB_WARN_AFTER``, else 8, for a Probe made without ``warn_after=``. A bad value
    is said once on stderr and the default used: a Probe (a lesson in the app, a notebook
    cell) goes on; ``jitlab watch`` and ``jitlab.watch()`` refuse it before the program."""
    global _said_bad_environment
    try:
        return resolve_warn_after(None)
    except ValueError as bad:
        if not _said_bad_environment:
            _said_bad_environment = True
            with contextlib.suppress(Exception):
                sys.stderr.write(f"jitlab: {bad} (using {diagnoses.DEFAULT_WARN_AFTER})\n")
        return diagnoses.DEFAULT_WARN_AFTER


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


class ExecutablesGrowing:
    """executables-growing: one function has more than ``after`` executables still alive
    for one signature (the same arrays, static values that print the same but for an
    object's address: :func:`jitlab.probe.executables.repeat_key`), measured at its compile
    (the record's :class:`~jitlab.records.executables.Executables`, from
    ``live_executables()``): a model or optimizer re-created per epoch, its programs kept.
    Where jitlab did not see the arguments (a function jitted before the watch), more than
    ``after`` alive at all, said with "cannot tell whether they are for different shapes".
    Once per function; on the compile path only."""

    def __init__(self, after: int) -> None:
        self.after = after  # 0: never
        self._compiles: Counter[Key] = Counter()
        self._said: set[Key] = set()

    def compiled(self, call: RecordedCall, t: float | None) -> Diagnosis | None:
        held = call.record.executables
        if not self.after or held is None or held.live is None or call.internal:
            return None
        key = call.key
        self._compiles[key] += 1
        same = held.same_signature
        grown = same if same is not None else held.live
        if grown <= self.after or key in self._said:
            return None
        self._said.add(key)
        figures = {
            "live": held.live,
            "same_signature": same,
            "compiles": self._compiles[key],
            "limit": self.after,
            "code_bytes": held.live_code_bytes,
            "temp_bytes": held.live_temp_bytes,
            "argument_bytes": held.live_argument_bytes,
            "output_bytes": held.live_output_bytes,
        }
        return Diagnosis(EXECUTABLES_GROWING, call.record.function, call.defined_at, figures, t)


class Diagnoser(Protocol):
    """What the recorder and a Probe run on each compile's record (never on a hit)."""

    def compiled(self, call: RecordedCall, t: float | None) -> Diagnosis | None: ...


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
