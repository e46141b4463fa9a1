"""The persistent compilation cache's fate of each compile, and what a rerun would get
(JAX-free): ``persistent-not-written`` and ``persistent-key-changed`` (jax#15739,
pylcm#392, jax-gcm#592: hours of compiling with the cache on and nothing stored).

A :class:`PersistentFate` is one ``persistent`` line of a recording, written right after
the ``call`` line of a compile while the persistent cache is configured: written, not
written and why (JAX's own figures), loaded, or compiled with no word from JAX on a write;
with the cache key as JAX logged it, and what else JAX hashes into the key (jaxlib, backend,
``XLA_FLAGS``) as this process had it. JAX's log lines are read once, at capture, into these
fields (:func:`jitlab.probe._jax.persistent_log`); nothing here parses words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jitlab.records.calls import CallKind
from jitlab.records.messages import say
from jitlab.records.strict import HIGH, LOW

PERSISTENT_NOT_WRITTEN = "persistent-not-written"
PERSISTENT_KEY_CHANGED = "persistent-key-changed"

# written: stored under ``key``; not_written: JAX said why (WHYS); loaded: from the cache;
# compiled: JAX logged the miss (and key) but no write or refusal jitlab could read.
OUTCOMES = ("written", "not_written", "loaded", "compiled")
WHYS = ("min_compile_time", "min_entry_size", "host_callbacks", "process_id", "cache_disabled")
# What JAX hashes into a key besides the program and its compile options (cache_key.get).
KEY_PARTS = ("jaxlib", "backend", "xla_flags")
_FIGURES = frozenset(("compile_s", "min_compile_s", "size", "min_size", *KEY_PARTS))
_TEXT_AT_MOST = 2_000


@dataclass(frozen=True)
class PersistentFate:
    """One compile's fate in the persistent cache (``signature``: jitlab's text of it)."""

    function: str
    defined_at: str | None
    signature: str | None
    outcome: str
    why: str | None = None
    key: str | None = None
    figures: Mapping[str, Any] = field(default_factory=dict)
    t: float | None = None

    @property
    def rerun(self) -> str:
        """Would a rerun with the same cache load this one? ``yes``, ``no`` or ``unknown``
        (JAX said nothing jitlab could read of a write)."""
        if self.outcome in ("written", "loaded"):
            return "yes"
        return "no" if self.outcome == "not_written" else "unknown"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "persistent",
            "function": self.function,
            "defined_at": self.defined_at,
            "signature": self.signature,
            "outcome": self.outcome,
            "why": self.why,
            "key": self.key,
            "figures": dict(self.figures),
            "t": self.t,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PersistentFate | None:
        """None when the line is not one this reader can trust."""
        texts = [data.get(n) for n in ("function", "defined_at", "signature", "why", "key")]
        outcome, figures, t = data.get("outcome"), data.get("figures"), data.get("t")
        if not isinstance(texts[0], str) or outcome not in OUTCOMES:
            return None
        if any(v is not None and (not isinstance(v, str) or len(v) > _TEXT_AT_MOST) for v in texts):
            return None
        if texts[3] is not None and texts[3] not in WHYS:
            return None
        if not isinstance(figures, dict) or not set(figures) <= _FIGURES:
            return None
        for value in figures.values():
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if not (isinstance(value, str) and len(value) <= _TEXT_AT_MOST) and not (
                number and LOW < value < HIGH
            ):
                return None
        if t is not None and (isinstance(t, bool) or not isinstance(t, int | float)):
            return None
        function, defined_at, signature, why, key = texts
        return cls(str(function), defined_at, signature, str(outcome), why, key, dict(figures), t)


def fate_of(
    kind: CallKind,
    lines: list[tuple[str, str | None, dict[str, Any]]],
    parts: Mapping[str, str],
    settings: tuple[float, int],
) -> tuple[str, str | None, str | None, dict[str, Any]]:
    """(outcome, why, key, figures) of one compile from the lines JAX logged for it (see
    :func:`jitlab.probe.monitor.take_persistent`) and the key parts this process has."""
    outcome, why, key = "loaded" if kind is CallKind.PERSISTENT_HIT else "compiled", None, None
    figures: dict[str, Any] = dict(parts)
    for said, reason, values in lines:
        key = values.get("key") or key
        if said in ("written", "not_written") or (said == "loaded" and outcome == "loaded"):
            outcome, why = said, reason
        for name in ("compile_s", "min_compile_s", "size", "min_size"):
            if name in values:
                figures[name] = values[name]
    if why == "min_compile_time":
        figures.setdefault("min_compile_s", settings[0])
    if why == "min_entry_size":
        figures.setdefault("min_size", settings[1])
    return outcome, why, key, figures


def key_hash(key: str | None) -> str | None:
    """The hash part of a key (``jit_f-<hex>`` -> ``<hex>``)."""
    return key.rsplit("-", 1)[-1] if key else None


def key_changes(base: PersistentFate, new: PersistentFate) -> list[str]:
    """Which of :data:`KEY_PARTS` differ between two compiles (read where both recorded it)."""
    found = []
    for part in KEY_PARTS:
        a, b = base.figures.get(part), new.figures.get(part)
        if a is not None and b is not None and a != b:
            found.append(part)
    return found


def mismatches(
    base: list[PersistentFate], new: list[PersistentFate]
) -> list[tuple[PersistentFate, PersistentFate]]:
    """Pairs (base's, new's) of one function and signature that one run loaded from the
    persistent cache (or wrote to it) and the other compiled: the first of each."""
    by_signature: dict[tuple[str, str | None, str | None], PersistentFate] = {}
    for fate in base:
        by_signature.setdefault((fate.function, fate.defined_at, fate.signature), fate)
    found, said = [], set()
    for fate in new:
        key = (fate.function, fate.defined_at, fate.signature)
        other = by_signature.get(key)
        if other is None or fate.signature is None or key in said:
            continue
        loads = (other.outcome == "loaded", fate.outcome == "loaded")
        if loads[0] != loads[1] or (other.outcome == "written" and fate.outcome != "loaded"):
            said.add(key)
            found.append((other, fate))
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


def key_changed_figures(base: PersistentFate, new: PersistentFate) -> dict[str, Any]:
    """The figures of a ``persistent-key-changed`` diagnosis of two compiles."""
    parts = key_changes(base, new)
    figures: dict[str, Any] = {
        "signature": new.signature,
        "base_outcome": base.outcome,
        "base_why": base.why,
        "new_outcome": new.outcome,
        "new_why": new.why,
        "base_key": base.key,
        "new_key": new.key,
        "parts": ",".join(parts),
    }
    for part in parts:
        figures[f"base_{part}"], figures[f"new_{part}"] = base.figures[part], new.figures[part]
    for name in ("compile_s", "min_compile_s", "size", "min_size"):
        value = base.figures.get(name, new.figures.get(name))
        if value is not None:
            figures[name] = value
    return figures


def mismatch_note(base: PersistentFate, new: PersistentFate, lang: str) -> str:
    """A mismatch whose keys did not change, or could not be read: what was seen."""
    where = f"{new.function} ({new.defined_at})" if new.defined_at else new.function
    fields = {
        "function": where,
        "signature": new.signature or "?",
        "base": outcome_text(base.outcome, base.why, base.figures, lang),
        "new": outcome_text(new.outcome, new.why, new.figures, lang),
    }
    if base.key and new.key:
        return say("persistent.same_key", lang, key=_short(new.key), **fields)
    return say("persistent.unknown_key", lang, **fields)
