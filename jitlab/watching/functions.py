"""A watched function as the user sees it (:class:`Site`) and its share of one recording
(:class:`FunctionStats`)."""

from __future__ import annotations

import contextlib
import weakref
from dataclasses import dataclass, field
from typing import Any

from jitlab.probe import frames, sites, wrappers
from jitlab.probe.probe import Ledger
from jitlab.records.history import Tally


def defined_at(fun: Any) -> str | None:
    """Where ``fun`` was defined, called while jax.jit runs: a library's inner function maps
    to the user's def."""
    site = sites.defined_at(fun, search_stack=True)
    for _ in range(8):  # jax.shard_map(f) and the like: JAX's wrapper, the user's f inside
        fun = getattr(fun, "__wrapped__", None)
        if fun is None or site is None or not frames.is_library(site.rpartition(":")[0]):
            break
        site = sites.defined_at(fun) or site
    return site


class Site:
    """One jitted function as the user sees it: a definition site, however many times the
    same code is handed to ``jax.jit`` (a closure jitted inside a loop, a factory).

    Its instances share one ledger — so the second instance's compile is a recompile of the
    same function — and hits are counted over all of them, living or gone.
    """

    def __init__(self, name: str, defined_at: str | None) -> None:
        self.name = name
        self.defined_at = defined_at
        self.ledger = Ledger()
        self.instances = 0  # how many distinct function objects of this code were jitted
        # (function, jit options, generation) of the objects seen: jax.jit of the *same*
        # function and options again shares JAX's cache, so it is not a new function object.
        self._objects: list[tuple[Any, Any, int]] = []

    def generation(self, fun: Any, jitted: Any) -> int:
        """The generation of ``fun`` jitted as ``jitted``: a new one per function object,
        unless JAX shares its cache with one seen before (the same function, or one equal
        to it while that one lives: a bound method of the same object taken again, an equal
        callable object; and the same jit options)."""
        info = wrappers.recognise(jitted)
        identity = wrappers.cache_identity(info) if info is not None else None
        with self.ledger.lock:
            for _ref, held, generation in self._objects:
                if identity is not None and held == identity:
                    return generation
            alive = [entry for entry in self._objects if entry[0]() is not None]
            generation = self.instances
            self.instances += 1
            with contextlib.suppress(TypeError):  # not weak-referenceable: always new
                alive.append((weakref.ref(fun), identity, generation))
            self._objects = alive[-64:]
            return generation

    @property
    def hits(self) -> int:
        return self.ledger.hits


@dataclass
class FunctionStats:
    """One function's share of one recording (a block may start after its first calls)."""

    name: str
    defined_at: str | None
    site: Site | None = None  # probed functions; None for those seen through events only
    hits_base: int = 0  # the site's hits when this recording began to count them
    hits_final: int | None = None  # frozen when the recording stopped
    last_signature: Any = None  # functions seen through events: the last compile's signature
    last_key: Any = None  # and its key (static values as objects): jitlab's own diff
    # The calls this recording filed for it (compiles, errors). Hits are not filed one by
    # one (the hot path only counts them in the site's ledger): see ``hits``.
    filed: Tally = field(default_factory=Tally)

    @property
    def compiles(self) -> int:
        """Executables made in this recording (compile, recompile, persistent hit)."""
        return sum(n for kind, n in self.filed.counts.items() if kind.compiled)

    @property
    def hits(self) -> int | None:
        """Cache hits in this recording, or None when not counted (jitted before any watch)."""
        if self.site is None:
            return None
        end = self.site.hits if self.hits_final is None else self.hits_final
        return end - self.hits_base
