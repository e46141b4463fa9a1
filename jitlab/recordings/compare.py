"""Run against run: what compiles more, or less, in a new recording than in a base one.

``jitlab diff base.jsonl new.jsonl`` reads two recordings made by ``jitlab watch`` and
compares them per function: programs compiled, time lost compiling, and the signatures
added or gone. It is a CI guard: :meth:`RecordingDiff.regressions` says what exceeds the
tolerances, and the command exits 1 when anything does. JAX-free (reads files only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jitlab.recordings.identity import pair
from jitlab.recordings.reader import Recording
from jitlab.recordings.summary import FunctionSummary, summarize


@dataclass(frozen=True)
class FunctionDiff:
    """One function in both runs (or in only one of them)."""

    function: str
    defined_at: str | None  # where the new run defines it (the base's if it is gone)
    base: FunctionSummary | None
    new: FunctionSummary | None

    @property
    def base_compiles(self) -> int:
        return self.base.executables if self.base else 0

    @property
    def new_compiles(self) -> int:
        return self.new.executables if self.new else 0

    @property
    def extra_compiles(self) -> int:
        return self.new_compiles - self.base_compiles

    @property
    def base_ms(self) -> float:
        return self.base.compile_ms if self.base else 0.0

    @property
    def new_ms(self) -> float:
        return self.new.compile_ms if self.new else 0.0

    @property
    def extra_ms(self) -> float:
        return self.new_ms - self.base_ms

    @property
    def added(self) -> tuple[str, ...]:
        """Signatures compiled in the new run only."""
        before = set(self.base.signatures if self.base else ())
        return tuple(s for s in (self.new.signatures if self.new else ()) if s not in before)

    @property
    def gone(self) -> tuple[str, ...]:
        """Signatures compiled in the base run only."""
        after = set(self.new.signatures if self.new else ())
        return tuple(s for s in (self.base.signatures if self.base else ()) if s not in after)

    @property
    def status(self) -> str:
        """``new``, ``gone``, ``more``, ``fewer`` or ``same`` (by programs compiled)."""
        if self.base is None:
            return "new"
        if self.new is None:
            return "gone"
        if self.extra_compiles:
            return "more" if self.extra_compiles > 0 else "fewer"
        return "same"

    def to_json(self) -> dict[str, Any]:
        return {
            "function": self.function,
            "defined_at": self.defined_at,
            "status": self.status,
            "compiles": {"base": self.base_compiles, "new": self.new_compiles},
            "compile_ms": {"base": round(self.base_ms, 3), "new": round(self.new_ms, 3)},
            "signatures_added": list(self.added),
            "signatures_gone": list(self.gone),
        }


@dataclass(frozen=True)
class RecordingDiff:
    functions: tuple[FunctionDiff, ...]

    @property
    def base_compiles(self) -> int:
        return sum(f.base_compiles for f in self.functions)

    @property
    def new_compiles(self) -> int:
        return sum(f.new_compiles for f in self.functions)

    @property
    def base_ms(self) -> float:
        return sum(f.base_ms for f in self.functions)

    @property
    def new_ms(self) -> float:
        return sum(f.new_ms for f in self.functions)

    def regressions(
        self, max_extra_compiles: int = 0, max_extra_ms: float | None = None
    ) -> list[str]:
        """What exceeds the tolerances, in words; empty when the new run is within them.

        Compiles are counted over the whole run (a function that compiles less pays for one
        that compiles more); time only when ``max_extra_ms`` is given, as timings are noisy.
        """
        found: list[str] = []
        extra = self.new_compiles - self.base_compiles
        if extra > max_extra_compiles:
            worse = [
                f"{f.function} +{f.extra_compiles}" for f in self.functions if f.extra_compiles > 0
            ]
            found.append(
                f"{extra} more compile{'s' if extra != 1 else ''} than the base run "
                f"({self.new_compiles} vs {self.base_compiles}; allowed {max_extra_compiles}): "
                + ", ".join(worse)
            )
        extra_ms = self.new_ms - self.base_ms
        if max_extra_ms is not None and extra_ms > max_extra_ms:
            found.append(
                f"{extra_ms:.1f} ms more compiling than the base run "
                f"({self.new_ms:.1f} vs {self.base_ms:.1f} ms; allowed {max_extra_ms:g} ms)"
            )
        return found

    def to_json(self) -> dict[str, Any]:
        return {
            "compiles": {"base": self.base_compiles, "new": self.new_compiles},
            "compile_ms": {"base": round(self.base_ms, 3), "new": round(self.new_ms, 3)},
            "functions": [f.to_json() for f in self.functions],
        }


def compare(base: Recording, new: Recording, include_internal: bool = False) -> RecordingDiff:
    """Pair each function of ``new`` with the same function of ``base``.

    A function is the same when its name and definition line match; when an edit moved the
    line, the same name in the same file; failing that, the same name, if only one function
    has it in each run (:func:`jitlab.recordings.identity.pair`). Ordered by how much more
    the new run compiles.
    """
    pairs = pair(summarize(base, include_internal), summarize(new, include_internal))
    diffs = [
        FunctionDiff(
            (new_s or base_s).function,  # type: ignore[union-attr]
            (new_s or base_s).defined_at,  # type: ignore[union-attr]
            base_s,
            new_s,
        )
        for base_s, new_s in pairs
    ]
    diffs.sort(key=lambda f: (-f.extra_compiles, -f.extra_ms, f.function))
    return RecordingDiff(tuple(diffs))
