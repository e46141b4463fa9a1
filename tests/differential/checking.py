"""Compare jitlab's account of a run with the truth and with JAX's own log.

Per function, as JAX counts it (its log names ``jit(f)``, each generated function has a
name of its own):

* **counts**: executables jitlab records in each step equal the ``Finished XLA compilation``
  lines JAX logged for it there; a watch files them in one row, whose hits are the plain
  calls JAX served from its cache; the first compile is the only one called first;
* **changes**: every change jitlab names is a real difference between the call and one
  earlier program JAX held — the same one for all of them —, it names every difference from
  that program, and no program JAX held is closer (counting every difference);
* **JAX's words**: every difference JAX names that is a difference from that program is
  said by jitlab too, or kept as JAX's words (a ``jax_explained`` or ``unknown`` change).

The truth comes from the specs (:mod:`truth`); a disagreement becomes a :class:`Finding`
naming the issue-50 rule it breaks, or none (another bug) — or ``model``, when the truth's
picture of JAX's cache disagrees with JAX's log (then the test, not jitlab, is wrong).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jitlab.records.calls import CallKind, CallRecord, Change
from jitlab.records.change_words import render
from jitlab.records.changes import ChangeKind

from .known import KNOWN
from .running import PROBED_HANDINGS, Run, StepSeen, run
from .specs import LIBRARY, PREBINDING, Call, Clear, Program, SetX64
from .truth import (
    RANKS_KEYS_BY_PART,
    CacheModel,
    Compiled,
    Context,
    LeafFact,
    Unit,
    Units,
    bullets,
    call_units,
    differences,
    distance,
    jax_rank,
    related,
    size_before_0_9,
)

K = ChangeKind
# Changes that claim a difference from an earlier program.
CLAIMS = frozenset(
    (
        K.SHAPE,
        K.DTYPE,
        K.WEAK_TYPE,
        K.SHARDING,
        K.STATIC_VALUE,
        K.TREE_STRUCTURE,
        K.KEYWORD_VS_POSITIONAL,
        K.NEW_ARGUMENT,
        K.ARGUMENT_GONE,
        K.TRACING_CONTEXT,
        K.NEW_FUNCTION_OBJECT,
        K.JIT_OPTIONS,
        K.SHARED_EXECUTABLE,
        K.MESH_CONTEXT,
    )
)
_CLEARS = {"function": "f.clear_cache()", "all": "jax.clear_caches()"}
VAGUE = frozenset((K.UNKNOWN, K.JAX_EXPLAINED))
# Node kinds whose static data are named fields (a change there is named by its field).
NAMED_FIELDS = frozenset(("dataclass", "decorated", "struct", "eqx", "nnx"))


@dataclass(frozen=True)
class Finding:
    """One disagreement: the issue-50 rule it breaks (None: none of them; "model": the
    test's own picture of JAX's cache is wrong), the run, the step, and what."""

    rule: int | str | None
    mode: str
    step: int
    what: str

    def __str__(self) -> str:
        rule = f"rule {self.rule}" if isinstance(self.rule, int) else self.rule or "other"
        return f"[{rule}] {self.mode} step {self.step}: {self.what}"


def fun_token(program: Program, call_index: int) -> int:
    """Which callable JAX caches the call on: equal callables alive share one (a function
    jitted again, a bound method or an equal callable object kept alive); a partial is
    equal only to itself, and a wrapper dropped after its call takes its cache with it
    (but a plain function, which the program still holds)."""
    if program.handing == "once":
        return 0
    if program.wrapper == "partial":
        return call_index
    if program.handing == "temporary" and program.wrapper in ("method", "callable"):
        return call_index
    return 0


def check(run: Run) -> list[Finding]:
    """Everything jitlab got wrong about ``run``, step by step, then its rows."""
    return _Checker(run).findings()


class _Checker:
    def __init__(self, run: Run) -> None:
        self.run = run
        self.program = run.program
        self.found: list[Finding] = []
        self.model = CacheModel()
        self.x64 = False
        self.compiled_before = 0  # JAX's compiles of the function in earlier steps, any kind
        self.transformed_before = 0  # ... of them under a transformation
        self.hits = 0  # plain calls JAX served from its cache
        self.calls = 0

    def note(self, rule: int | str | None, step: int, what: str) -> None:
        self.found.append(Finding(rule, self.run.mode, step, what))

    def findings(self) -> list[Finding]:
        for seen in self.run.steps:
            self.step(seen)
        self.rows()
        return self.found

    # -- steps -------------------------------------------------------------------------------
    def step(self, seen: StepSeen) -> None:
        step = seen.step
        compiled = [r for r in seen.records if r.kind.compiled]
        if isinstance(step, SetX64):
            self.x64 = step.on
        elif isinstance(step, Clear):
            self.model.clear(step.what)
        if not isinstance(step, Call):
            if compiled or seen.jax_compiles:
                self.note(
                    None, seen.index, f"{step}: compiles {len(compiled)}, JAX {seen.jax_compiles}"
                )
            return
        index = self.calls
        self.calls += 1
        if len(compiled) != seen.jax_compiles:
            self.note(
                count_rule(step, self.run.mode),
                seen.index,
                f"{len(compiled)} executables recorded, JAX compiled {seen.jax_compiles}: "
                f"{[(r.kind.value, _words(r)) for r in seen.records]}",
            )
        errors = [r for r in seen.records if r.kind is CallKind.ERROR]
        if errors:
            self.note(None, seen.index, f"an error recorded: {errors[0].error}")
        if step.via is None:
            self.plain(seen, step, index, compiled)
        else:
            self.transformed(seen, step, compiled)
        self.compiled_before += seen.jax_compiles
        if step.via is not None:
            self.transformed_before += seen.jax_compiles

    def plain(self, seen: StepSeen, call: Call, index: int, compiled: list[CallRecord]) -> None:
        context = Context(self.x64, call.precision)
        units = call_units(self.program, call, context, fun_token(self.program, index))
        expected = not self.model.holds(units)
        if expected != bool(seen.jax_compiles) or seen.jax_compiles > 1:
            self.note(
                "model",
                seen.index,
                f"the truth says {'a compile' if expected else 'a hit'}, JAX compiled "
                f"{seen.jax_compiles}: {call}",
            )
        if not seen.jax_compiles:
            self.hits += 1
            return
        pool = self.model.pool(units)
        if len(compiled) == 1:
            self.judge(seen, compiled[0], units, pool, self.model.dropped(units))
        self.model.add(units, seen.index)

    def transformed(self, seen: StepSeen, call: Call, compiled: list[CallRecord]) -> None:
        for record in compiled:
            self.judge_kind(seen, record, transformed=True)
            kinds = set(record.reason.kinds()) if record.reason else set()
            if kinds & {K.FIRST_CALL, K.FIRST_SEEN} and self.compiled_before:
                self.note(5, seen.index, f"{call.via}: {_words(record)} (not its first program)")

    # -- one compile -------------------------------------------------------------------------
    def judge_kind(self, seen: StepSeen, record: CallRecord, *, transformed: bool) -> bool:
        """First compile vs recompile; True when this compile is the function's first."""
        first = self.compiled_before == 0 and record is next(
            r for r in seen.records if r.kind.compiled
        )
        if first and record.kind is not CallKind.COMPILE:
            self.note(None, seen.index, f"the first compile recorded as {record.kind.value}")
        if not first and record.kind is CallKind.COMPILE:
            rule = 5 if transformed or self.transformed_before else None
            self.note(rule, seen.index, f"a later compile recorded as the first: {_words(record)}")
        return first

    def judge(
        self,
        seen: StepSeen,
        record: CallRecord,
        units: Units,
        pool: list[Compiled],
        cleared_by: str | None,
    ) -> None:
        first = self.judge_kind(seen, record, transformed=False)
        items = record.reason.items if record.reason else ()
        kinds = {c.kind for c in items}
        at = seen.index
        if first:
            if kinds != {K.FIRST_CALL}:
                self.note(None, at, f"the first compile's reason: {_words(record)}")
            return
        # After programs under transformations only, the first plain one is rightly "the
        # first call outside a transformation" (FIRST_CALL naming them), a recompile.
        first_plain = (
            not pool
            and self.transformed_before == self.compiled_before
            and record.kind is CallKind.RECOMPILE
            and all(c.detail for c in items if c.kind is K.FIRST_CALL)
            and K.FIRST_SEEN not in kinds
        )
        if kinds & {K.FIRST_CALL, K.FIRST_SEEN} and not first_plain:
            rule = 5 if self.transformed_before else None
            self.note(rule, at, f"a later program said to be the first: {_words(record)}")
        if K.TRANSFORMED in kinds:
            self.note(None, at, f"a plain call said to be transformed: {_words(record)}")
        if self.cleared(at, record, cleared_by, units):
            return
        claims = [c for c in items if c.kind in CLAIMS]
        if not claims:
            if not kinds & (VAGUE | {K.FIRST_CALL, K.FIRST_SEEN, K.CACHE_CLEARED, K.TRANSFORMED}):
                self.note(None, at, f"a recompile with no reason: {_words(record)}")
            return
        if not pool:
            # Only programs of the function under a transformation came before: JAX compares
            # with their traces (vmap's per-example shapes, arguments passed as the
            # transformation passed them), which the truth does not model.
            if not self.transformed_before:
                self.note(None, at, f"changes named with no earlier program: {_words(record)}")
            return
        self.closest(at, record, claims, units, pool)

    def cleared(self, at: int, record: CallRecord, cleared_by: str | None, units: Units) -> bool:
        """A call whose program a clear dropped: "cache cleared", saying which clear (rule
        7); "cache cleared" nowhere else. True when the clear is the whole story."""
        items = record.reason.items if record.reason else ()
        said = [c for c in items if c.kind is K.CACHE_CLEARED]
        if cleared_by is None:
            if said:
                self.note(
                    None,
                    at,
                    f"cache cleared said, yet no clear dropped this program: {_words(record)}",
                )
            return False
        if not said:
            what = f"a program {_CLEARS[cleared_by]} dropped, not said: {_words(record)}"
            self.note(7, at, what)
        for change in said:
            words = render(change, "en")
            if cleared_by == "function" and (
                "clear_cache()" not in words or "clear_caches" in words
            ):
                self.note(7, at, f"after f.clear_cache(): {words!r}")
            if cleared_by == "all" and "jax.clear_caches()" not in words:
                self.note(7, at, f"after jax.clear_caches(): {words!r}")
        return True

    def closest(
        self, at: int, record: CallRecord, claims: list[Change], units: Units, pool: list[Compiled]
    ) -> None:
        nearest = min(distance(units, p.units) for p in pool)
        sound = [p for p in pool if all(_consistent(c, units, p.units) for c in claims)]
        whole = [p for p in sound if not _missing(claims, units, p.units)]
        if not any(distance(units, p.units) == nearest for p in whole):
            held = {id(p) for p in pool}
            gone = [p for p in self.model.programs if id(p) not in held]
            if not sound and any(all(_consistent(c, units, p.units) for c in claims) for p in gone):
                self.note(
                    1,
                    at,
                    f"compared with a program JAX no longer held (said: {_changes(claims)}); "
                    f"{_pool_text(units, pool)}",
                )
                return
        if not sound:
            wrong = [c for c in claims if not any(_consistent(c, units, p.units) for p in pool)]
            self.note(
                rule_of(self.program, units, pool, claims),
                at,
                f"names what differs from no earlier program: {_changes(wrong or claims)}; "
                f"{_pool_text(units, pool)}",
            )
            return
        if not whole:
            best = min(sound, key=lambda p: len(_missing(claims, units, p.units)))
            missing = _missing(claims, units, best.units)
            self.note(
                rule_of(self.program, units, pool, claims, missing),
                at,
                f"leaves out {sorted(missing)} (said: {_changes(claims)}); "
                f"{_pool_text(units, pool)}",
            )
            return

        # As JAX picks it (0.9+: a context difference ranks before a pytree one, whatever
        # their numbers; before, by pjit's sizes of every difference).
        def rank(p: Compiled) -> tuple[int, int]:
            if RANKS_KEYS_BY_PART:
                return jax_rank(units, p.units)
            return 0, size_before_0_9(self.program, units, p.units)

        jax_best = min(rank(p) for p in pool)
        chosen_as_jax = [p for p in whole if rank(p) == jax_best]
        if not chosen_as_jax and not any(distance(units, p.units) == nearest for p in whole):
            self.note(
                1 if RANKS_KEYS_BY_PART else "closest-before-0.9",
                at,
                f"not the closest earlier program (said: {_changes(claims)}, {nearest} "
                f"difference(s) from the closest); {_pool_text(units, pool)}",
            )
            return
        chosen = (
            chosen_as_jax[0]
            if chosen_as_jax
            else min(whole, key=lambda p: distance(units, p.units))
        )
        self.named_as_jax_names(at, claims, units, chosen)
        self.jax_words(at, record, claims, units, chosen)

    def named_as_jax_names(
        self, at: int, claims: list[Change], units: Units, chosen: Compiled
    ) -> None:
        """Rule 6: paths and trees read as JAX writes them; a change in a module's static
        field is named by that field."""
        fields = _field_units(self.program, units, chosen.units)
        for change in claims:
            texts = [change.path, change.before or "", change.after or ""]
            if any("<flat index" in t or "CustomNode(" in t or "PyTreeDef(" in t for t in texts):
                self.note(6, at, f"written as JAX does not write it: {_changes([change])}")
            if change.kind in (K.TREE_STRUCTURE, K.STATIC_VALUE) and change.path in fields:
                self.note(
                    6,
                    at,
                    f"names the node, not its field {fields[change.path]}: {_changes([change])}",
                )
        if self.program.wrapper in PREBINDING:
            names = {p.name for p in self.program.params}
            for change in claims:
                root = _root(change.path)
                if (
                    change.kind not in (K.TRACING_CONTEXT, K.NEW_FUNCTION_OBJECT)
                    and root not in names
                ):
                    self.note(3, at, f"an argument named {root!r} (parameters: {sorted(names)})")

    def jax_words(
        self, at: int, record: CallRecord, claims: list[Change], units: Units, chosen: Compiled
    ) -> None:
        """Every difference JAX names that is one from the chosen program is said too."""
        if self.program.wrapper in LIBRARY:
            return  # JAX's paths there are the library's own arguments
        call = self.run.steps[at].step
        assert isinstance(call, Call)
        positional = [p.name for p in self.program.params if p.name not in call.keywords]
        keywords = [p.name for p in self.program.params if p.name in call.keywords]
        differ = differences(units, chosen.units)
        kept = any(c.kind in VAGUE for c in (record.reason.items if record.reason else ()))
        for explanation in self.run.steps[at].jax_misses:
            for bullet in bullets(explanation, positional, keywords):
                if bullet.path is None:
                    continue
                if bullet.kind == "context":
                    real = ("ctx", bullet.path) in differ
                    said = any(
                        c.kind is K.TRACING_CONTEXT and c.path in (bullet.path, "") for c in claims
                    )
                elif bullet.path == "":  # the keyword arguments' dict
                    real = any(k == "kw" for k, _ in differ)
                    said = any(c.kind is K.KEYWORD_VS_POSITIONAL for c in claims)
                else:
                    real = any(
                        k not in ("ctx", "fun", "kw") and related(p, bullet.path) for k, p in differ
                    )
                    said = any(related(c.path, bullet.path) for c in claims)
                if real and not said and not kept:
                    self.note(
                        rule_of(self.program, units, [chosen], claims),
                        at,
                        f"JAX's words not said: {bullet.words}",
                    )

    # -- rows --------------------------------------------------------------------------------
    def rows(self) -> None:
        """A watch files the function in one row: every executable JAX built for it, its
        hits the plain calls JAX served (a probe's records say the same)."""
        end = len(self.run.steps)
        transformed = any(c.via is not None for c in self.program.calls)
        if self.run.mode == "probe":
            hits = sum(1 for s in self.run.steps for r in s.records if r.kind is CallKind.CACHE_HIT)
            if not transformed and hits != self.hits:
                self.note(None, end, f"{hits} hits recorded, JAX served {self.hits}")
            return
        rows = self.run.rows
        # One function as JAX counts it, yet rows for the object and for what it wraps.
        split = 4 if self.program.wrapper in ("callable", "method", "partial") else None
        if not rows and not self.run.jax_total and not self.hits:
            return  # traced inside another computation only: nothing of its own ran
        if len(rows) != 1:
            self.note(
                split,
                end,
                f"{len(rows)} rows for one function: "
                f"{[(r.function, r.executables, r.hits) for r in rows]}",
            )
            return
        row = rows[0]
        if row.executables != self.run.jax_total:
            self.note(
                None, end, f"the row counts {row.executables} executables, JAX {self.run.jax_total}"
            )
        if row.hits is None and (self.hits or split):
            self.note(split, end, f"the row {row.function!r} counts no hits (another row has them)")
        elif not transformed and row.hits != self.hits:
            self.note(None, end, f"the row counts {row.hits} hits, JAX served {self.hits}")


# -- which rule a disagreement breaks (known.py's entries) ----------------------------------


def count_rule(call: Call, mode: str) -> int | str | None:
    """Executables miscounted under a transformation: rule 5's ground in a watch; in a
    Probe, a program JAX compiles for its function after the probe's call returned
    (applying what linearize gave; checkpoint's eager run)."""
    if call.via not in ("linearize", "jvp", "grad", "remat"):
        return None
    return "probe-after-call" if mode == "probe" else 5


def rule_of(
    program: Program,
    units: Units,
    pool: list[Compiled],
    claims: list[Change],
    missing: set[Unit] | None = None,
) -> int | str | None:
    """Which rule a wrong choice or account breaks: a new function object JAX shared
    (4), names shifted by a pre-bound argument (3), some of several static fields left
    out (2), a static field named by its node's tree (6), static data of a pytree in the
    differences, or a program JAX no longer held taken as the closest (1)."""
    if any(c.kind is K.NEW_FUNCTION_OBJECT for c in claims) and all(
        p.units["fun", ""] == units["fun", ""] for p in pool
    ):
        return 4
    if any("<flat index" in f"{c.path}{c.before}{c.after}" for c in claims):
        return 6
    if any(_moved_device(units, p.units, u) for p in pool for u in missing or ()):
        return "device-beside"
    if program.wrapper in PREBINDING and not missing:
        return 3  # a change named that is none: the names shifted past the bound one
    fields = [u for u in missing or () if u[0] == "aux"]
    if fields:
        nodes = {_parent(u[1]) for u in fields}
        said = [c for c in claims if c.kind in (K.TREE_STRUCTURE, K.STATIC_VALUE)]
        named = {
            u
            for p in pool
            for u in differences(units, p.units)
            if u[0] == "aux" and any(_covers(c, u) for c in said)
        }
        if named - set(fields):
            return 2  # one static field named, another left out
        if any(related(c.path, n) for c in said for n in nodes):
            return 6
        return 1
    if any(u[0] in ("aux", "node") for u in missing or ()):
        return 1  # a structure change left out where something else changed too
    if any(u[0] == "aux" for p in pool for u in differences(units, p.units)):
        return 1
    structure = any(c.kind is K.TREE_STRUCTURE for c in claims)
    if structure and any(u[0] == "node" for p in pool for u in differences(units, p.units)):
        return 1  # a structure change said at the wrong place, beside another change
    return None


def _root(path: str) -> str:
    return re.split(r"[\[.]", path, maxsplit=1)[0]


def _parent(path: str) -> str:
    return path.rsplit(".", 1)[0]


def _moved_device(new: Units, old: Units, unit: Unit) -> bool:
    """``unit`` is a leaf that moved between the default device and another one (its type
    changed or not)."""
    a, b = new.get(unit), old.get(unit)
    if not isinstance(a, LeafFact) or not isinstance(b, LeafFact):
        return False
    return "dev1" in (a.sharding, b.sharding) and a.sharding != b.sharding


def _consistent(change: Change, new: Units, old: Units) -> bool:
    """``change`` is a real difference between the call ``new`` and the program ``old``."""
    path = change.path
    differ = differences(new, old)
    if change.kind in (K.SHAPE, K.DTYPE, K.WEAK_TYPE, K.SHARDING):
        a, b = new.get(("leaf", path)), old.get(("leaf", path))
        if not isinstance(a, LeafFact) or not isinstance(b, LeafFact):
            return False
        if change.kind is K.SHARDING:
            return a.sharding != b.sharding
        attribute = {K.SHAPE: "shape", K.DTYPE: "dtype", K.WEAK_TYPE: "weak"}[change.kind]
        texts_ok = (change.before, change.after) == (b.text, a.text)
        return getattr(a, attribute) != getattr(b, attribute) and texts_ok
    if change.kind is K.NEW_ARGUMENT:
        return any(u not in old and related(u[1], path) for u in new if u[0] == "leaf")
    if change.kind is K.ARGUMENT_GONE:
        return any(u not in new and related(u[1], path) for u in old if u[0] == "leaf")
    if change.kind in (K.TREE_STRUCTURE, K.STATIC_VALUE):
        return any(k not in ("ctx", "fun", "kw") and related(p, path) for k, p in differ)
    if change.kind is K.KEYWORD_VS_POSITIONAL:
        return ("kw", path) in differ
    if change.kind is K.TRACING_CONTEXT:
        return any(k == "ctx" and (p == path or not path) for k, p in differ)
    if change.kind is K.NEW_FUNCTION_OBJECT:
        return ("fun", "") in differ
    return False  # jit options, a shared executable, a mesh: the generator makes none


def _covers(change: Change, unit: Unit) -> bool:
    kind, path = unit
    if kind == "fun":
        return change.kind is K.NEW_FUNCTION_OBJECT
    if kind == "kw":
        return change.kind is K.KEYWORD_VS_POSITIONAL and change.path == path
    if kind == "ctx":
        return change.kind is K.TRACING_CONTEXT and change.path in (path, "")
    return change.kind not in (
        K.NEW_FUNCTION_OBJECT,
        K.KEYWORD_VS_POSITIONAL,
        K.TRACING_CONTEXT,
    ) and related(change.path, path)


def _missing(claims: list[Change], new: Units, old: Units) -> set[Unit]:
    """The differences from ``old`` no change names (a leaf whose type and placement both
    changed: each by a change of its own)."""
    return {
        u
        for u in differences(new, old)
        if not any(_covers(c, u) for c in claims) or not _placed(claims, u, new, old)
    }


def _placed(claims: list[Change], unit: Unit, new: Units, old: Units) -> bool:
    """A leaf at ``unit`` that moved (another sharding or device) is said to have moved,
    whatever else changed there."""
    a, b = new.get(unit), old.get(unit)
    if not isinstance(a, LeafFact) or not isinstance(b, LeafFact) or a.sharding == b.sharding:
        return True
    return any(c.kind is K.SHARDING and c.path == unit[1] for c in claims)


def _field_units(program: Program, new: Units, old: Units) -> dict[str, str]:
    """Node paths whose only differences are named static fields (node path → fields)."""
    differ = differences(new, old)
    found: dict[str, str] = {}
    for kind, path in new:
        if kind != "node" or new[kind, path][0] not in NAMED_FIELDS:
            continue
        below = [p for k, p in differ if related(p, path)]
        auxes = [p for k, p in differ if k == "aux" and p.rsplit(".", 1)[0] == path]
        if auxes and len(below) == len(auxes):
            found[path] = ", ".join(sorted(auxes))
    return found


def _words(record: CallRecord) -> str:
    if record.reason is None:
        return "(no reason)"
    return "; ".join(render(c, "en") for c in record.reason.items)


def _changes(changes: list[Change]) -> str:
    return ", ".join(
        f"{c.kind.value} {c.path!r} {c.before!r}->{c.after!r}"
        + (f" ({c.detail})" if c.detail else "")
        for c in changes
    )


def _pool_text(units: Units, pool: list[Compiled]) -> str:
    parts = []
    for p in pool:
        differ = sorted(differences(units, p.units))
        parts.append(f"step {p.step}: {differ}")
    return "earlier programs differ in " + " | ".join(parts)


def agree(
    program: Program,
    *,
    tolerate: frozenset[int | str] | None = None,
    place: Callable[[Any, str], Any] | None = None,
) -> None:
    """Run ``program`` watched and (where one function object is called) as a Probe; fail
    on every finding but those of the rules ``tolerate`` names (default: the known ones)."""
    allowed = frozenset(KNOWN) if tolerate is None else tolerate
    failures: list[Finding] = []
    for mode in ("watch", "probe"):
        if mode == "probe" and program.handing not in PROBED_HANDINGS:
            continue
        failures += [f for f in check(run(program, mode, place)) if f.rule not in allowed]
    assert not failures, "jitlab disagrees with JAX:\n" + "\n".join(map(str, failures))
