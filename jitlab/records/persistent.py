"""The persistent compilation cache's fate of each compile, and what a rerun would get
(JAX-free): ``persistent-not-written`` and ``persistent-key-changed`` (jax#15739,
pylcm#392, jax-gcm#592: hours of compiling with the cache on and nothing stored).

A :class:`PersistentFate` is a compile's record's ``persistent`` (a Probe's records, the
``call`` line of a recording), set while the persistent cache is configured: written, not
written and why (JAX's own figures), loaded, or compiled with no word from JAX on a write;
with the cache key as JAX logged it, and what else JAX hashes into the key (jaxlib, backend,
``XLA_FLAGS``) as this process had it. JAX's log lines are read once, at capture, into these
fields (:func:`jitlab.probe._jax_programs.persistent_log`); nothing here parses words.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from jitlab.records.messages import say

PERSISTENT_NOT_WRITTEN = "persistent-not-written"
PERSISTENT_KEY_CHANGED = "persistent-key-changed"

# written: stored under ``key``; not_written: JAX said why (WHYS); loaded: from the cache;
# compiled: JAX logged the miss (and key) but no write or refusal jitlab could read.
OUTCOMES = ("written", "not_written", "loaded", "compiled")
WHYS = ("min_compile_time", "min_entry_size", "host_callbacks", "process_id", "cache_disabled")
# What JAX hashes into a key besides the program, that jitlab can read (cache_key.get; the
# cache folder where JAX puts a path under it into the compile options).
KEY_PARTS = ("jaxlib", "backend", "xla_flags", "cache_dir")
_FIGURES = frozenset(("compile_s", "min_compile_s", "size", "min_size", *KEY_PARTS))
_TEXT_AT_MOST = 2_000
LOW, HIGH = -1e18, 1e18  # as jitlab.records.strict's (which imports calls, which imports this)


@dataclass(frozen=True)
class PersistentFate:
    """One compile's fate in the persistent cache: a :class:`~jitlab.records.calls.CallRecord`'s
    ``persistent`` (a Probe's records, a recording's ``call`` lines)."""

    outcome: str
    why: str | None = None
    key: str | None = None
    figures: Mapping[str, Any] = field(default_factory=dict)

    @property
    def rerun(self) -> str:
        """Would a rerun with the same cache load this one? ``yes``, ``no`` or ``unknown``
        (JAX said nothing jitlab could read of a write)."""
        if self.outcome in ("written", "loaded"):
            return "yes"
        return "no" if self.outcome == "not_written" else "unknown"

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "why": self.why,
            "key": self.key,
            "figures": dict(self.figures),
        }

    @classmethod
    def from_json(cls, data: object) -> PersistentFate | None:
        """None when it is not a fate this reader can trust."""
        if not isinstance(data, dict):
            return None
        outcome, why, key, figures = (data.get(n) for n in ("outcome", "why", "key", "figures"))
        if outcome not in OUTCOMES or not (why is None or why in WHYS):
            return None
        if key is not None and (not isinstance(key, str) or len(key) > _TEXT_AT_MOST):
            return None
        if not isinstance(figures, dict) or not set(figures) <= _FIGURES:
            return None
        for value in figures.values():
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if not (isinstance(value, str) and len(value) <= _TEXT_AT_MOST) and not (
                number and LOW < value < HIGH
            ):
                return None
        return cls(str(outcome), why, key, dict(figures))


def fate_of(
    loaded: bool,
    lines: list[tuple[str, str | None, dict[str, Any]]],
    parts: Mapping[str, str],
    settings: tuple[float, int],
) -> PersistentFate:
    """One compile's fate from the lines JAX logged for it (see
    :func:`jitlab.probe.monitor.take_persistent`; ``loaded``: JAX's load events fired) and
    the key parts this process has."""
    outcome, why, key = "loaded" if loaded else "compiled", None, None
    figures: dict[str, Any] = dict(parts)
    for said, reason, values in lines:
        if loaded and said != "loaded":
            continue  # a load logs its key only (and only at DEBUG): nothing else is its
        key = values.get("key") or key
        if said in ("written", "not_written"):
            outcome, why = said, reason
        for name in ("compile_s", "min_compile_s", "size", "min_size"):
            if name in values:
                figures[name] = values[name]
    if why == "min_compile_time":
        figures.setdefault("min_compile_s", settings[0])
    if why == "min_entry_size":
        figures.setdefault("min_size", settings[1])
    return PersistentFate(outcome, why, key, figures)


# A compile seen in a recording: (function, where it is defined, its signature's text, fate).
Compiled = tuple[str, str | None, str | None, PersistentFate]


def compiled_fates(calls: Iterable[Any]) -> list[Compiled]:
    """The compiles of a recording's calls (``RecordedCall``) that carry a fate, in order."""
    found = []
    for call in calls:
        record = call.record
        fate = record.persistent
        if fate is not None:
            signature = str(record.signature) if record.signature is not None else None
            found.append((record.function, call.defined_at, signature, fate))
    return found


def compiled_json(compiled: Compiled, rerun: bool = False) -> dict[str, Any]:
    """A compile and its fate for ``--json`` (``rerun``: with "would a rerun hit?")."""
    function, defined_at, signature, fate = compiled
    data = {"function": function, "defined_at": defined_at, "signature": signature}
    data |= fate.to_json()
    if rerun:
        data["rerun"] = fate.rerun
    return data


def key_changes(base: PersistentFate, new: PersistentFate) -> list[str]:
    """Which of :data:`KEY_PARTS` differ between two compiles (read where both recorded it)."""
    found = []
    for part in KEY_PARTS:
        a, b = base.figures.get(part), new.figures.get(part)
        if a is not None and b is not None and a != b:
            found.append(part)
    return found


def mismatches(base: list[Compiled], new: list[Compiled]) -> list[tuple[Compiled, Compiled]]:
    """Pairs (base's, new's) of one function and signature that one run loaded from the
    persistent cache (or wrote to it) and the other compiled: the first of each."""
    by_signature: dict[tuple[str, str | None, str | None], Compiled] = {}
    for compiled in base:
        by_signature.setdefault(compiled[:3], compiled)
    found, said = [], set()
    for compiled in new:
        other = by_signature.get(compiled[:3])
        if other is None or compiled[2] is None or compiled[:3] in said:
            continue
        a, b = other[3].outcome, compiled[3].outcome
        if (a == "loaded") != (b == "loaded") or (a == "written" and b != "loaded"):
            said.add(compiled[:3])
            found.append((other, compiled))
    return found


# -- words (rendered here from the figures, never parsed back) ------------------------------
def why_text(why: str | None, figures: Mapping[str, Any], lang: str) -> str:
    if why not in WHYS:
        return "?"
    shown = {k: (f"{v:.2f}" if isinstance(v, float) else v) for k, v in figures.items()}
    for name in ("compile_s", "min_compile_s", "size", "min_size"):
        shown.setdefault(name, "?")
    return say(f"persistent.why.{why}", lang, **shown)


def outcome_text(outcome: str, why: str | None, figures: Mapping[str, Any], lang: str) -> str:
    if outcome not in OUTCOMES:
        return outcome
    return say(f"persistent.outcome.{outcome}", lang, why=why_text(why, figures, lang))


def not_written_sentence(where: str, figures: Mapping[str, Any], lang: str) -> str:
    why = figures.get("why")
    text = why_text(why if isinstance(why, str) else None, figures, lang)
    return say("diagnosis.persistent_not_written", lang, function=where, why=text)


def key_changed_sentence(where: str, figures: Mapping[str, Any], lang: str) -> str:
    parts = [p for p in str(figures.get("parts") or "").split(",") if p in KEY_PARTS]
    what = [
        say(
            "persistent.part",
            lang,
            part=part,
            base=figures.get(f"base_{part}") or '""',
            new=figures.get(f"new_{part}") or '""',
        )
        for part in parts
    ]
    outcomes = {}
    for side in ("base", "new"):
        outcome, why = figures.get(f"{side}_outcome"), figures.get(f"{side}_why")
        outcomes[side] = outcome_text(
            str(outcome), why if isinstance(why, str) else None, figures, lang
        )
    return say(
        "diagnosis.persistent_key_changed",
        lang,
        function=where,
        signature=figures.get("signature") or "?",
        base=outcomes["base"],
        new=outcomes["new"],
        base_key=_short(figures.get("base_key")),
        new_key=_short(figures.get("new_key")),
        what="; ".join(what) if what else say("persistent.same_parts", lang),
    )


def _short(key: object) -> str:
    """``jit_f-1a2b3c4d…`` (a key's hash is 64 hex digits)."""
    text = str(key) if key else "?"
    name, _, digest = text.rpartition("-")
    return f"{name}-{digest[:8]}…" if name and len(digest) > 12 else text


def key_changed_figures(base: Compiled, new: Compiled) -> dict[str, Any]:
    """The figures of a ``persistent-key-changed`` diagnosis of two compiles."""
    b, n = base[3], new[3]
    parts = key_changes(b, n)
    figures: dict[str, Any] = {
        "signature": new[2],
        "base_outcome": b.outcome,
        "base_why": b.why,
        "new_outcome": n.outcome,
        "new_why": n.why,
        "base_key": b.key,
        "new_key": n.key,
        "parts": ",".join(parts),
    }
    for part in parts:
        figures[f"base_{part}"], figures[f"new_{part}"] = b.figures[part], n.figures[part]
    for name in ("compile_s", "min_compile_s", "size", "min_size"):
        value = b.figures.get(name, n.figures.get(name))
        if value is not None:
            figures[name] = value
    return figures


def mismatch_note(base: Compiled, new: Compiled, lang: str) -> str:
    """A mismatch whose keys did not change, or could not be read: what was seen."""
    function, defined_at, signature, fate = new
    fields = {
        "function": f"{function} ({defined_at})" if defined_at else function,
        "signature": signature or "?",
        "base": outcome_text(base[3].outcome, base[3].why, base[3].figures, lang),
        "new": outcome_text(fate.outcome, fate.why, fate.figures, lang),
    }
    if base[3].key and fate.key:
        return say("persistent.same_key", lang, key=_short(fate.key), **fields)
    return say("persistent.unknown_key", lang, **fields)
