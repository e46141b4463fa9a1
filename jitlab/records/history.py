"""Bounded lists and exact counts: what a long stream of calls keeps in memory (JAX-free).

:class:`History` keeps the newest items, addressed by stream position; :class:`Tally` keeps
exact counts per kind and time sums, whatever the list still holds.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Generic, TypeVar, overload

from jitlab.records.calls import CallKind, CallRecord, Summary

T = TypeVar("T")


class History(Generic[T]):
    """The newest ``cap`` items of a stream, addressed by their position in the whole stream.

    ``len()`` is the exact number of items ever appended; ``history[i]`` is the item at
    stream position ``i`` (negative counts from the newest) while it is still kept, and
    raises ``IndexError`` once it has dropped off; a slice and iteration give the kept items
    only. Old items are dropped in chunks, so an append stays O(1) on average and no more
    than ``cap`` items are ever held.
    """

    def __init__(self, cap: int | None = None) -> None:  # None: keep everything
        self._items: list[T] = []
        self.dropped = 0  # items that fell off the front
        self.cap = cap if cap is not None else sys.maxsize

    @property
    def kept(self) -> int:
        return len(self._items)

    @property
    def first(self) -> int:
        """Stream position of the oldest kept item."""
        return self.dropped

    def set_cap(self, cap: int) -> None:
        self.cap = max(1, int(cap))
        self._trim()

    def append(self, item: T) -> None:
        self._items.append(item)
        if len(self._items) > self.cap:
            self._trim()

    def extend(self, items: Iterable[T]) -> None:
        self._items.extend(items)
        self._trim()

    def _trim(self) -> None:
        if len(self._items) <= self.cap:
            return
        # Keep 7/8 of the cap after a trim: one list shift per cap/8 appends.
        keep = max(1, self.cap - self.cap // 8)
        drop = len(self._items) - keep
        del self._items[:drop]
        self.dropped += drop

    def get(self, position: int) -> T | None:
        """The item at stream position ``position``, or None if it is not kept."""
        at = position - self.dropped
        return self._items[at] if 0 <= at < len(self._items) else None

    def __len__(self) -> int:
        return self.dropped + len(self._items)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __eq__(self, other: object) -> bool:
        """Equal to a list of the same items when nothing has dropped off (tests compare)."""
        if isinstance(other, History):
            return self.dropped == other.dropped and self._items == other[:]
        if isinstance(other, list):
            return self.dropped == 0 and self._items == other
        if isinstance(other, tuple):
            return self.dropped == 0 and tuple(self._items) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"History({len(self)} items, newest {len(self._items)} kept, cap {self.cap})"

    def __iter__(self) -> Iterator[T]:
        return iter(self._items)

    def __reversed__(self) -> Iterator[T]:
        return reversed(self._items)

    @overload
    def __getitem__(self, key: int) -> T: ...
    @overload
    def __getitem__(self, key: slice) -> list[T]: ...
    def __getitem__(self, key: int | slice) -> T | list[T]:
        if isinstance(key, slice):
            start, stop, step = key.indices(len(self))
            start, stop = max(start, self.dropped), max(stop, self.dropped)
            return self._items[start - self.dropped : stop - self.dropped : step]
        position = key + len(self) if key < 0 else key
        at = position - self.dropped
        if not 0 <= at < len(self._items):
            raise IndexError(f"call {key} is not kept (kept: {self.dropped}…{len(self) - 1})")
        return self._items[at]


class Tally:
    """Exact counts and time sums of a stream of calls, whatever is still kept."""

    def __init__(self) -> None:
        self.calls = 0
        self.counts: dict[CallKind, int] = {k: 0 for k in CallKind}
        self.trace_ms = self.lower_ms = self.compile_ms = 0.0

    def add(self, record: CallRecord) -> None:
        self.calls += 1
        self.counts[record.kind] += 1
        self.trace_ms += record.trace_ms
        self.lower_ms += record.lower_ms
        self.compile_ms += record.compile_ms

    def summary(self) -> Summary:
        return Summary.from_counts(
            self.counts, self.calls, self.trace_ms, self.lower_ms, self.compile_ms
        )
