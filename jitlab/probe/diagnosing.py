"""Diagnoses stated while a program runs: ``recompile-limit`` (jax#4390),
``identity-static`` (flax#5548; :class:`IdentityStatic`), ``executables-growing``
(jax#16778, flax#5548; :class:`ExecutablesGrowing`), ``captured-constant`` (optax#577;
:class:`CapturedConstant`) and ``slow-dispatch`` (jax#39289, jax#39078; :class:`SlowDispatch`,
counted where JAX dispatched a hit in Python). ``call-site-cost`` is read from a recording's
call lines (:mod:`jitlab.records.site_costs`).

Counting happens on the compile path only (a watch's recorder, and a `Probe` of its
own, hand each compile's record here); a cache hit never reaches this module. It sits in the
probe layer so that a Probe and the watch both reach it (the layers let watching import
probe, not the other way round). A function that passes ``warn_after`` compiles is
diagnosed once: the argument that changed most often in its recompiles' reasons, and the
fix that fits that change (:mod:`jitlab.records.diagnoses` renders the words).
"""

from __future__ import annotations

import os
import threading
from collections import Counter, defaultdict, deque
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Protocol

from jitlab.probe import _jax, constants, diff, executables, monitor, scripts, wrappers
from jitlab.probe.sites import definition_site
from jitlab.records import diagnoses
from jitlab.records.calls import CallRecord, Change, Reason, Signature
from jitlab.records.changes import ChangeKind
from jitlab.records.diagnoses import (
    CAPTURED_CONSTANT,
    DISPATCH_CALLBACK,
    DISPATCH_NOT_KEPT,
    DISPATCH_UNKNOWN,
    EXECUTABLES_GROWING,
    FIX_FOR_CHANGE,
    IDENTITY_STATIC,
    RECOMPILE_LIMIT,
    SLOW_DISPATCH,
    Diagnosis,
    identity_parts,
    warning_lines,
)
from jitlab.records.lines import Key, RecordedCall, RecordedNotice
from jitlab.records.messages import notice_texts, say

if TYPE_CHECKING:
    from jitlab.probe.cards import Card

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
            monitor.say_words(f"jitlab: {bad} (using {diagnoses.DEFAULT_WARN_AFTER})\n")
        return diagnoses.DEFAULT_WARN_AFTER


class RecompileLimit:
    """Per function of one recording: compiles so far, and what changed in its recompiles.

    Stated past ``after`` compiles, unless the program settled on each signature it compiled
    (:func:`diagnoses.is_settled`, over the last ``after`` of them): each a signature never
    compiled before, used on average at least twice before the next came (an architecture
    sweep, a layer count per experiment, ten sequence buckets met in any order). Bucketing
    or pinning a value would change nothing there; a batch that wobbles, compiling on almost
    every call, is the fault.

    Not counted, as not the function compiled again: a transformation's follow-on program
    (grad's backward pass), a transformation of inputs the function already had (its
    gradient, its JVP, its vmap over the same arrays: each a program of its own, compiled
    once), and the first compile of a function object made beside others of its code still
    alive (:func:`diagnoses.another_function`)."""

    def __init__(self, after: int) -> None:
        self.after = after  # 0: never
        self._compiles: Counter[Key] = Counter()
        self._changes: dict[Key, Counter[tuple[str, str]]] = {}
        self._recompiles: Counter[Key] = Counter()
        self._said: set[Key] = set()
        # Each function's latest counted compiles (call number, compiles not counted so
        # far) and whether each was a signature never compiled before: is_settled reads the
        # last `after` + 1 (bounded: O(1) a compile); its last value of each static that
        # changed (an int?); the signatures it compiled (repeat keys) and the last one.
        window = min(after, _SETTLED_WINDOW) + 1
        self._window: dict[Key, deque[tuple[int, int]]] = defaultdict(lambda: deque(maxlen=window))
        self._all_new: dict[Key, bool] = {}
        self._skipped: Counter[Key] = Counter()
        self._values: dict[tuple[Key, str], str | None] = {}
        self._signatures: dict[Key, set[Hashable]] = defaultdict(set)
        self._last_signature: dict[Key, Signature] = {}
        # Each function's signatures compiled so far (its leaves, statics and tree), with the
        # function object that compiled each first: a later function object compiling one
        # again lost it with the object, whatever its reason names (the closest card of the
        # new object's own empty holder).
        self._compiled: dict[Key, dict[tuple[object, ...], int]] = {}

    def compiled(self, call: RecordedCall, t: float | None) -> Diagnosis | None:
        """Count one compile; the diagnosis when this one passes the limit (once per key)."""
        if not self.after or call.internal:
            return None
        key = call.key
        record = call.record
        reason = record.reason
        changed = self._changed(key, record)
        if changed is None:
            self._skipped[key] += 1  # not this function compiled again (see the class)
            return None
        self._compiles[key] += 1
        again = self._compiled_by_another_object(call)
        if changed:
            self._recompiles[key] += 1
            seen = self._changes.setdefault(key, Counter())
            if again:
                seen[(str(ChangeKind.NEW_FUNCTION_OBJECT), "")] += 1  # a jit made once: a hit
            else:  # each change once, in the reason's order (ties are named in that order)
                for kind_path in dict.fromkeys(_counted(c) for c in changed):
                    seen[kind_path] += 1
            for c in changed:
                if c.kind is ChangeKind.STATIC_VALUE:
                    self._values[(key, c.path or "")] = c.after
        index = -1 if call.events_only else record.index  # an events-only: no calls seen
        window = self._window[key]
        if window:  # a recompile: was it a signature never compiled before?
            new = diagnoses.new_signature(reason, record.executables)
            if _transformed_paths(reason) is not None:
                new = True  # a transformation of inputs it never had (_changed)
            self._all_new[key] = self._all_new.get(key, True) and new is True
        window.append((index, self._skipped[key]))
        n = self._compiles[key]
        if n <= self.after or key in self._said:
            return None
        if self._all_new.get(key, False) and diagnoses.is_settled(window):
            return None  # configurations or buckets, each compiled once and used
        self._said.add(key)
        seen = self._changes.get(key) or Counter()
        change, argument, times, tied = "", "", 0, []
        if seen:
            (change, argument), times = seen.most_common(1)[0]
            # Another argument changed as often, the same way: both are named (the most
            # common alone would be one of them picked by the order they came in).
            tied = [p for (k, p), c in seen.items() if c == times and k == change and p != argument]
        if change == str(ChangeKind.NEW_FUNCTION_OBJECT):
            argument = argument or record.function
        fix = FIX_FOR_CHANGE.get(change, "other") if argument else "unknown"
        if fix == "static" and diagnoses.is_int_text(self._values.get((key, argument))):
            fix = "static_int"  # a number that may set a shape: bucket it, never "trace it"
        figures = {
            "compiles": n,
            "limit": self.after,
            "argument": argument or None,
            "change": change or None,
            "changed": times,
            "recompiles": self._recompiles[key],
            "fix": fix,
        }
        if tied:
            figures["tied"] = ", ".join(tied)
        return Diagnosis(RECOMPILE_LIMIT, record.function, call.defined_at, figures, t)

    def _changed(self, key: Key, record: CallRecord) -> list[Change] | None:
        """What changed of the call's arguments in this compile (empty: its first, or a
        change that names none); None when the compile is not this function compiled again
        (see the class)."""
        reason, signature = record.reason, record.signature
        if diagnoses.another_function(reason, record.executables):
            return None
        repeat = executables.repeat_key(signature) if signature is not None else None
        seen = self._signatures[key]
        paths = _transformed_paths(reason)
        if paths is None:
            changed = [c for c in reason.items if c.kind not in _NOT_AN_ARGUMENT] if reason else []
        elif paths & diagnoses.FOLLOW_ON or repeat is None or repeat in seen:
            return None
        else:
            # A transformation of inputs the function never had: JAX's reason names no
            # argument (ChangeKind.TRANSFORMED), so what changed is read from the signatures.
            last = self._last_signature.get(key)
            changed = []
            if last is not None and signature is not None:
                changed = [c for c in diff.diff(signature, last) if c.kind not in _NOT_AN_ARGUMENT]
        if repeat is not None:
            seen.add(repeat)
        if signature is not None:
            self._last_signature[key] = signature
        return changed

    def _compiled_by_another_object(self, call: RecordedCall) -> bool:
        """Did an earlier function object of this function compile this very signature?
        Then this compile is the new object's, whatever changed from its own last card (a
        function jitted anew per epoch: batches of 32, a last batch of 4, each epoch)."""
        signature = call.record.signature
        if signature is None:
            return False
        compiled = self._compiled.setdefault(call.key, {})
        first = compiled.setdefault(
            (signature.leaves, signature.statics, signature.tree), signature.function
        )
        return first != signature.function


# RecompileLimit's window: the latest compiles whose spacing says whether the program settled.
_SETTLED_WINDOW = 32


def _transformed_paths(reason: Reason | None) -> frozenset[str] | None:
    """The transformations a compile's reason names, where it names nothing else (a
    program of the function under grad, jvp, vmap…); None for any other reason."""
    if reason is None or not reason.items:
        return None
    if any(c.kind is not ChangeKind.TRANSFORMED for c in reason.items):
        return None
    return frozenset(part for c in reason.items for part in (c.path or "").split(",") if part)


def _counted(change: Change) -> tuple[str, str]:
    """A change as recompile-limit counts it: its kind and argument (a new function object's
    path is its definition site, not an argument: one entry for the function)."""
    if change.kind is ChangeKind.NEW_FUNCTION_OBJECT:
        return (str(change.kind), "")
    return (str(change.kind), change.path or "")


class IdentityStatic:
    """identity-static (flax#5548, optax#353, equinox#940): a recompile whose reason is a
    static value (or a pytree's static data: a Flax NNX graph's attribute) equal in content
    to the last one but told apart by jit (``==``/``hash`` by identity). Stated only where
    jitlab's diff held both objects and decided it (the change's ``identity:`` detail,
    :mod:`jitlab.probe.identity`); once per
    function and argument. Runs on the compile path only."""

    def __init__(self) -> None:
        self._said: set[tuple[Key, str]] = set()

    def compiled(self, call: RecordedCall, t: float | None) -> Diagnosis | None:
        reason = call.record.reason
        if reason is None or call.internal:
            return None
        for change in reason.items:
            if change.kind not in (ChangeKind.STATIC_VALUE, ChangeKind.TREE_STRUCTURE):
                continue
            parts = identity_parts(change.detail)
            if parts is None or (call.key, change.path) in self._said:
                continue
            self._said.add((call.key, change.path))
            figures: dict[str, str | bool | None] = {
                "argument": change.path,
                "class": parts["class"],
                "value": change.after,
            }
            # Where measured (jitlab.probe.identity): a function made anew inside it, the
            # pytree node holding it, and whether that node is a Flax NNX graph's.
            figures.update((k, parts[k]) for k in ("function", "node", "kind") if k in parts)
            if parts.get("graph") == "nnx":
                figures["graph"] = True
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


MAX_DIAGNOSES = 64  # kept per probe (each id is stated once per function or argument)


class ProbeDiagnoses:
    """A Probe's own diagnosers and what they stated on its compiles (recompile-limit past
    ``after`` compiles, identity-static, executables-growing), in the order stated. Called
    with the probe's lock held."""

    def __init__(self, after: int) -> None:
        self.after = after  # compiles past which recompile-limit is stated (0: never)
        self._diagnosers: tuple[Diagnoser, ...] = (
            RecompileLimit(after),
            IdentityStatic(),
            ExecutablesGrowing(after),
        )
        self.stated: list[Diagnosis] = []
        self._site: str | None = None  # where the function is defined, found once

    @property
    def site(self) -> str | None:
        """Where the function is defined (``file:line``), once a compile found it."""
        return self._site

    def compiled(self, record: CallRecord, fn: Any) -> None:
        """Run the diagnosers on the record of a compile of ``fn``; keep what they state."""
        if self._site is None:
            self._site = definition_site(fn) or None
        call = RecordedCall(record, self._site)
        for diagnoser in self._diagnosers:
            found = diagnoser.compiled(call, None)
            if found is not None and len(self.stated) < MAX_DIAGNOSES:
                self.stated.append(found)


class Compiled(scripts.Probed, Protocol):
    """What captured-constant reads of the probe that compiled
    (:class:`jitlab.probe.probe.Probe`): what a script reads of it, and its cards. The
    probe imports this module, never the other way round."""

    def card(self, index: int) -> Card: ...


class CapturedConstant:
    """captured-constant (optax#577): a recompile whose only change is a new function object
    of the same code, compared with the last program of that function and signature.

    On each compile of a ``jax.jit`` function (any may capture a constant, if only through
    an object it reads, such as an Optax optimizer built with the learning rate), the
    program's jaxpr is read again from JAX's tracing cache (:func:`scripts.traced_jaxpr`)
    and reduced to a :class:`constants.Program`. Stated once per function: the constant that
    changed and its two values; or, where the programs differ in more than constants or
    the jaxpr could not be had, that jitlab cannot tell. Runs on the compile path only."""

    _KEPT = 8  # programs kept per function (one per signature, the latest few)

    def __init__(self) -> None:
        self._last: dict[Key, dict[Any, constants.Program]] = {}
        self._said: set[Key] = set()

    def compiled(self, call: RecordedCall, probe: Compiled, t: float | None) -> Diagnosis | None:
        record, key = call.record, call.key
        info = probe.wrapper
        fun = info.function
        if call.internal or record.card is None or key in self._said:
            return None
        # jax.jit's own trace answers from JAX's tracing cache; a wrapper's (equinox's
        # filter_make_jaxpr) would run the user's Python again: not read.
        if info.kind != wrappers.JAX_JIT:
            return None
        reason = record.reason
        items = [c.kind for c in reason.items] if reason is not None else []
        recreated = ChangeKind.NEW_FUNCTION_OBJECT in items and all(
            kind is ChangeKind.NEW_FUNCTION_OBJECT or kind in _NOT_AN_ARGUMENT for kind in items
        )
        # Made beside earlier objects still alive (a factory's closures, each its own
        # constant and all in use): another function, not the last one made again.
        recreated = recreated and not diagnoses.another_function(reason, record.executables)
        try:
            closed, _ = scripts.traced_jaxpr(probe, probe.card(record.card))
            program = constants.program(closed, fun) if closed is not None else None
        except Exception:  # the program goes on; "cannot tell" below
            program = None
        signature = record.signature
        by_signature = self._last.setdefault(key, {})
        shape = (signature.leaves, signature.statics, signature.tree) if signature else None
        old = by_signature.pop(shape, None)  # the last program: compared once, then replaced
        if program is not None:
            by_signature[shape] = program
        while len(by_signature) > self._KEPT:
            del by_signature[next(iter(by_signature))]
        if not recreated or old is None:
            return None
        figures: dict[str, Any] = {"told": False, "equations_before": old.equations}
        if program is None:
            figures["why"] = "no_jaxpr"
        else:
            figures["equations_after"] = program.equations
            changes = constants.changed_constants(old, program)
            if changes == []:
                return None  # the same program: nothing captured changed (recompile-limit)
            if changes is None:
                same = old.shape == program.shape
                figures["why"] = "unread" if same else "shape"
            else:
                first = changes[0]
                figures.update(
                    told=True,
                    constant=first.name,
                    kind=first.kind,
                    type=first.type_text,
                    before=first.before,
                    after=first.after,
                    changed=len(changes),
                )
        self._said.add(key)
        return Diagnosis(CAPTURED_CONSTANT, record.function, call.defined_at, figures, t)


def hit_cause() -> str | None:
    """Why the hit this thread's Python dispatch just ran did not take JAX's C++ fast path;
    None: JAX did not say, or it offered C++ an entry (:func:`dispatch_cause`)."""
    verdict = monitor.fastpath_verdict()
    return None if verdict is None else dispatch_cause(verdict)


def dispatch_cause(verdict: str) -> str | None:
    """Why a hit ran through JAX's Python dispatch, from what JAX decided in that call
    (``verdict``, a ``_jax.FASTPATH_*`` value). None: JAX offered C++ an entry, which
    installs the fast path for that signature (its first call, or again after C++'s cache
    of 8,192 entries evicted it).

    Never ``not-kept``: C++ stores the entry before it asks Python and keeps it even with
    8,192 entries alive (it evicts the oldest one), measured on JAX 0.10.2 and 0.12. The
    function's ``_cache_size()`` is no witness there: on 0.10.2 it reads 0 while C++ runs
    the hits (each eviction is taken off the inserting function's count; jax#39078's
    symptom). See docs/diagnoses/slow-dispatch.md."""
    if verdict == _jax.FASTPATH_EFFECTS:
        return DISPATCH_CALLBACK
    if verdict == _jax.FASTPATH_OFFERED:
        return None
    return DISPATCH_UNKNOWN


# Said once per process: JAX keeps no new fast-path entry until jax.clear_caches() (jax#39078).
_FAST_PATH_LOST: list[bool] = [False]


class SlowDispatch:
    """slow-dispatch (jax#39289, jax#39078, jax#31319): per function of one recording, the
    hits JAX ran through its Python dispatch, by cause (``dispatch_cause``), and the time
    those calls took from JAX's dispatch on (where the caller timed them). Counted only on
    calls that reached JAX's Python dispatch; a hit run by C++ never reaches this class."""

    def __init__(self) -> None:
        self._calls: dict[tuple[str, str | None], Counter[str]] = {}
        self._ms: dict[tuple[tuple[str, str | None], str], float] = {}
        self._lock = threading.Lock()  # a Probe's hits count from any thread

    def count(self, function: str, site: str | None, cause: str, ms: float | None = None) -> None:
        """Count one call JAX ran through its Python dispatch, for ``cause`` (``ms``: its
        time, where known)."""
        with self._lock:
            self._calls.setdefault((function, site), Counter())[cause] += 1
            if ms is not None:
                key = ((function, site), cause)
                self._ms[key] = self._ms.get(key, 0.0) + ms

    def dispatched(
        self,
        function: str,
        site: str | None,
        cause: str,
        t: float | None,
        ms: float | None = None,
    ) -> Diagnosis | None:
        """Count one call; the live warning when it is the first in this process whose entry
        C++ did not keep (said once per process, not written: the counts are, at the end)."""
        self.count(function, site, cause, ms)
        if cause != DISPATCH_NOT_KEPT or _FAST_PATH_LOST[0]:
            return None
        _FAST_PATH_LOST[0] = True
        return Diagnosis(SLOW_DISPATCH, function, site, {"calls": 1, "cause": cause}, t)

    def diagnoses(
        self,
        hits: dict[tuple[str, str | None], int | None],
        t: float | None,
        program_s: float | None = None,
    ) -> list[Diagnosis]:
        """One diagnosis per function and cause, with its count and the function's hits;
        where the calls were timed, their milliseconds and, given the program's seconds so
        far (``program_s``), their share of it (:attr:`Diagnosis.problem` reads it)."""
        found: list[Diagnosis] = []
        with self._lock:
            counted = [(key, causes.copy()) for key, causes in self._calls.items()]
            times = dict(self._ms)
        for (function, site), causes in counted:
            for cause, n in causes.most_common():
                figures: dict[str, Any] = {
                    "calls": n,
                    "cause": cause,
                    "hits": hits.get((function, site)),
                }
                ms = times.get(((function, site), cause))
                if ms is not None:
                    figures["ms"] = round(ms, 4)
                    if program_s:
                        figures["share"] = round(ms / (program_s * 1e3), 6)
                found.append(Diagnosis(SLOW_DISPATCH, function, site, figures, t))
        return found


def say_live(diagnosis: Diagnosis) -> None:
    """The warning where jitlab speaks (the program's stderr, or ``jitlab watch``'s own
    stream: :func:`monitor.say_words`), now, as one block (never raises)."""
    monitor.say_words("\n".join(warning_lines(diagnosis, monitor.user_language())) + "\n")


def say_notice(notice: RecordedNotice) -> None:
    """A recording's notice where jitlab speaks (:func:`monitor.say_words`), now, in one
    line (never raises)."""
    lang = monitor.user_language()
    (text,) = notice_texts(
        [(notice.notice, notice.t)], lang, {notice.notice: notice.n}, {notice.notice: notice.detail}
    )
    monitor.say_words(say("watch.notice", lang, notice=text) + "\n")
