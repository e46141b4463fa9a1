"""What a probe tells of what it holds: its records, counts, diagnoses, cards and scripts.

:class:`Views` is a part of :class:`jitlab.probe.probe.Probe` (a base, above
:class:`~jitlab.probe.bookkeeping.Bookkeeping`): the reads the lab, the watch, the notebook
and the user make — ``records``, ``notable``, ``last``, ``summary``, ``calls``,
``records_since``, ``diagnoses``, ``card``, ``script`` and the probe's one-line ``repr``.
Each takes the lock for what it reads and files the steady hits put off first; none
changes what the probe records.
"""

from __future__ import annotations

import collections

from jitlab.probe import scripts
from jitlab.probe.bookkeeping import Bookkeeping
from jitlab.probe.cards import Card
from jitlab.probe.store import Head
from jitlab.records.calls import CallRecord, Summary
from jitlab.records.diagnoses import Diagnosis

__all__ = ["Views"]


class Views(Bookkeeping):
    """The reads of a probe (see the module's docstring)."""

    # The steady hits not filed yet (RecordStore.unfiled), read on every steady hit.
    _unfiled: collections.deque[Head]

    @property
    def notable(self) -> list[CallRecord]:
        """The newest ``max_records`` records that are not plain hits, in call order."""
        return self._store.notable

    @property
    def dropped_records(self) -> int:
        """Records dropped from the front of :attr:`records` to keep it bounded."""
        return self._store.dropped

    def __repr__(self) -> str:
        """One line for a plain prompt: the counts :meth:`summary` gives and the cards held
        (names as in code, so no language). Reads only running totals; never raises."""
        try:
            s = self.summary()
            cards = len(self.ledger.cards)
            return (
                f"<Probe {self.name!r}: calls={s.calls} compiles={s.compiles} "
                f"recompiles={s.recompiles} hits={s.cache_hits} errors={s.errors} "
                f"cards={cards}>"
            )
        except Exception:  # a half-built probe (its __init__ raised) still prints
            return f"<Probe at {id(self):#x}>"

    @property
    def calls(self) -> int:
        """Every call this probe made, recorded or only counted."""
        with self._lock:
            return self._fold()

    @property
    def diagnoses(self) -> list[Diagnosis]:
        """What jitlab diagnosed on this probe's compiles (recompile-limit, identity-static:
        the watch's diagnosers), in the order stated: the probe's ``diagnosis`` lines; then
        slow-dispatch, its hits JAX ran through Python dispatch by cause (counted with
        ``capture_output``, where they are routed)."""
        if self._diagnoses is None:  # a watch's probe: the recording's diagnosers state them
            return []
        with self._lock:
            found = list(self._diagnoses.stated)
        if self._dispatches is not None:
            hits: dict[tuple[str, str | None], int | None] = {
                (self.name, self._diagnoses.site): self.summary().cache_hits
            }
            found += self._dispatches.diagnoses(hits, None)
        return found

    @property
    def records(self) -> list[CallRecord]:
        """The newest ``max_records`` records, in call order."""
        if self._unfiled:
            with self._lock:
                self._store.settle()
        return self._store.records

    @property
    def last(self) -> CallRecord | None:
        """The newest record, even when records are not kept."""
        if self._unfiled:
            with self._lock:
                self._store.settle()
        return self._store.last

    def summary(self) -> Summary:
        """Exact over every call (running totals), however few records are kept."""
        with self._lock:
            return self._store.summary(self._fold())

    def records_since(self, calls: int) -> list[CallRecord]:
        """The kept records of calls made after the first ``calls`` (see :attr:`calls`)."""
        with self._lock:
            return self._store.since(calls)

    def card(self, index: int) -> Card:
        """The card numbered ``index`` (``CallRecord.card``) in the card holder."""
        with self._lock:
            card = self.ledger.card(index)
            if card is not None:
                return card
            numbers = ", ".join(str(c.index) for c in self.ledger.cards) or "none"
        raise KeyError(f"{self.name} holds no card {index} (cards: {numbers})")

    def script(self, card: int | Card, *, stablehlo: bool = True) -> scripts.Script:
        """The program JAX compiled for this card: source, jaxpr, StableHLO, HLO, figures.

        Made on first request from the card's abstract signature and kept with the card.
        Asking never changes what the probe records (see :mod:`jitlab.probe.scripts`).
        ``stablehlo=False`` may leave the StableHLO text out (it is then printed when asked
        for: ``scripts.STABLEHLO_ON_REQUEST``); a script kept without it is made again in
        full when it is asked for with it, and a full one serves both.
        """
        held = self.card(card) if isinstance(card, int) else card
        cached = held.script_cache
        fresh = cached is not None and cached[0] == held.created_by
        if cached is not None and fresh and not (stablehlo and cached[1].stablehlo_deferred):
            return cached[1]
        made = scripts.make_script(self, held, stablehlo)
        held.script_cache = (held.created_by, made)
        return made
