"""Functions seen only through JAX's compile events: those jitted before the watch began.

Their name, phases and JAX's own explanation come from :mod:`jax.monitoring` and the
cache-miss log (their in-memory cache hits fire no event, so they are not counted). A
recorder hands the events of its monitor watcher to one :class:`CompileEvents`.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from dataclasses import dataclass
from typing import Any, Protocol

from jitlab.probe import _jax, _jax_programs, executables, explain, monitor, signature, sites
from jitlab.probe.probe import backward_compile
from jitlab.records.calls import CallKind, CallRecord, Change, Reason
from jitlab.records.changes import ChangeKind
from jitlab.records.diagnoses import identity_parts
from jitlab.records.lines import RecordedCall
from jitlab.watching import standin
from jitlab.watching.functions import FunctionStats, defined_at

base_name = _jax.trace_event_name  # "jit(f)" -> "f"


def events_reason(explanation: str | None, first: bool, persistent: bool) -> Reason:
    """Why a function seen only through compile events compiled: JAX's words, as data.

    Without a signature jitlab has no diff of its own, so it never guesses (no "sharding
    change" for an eager op that simply compiled again): JAX's changes, or ``unknown``.
    """
    changes = [c for c in explain.parse(explanation) if c.kind is not ChangeKind.UNKNOWN]
    if first and (not changes or explain.never_seen(explanation)):
        kind = ChangeKind.FIRST_PERSISTENT_LOAD if persistent else ChangeKind.FIRST_CALL
        changes = [Change(kind)]
    if not changes:
        changes = [Change(ChangeKind.UNKNOWN, detail=explain.summary(explanation))]
    return Reason(tuple(changes), explanation)


@dataclass
class Pending:
    """Compile events of one unwrapped function on one thread, until its compile ends."""

    trace_ms: float = 0.0
    lower_ms: float = 0.0
    traced: bool = False
    lowered: bool = False
    persistent: bool = False


class Filer(Protocol):
    """Where the compiles seen go (:class:`~jitlab.watching.recorder.Recorder`)."""

    include_internal: bool

    def stats_for(self, key: Any, name: str | None, defined_at: str | None) -> FunctionStats: ...

    def add(self, call: RecordedCall) -> None: ...

    @property
    def first_traced(self) -> set[tuple[str, str | None]]: ...

    def left_out(self, name: str) -> None: ...

    def elapsed(self) -> float: ...


_OPAQUE = frozenset({ChangeKind.UNKNOWN, ChangeKind.JAX_EXPLAINED, ChangeKind.TREE_STRUCTURE})


def _ours_tells_more(ours: list[Change], theirs: Reason) -> bool:
    """Does jitlab's own diff of an events-only compile say more than JAX's explanation?"""
    if all(kind in _OPAQUE for kind in theirs.kinds()):
        return True
    if sorted(str(c.kind) for c in ours) != sorted(str(k) for k in theirs.kinds()):
        return False
    if any(identity_parts(c.detail) is not None for c in ours):
        return True
    values = sorted((str(c.kind), c.before or "", c.after or "") for c in ours)
    return values == sorted((str(c.kind), c.before or "", c.after or "") for c in theirs.items)


class CompileEvents:
    """One recorder's view of JAX's compile events outside its probed calls, per thread."""

    def __init__(self, filer: Filer) -> None:
        self.filer = filer
        self._local = threading.local()

    def _pending(self) -> dict[str, Pending]:
        pending: dict[str, Pending] | None = getattr(self._local, "pending", None)
        if pending is None:
            pending = self._local.pending = {}
            self._local.explanations = []
        return pending

    def explanation(self, text: str) -> None:
        self._pending()
        self._local.explanations.append(text)

    def event(self, event: str) -> None:
        if event == monitor.PERSISTENT_HIT_EVENT:
            for state in self._pending().values():
                if state.lowered:
                    state.persistent = True

    def duration(self, event: str, ms: float, fun_name: str | None) -> None:
        if event == monitor.PERSISTENT_LOAD_EVENT:
            pending = self._pending()
            for name, state in list(pending.items()):
                if state.lowered and state.persistent:
                    del pending[name]
                    self._finish(name, state, ms)
            return
        if fun_name is None:
            return
        pending = self._pending()
        if event == monitor.TRACE_EVENT:
            state = pending.setdefault(fun_name, Pending())
            state.trace_ms, state.traced = ms, True
        elif event == monitor.LOWER_EVENT:
            state = pending.setdefault(base_name(fun_name), Pending())
            state.lower_ms, state.lowered = ms, True
        elif event == monitor.COMPILE_EVENT:
            name = base_name(fun_name)
            state = pending.pop(name, Pending())
            if not self._backward_pass(fun_name, state, ms):
                self._finish(name, state, ms)

    def _backward_pass(self, fun_name: str, state: Pending, compile_ms: float) -> bool:
        """A compile of grad's backward pass (the transpose JAX compiles after the watched
        call under grad returned): filed as that function's own executable, a
        transformation, never its "first call". True when it was a watched function's."""
        found = backward_compile(fun_name, sys._getframe(1))
        if found is None:
            return False
        probe, avals, path = found
        if standin.is_first(self.filer):  # once: its record reaches every recorder
            probe.file_backward(state.lower_ms, compile_ms, avals, path)
        if isinstance(probe, standin.WatchProbe):
            return True
        # The program's own Probe (its listener leaves compiles outside probed calls to the
        # watch): filed there above, and here as an events-only compile of the same kind.
        after = str(probe.backward_signature(avals))
        change = Change(ChangeKind.TRANSFORMED, path, after=after, count=1)
        self._finish(base_name(fun_name), state, compile_ms, Reason((change,)))
        return True

    def _finish(
        self, name: str, state: Pending, compile_ms: float, known: Reason | None = None
    ) -> None:
        # A kernel of JAX's that is not recorded needs no signature (pmap's is the user's).
        users = (_jax.PMAP_TRACE_NAME, _jax.EXPORTED_CALL_NAME)
        keep = self.filer.include_internal or name in users
        site = sites.compile_site(1, describe_internal=keep)
        event_name = name
        if site.internal and name == _jax.EXPORTED_CALL_NAME:
            # An exported program run by Exported.call: the user's, named as JAX logs it.
            site = dataclasses.replace(site, internal=False, defined_at=None)
        if site.internal and name == _jax.PMAP_TRACE_NAME:
            # A jax.pmap made before the watch (it runs as jit(shard_map(_fun)), JAX's own
            # function): named and placed as the user's function it maps.
            user = _jax.pmap_user_function(sys._getframe(1))
            if user is not None:
                name = _jax.fun_name(user)
                site = dataclasses.replace(site, internal=False, defined_at=defined_at(user))
        if site.internal and not self.filer.include_internal:
            self.filer.left_out(name)  # counted: the recording says how many, and how to list
            return
        explanations = self._local.explanations
        mine = [
            t for t in explanations if f"for {event_name} defined" in t or f"{event_name} id=" in t
        ]
        for text in mine:
            explanations.remove(text)
        explanation = "\n".join(mine) or None
        stats = self.filer.stats_for(("events", name, site.defined_at), name, site.defined_at)
        # Compiled with no trace of its own: JAX lowered a program of it traced before (a
        # transformation's, another sharding's), so never its first call.
        retraced = state.traced or state.persistent
        if not retraced and (name, site.defined_at) in self.filer.first_traced:
            retraced = True  # its trace was filed as traced, JAX's first of it: this lowers it
        number = stats.compiles + 1  # this compile's, in this recording
        # A function compiled before the watch began is recompiling even if we never saw it.
        seen_before = (
            number > 1 or not retraced or (explanation and "never seen function" not in explanation)
        )
        if state.persistent:
            kind = CallKind.PERSISTENT_HIT
        else:
            kind = CallKind.RECOMPILE if seen_before else CallKind.COMPILE
        reason = events_reason(explanation, number == 1 and retraced, state.persistent)
        if event_name != name and not state.persistent:
            # JAX's words are about its own _fun, a new one per argument structure ("never
            # seen function"): they say nothing of the user's. No guess of ours either.
            kind = CallKind.COMPILE if number == 1 else CallKind.RECOMPILE
            first = Change(ChangeKind.FIRST_SEEN)
            vague = Change(ChangeKind.UNKNOWN, detail=explain.summary(explanation))
            reason = Reason((first if number == 1 else vague,), explanation)
        if known is not None:  # jitlab knows what JAX compiled (grad's backward pass)
            kind, reason = CallKind.RECOMPILE, Reason(known.items, explanation)
        new = site.signature
        if new is not None and stats.last_signature is not None and known is None:
            # The call's signature in the user's names (through eqx.filter_jit / nnx.jit, or
            # jit's own arguments): jitlab's own diff against the last compile. JAX's own
            # words win where they name a concrete change (it compares with the closest
            # executable it holds); ours where JAX's are opaque (a wrapper's static repr),
            # where ours decided identity-static (two equal statics JAX cannot tell apart),
            # or where both say the same changes and ours names the argument as written
            # (``cfg``, not JAX's ``[0][1]``).
            ours = signature.diff(new, stats.last_signature, site.key, stats.last_key)
            if ours and _ours_tells_more(ours, reason):
                reason = Reason(tuple(ours), explanation)
        if new is not None:
            stats.last_signature, stats.last_key = new, site.key
        reason = explain.keep_words(reason)  # no empty words of JAX's beside our own
        made = _jax_programs.compiled_executable(sys._getframe(1))  # read here, held no longer
        held = executables.LIVE.compiled(("events", name, site.defined_at), made, new)
        record = CallRecord(
            index=number - 1,
            function=name,
            kind=kind,
            latency_ms=0.0,  # not timed: written as null (see RecordedCall.to_json)
            trace_ms=round(state.trace_ms, 4),
            lower_ms=round(state.lower_ms, 4),
            compile_ms=round(compile_ms, 4),
            signature=new,
            reason=reason,
            executables=held,
            persistent=monitor.persistent_fate(event_name, state.persistent),
        )
        stats.filed.add(record)
        call = RecordedCall(
            record,
            stats.defined_at,
            site.called_from,
            events_only=True,
            internal=site.internal,
            t=self.filer.elapsed(),
        )
        self.filer.add(call)
